package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.onceport.workflow.operator.SignedDecision;

/**
 * An operator's answer to an execution in {@code needs_review}: it completed, it failed, or it
 * provably did not run and may be dispatched again under the same execution id.
 *
 * <p>{@code statement} and {@code signature} carry the operator's signed statement; with them the
 * other fields may be absent (the Temporal UI input {@code {"statement":"…","signature":"…"}}), and
 * a workflow that verifies decisions acts on the verified statement only.
 */
public record Resolution(Decision decision, String reason, String by, String statement, String signature) {
  public enum Decision {
    COMPLETED,
    FAILED,
    REDISPATCH
  }

  public Resolution {
    boolean signed = statement != null && !statement.isBlank();
    if (!signed) {
      java.util.Objects.requireNonNull(decision, "decision == null");
      if (reason == null || reason.isBlank()) {
        throw new IllegalArgumentException("a resolution needs a reason");
      }
    }
    reason = reason == null ? "" : reason;
    by = by == null || by.isBlank() ? "operator" : by;
  }

  /** An unsigned resolution (histories recorded before decisions were signed, and tests of refusals). */
  public Resolution(Decision decision, String reason, String by) {
    this(decision, reason, by, null, null);
  }

  /** The signed statement, or null when none was presented. */
  @JsonIgnore
  public SignedDecision signedDecision() {
    return SignedDecision.ofNullable(statement, signature);
  }
}
