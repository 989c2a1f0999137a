package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.onceport.workflow.operator.SignedDecision;

/**
 * An operator's approval or denial of one execution. Bound to the execution id and fingerprint: an
 * approval for anything else is refused.
 *
 * <p>{@code statement} and {@code signature} carry the operator's signed statement ({@code onceport
 * approve|deny}, or {@code onceport operator sign} for the Temporal UI); a workflow that verifies
 * decisions acts on the verified statement only, and the other fields are then informational (the
 * UI input may be just {@code {"statement":"…","signature":"…"}}).
 */
public record ApprovalDecision(
    String executionId, String fingerprint, boolean approved, String reason, String by, String statement, String signature) {
  public ApprovalDecision {
    reason = reason == null ? "" : reason;
    by = by == null || by.isBlank() ? "operator" : by;
  }

  /** An unsigned decision (histories recorded before decisions were signed, and tests of refusals). */
  public ApprovalDecision(String executionId, String fingerprint, boolean approved, String reason, String by) {
    this(executionId, fingerprint, approved, reason, by, null, null);
  }

  /** The signed statement, or null when none was presented. */
  @JsonIgnore
  public SignedDecision signedDecision() {
    return SignedDecision.ofNullable(statement, signature);
  }
}
