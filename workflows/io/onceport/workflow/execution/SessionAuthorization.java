package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.onceport.workflow.operator.SignedDecision;
import java.util.Objects;

/**
 * An operator's decision on an agent session, forwarded to executions waiting on it by the session
 * workflow, with the operator's signed statement so the execution verifies it itself.
 */
public record SessionAuthorization(String sessionId, boolean authorized, String by, String reason, String statement, String signature) {
  public SessionAuthorization {
    Objects.requireNonNull(sessionId, "sessionId == null");
    by = by == null || by.isBlank() ? "operator" : by;
    reason = reason == null ? "" : reason;
  }

  /** An unsigned decision (histories recorded before decisions were signed). */
  public SessionAuthorization(String sessionId, boolean authorized, String by, String reason) {
    this(sessionId, authorized, by, reason, null, null);
  }

  /** The signed statement, or null when none was presented. */
  @JsonIgnore
  public SignedDecision signedDecision() {
    return SignedDecision.ofNullable(statement, signature);
  }
}
