package io.onceport.workflow.execution;

import java.util.Objects;

/**
 * An operator's approval or denial of one execution. Bound to the execution id and fingerprint: an
 * approval for anything else is refused.
 */
public record ApprovalDecision(String executionId, String fingerprint, boolean approved, String reason, String by) {
  public ApprovalDecision {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    reason = reason == null ? "" : reason;
    by = by == null || by.isBlank() ? "operator" : by;
  }
}
