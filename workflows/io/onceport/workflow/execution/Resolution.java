package io.onceport.workflow.execution;

import java.util.Objects;

/**
 * An operator's answer to an execution in {@code needs_review}: it completed, it failed, or it
 * provably did not run and may be dispatched again under the same execution id.
 */
public record Resolution(Decision decision, String reason, String by) {
  public enum Decision {
    COMPLETED,
    FAILED,
    REDISPATCH
  }

  public Resolution {
    Objects.requireNonNull(decision, "decision == null");
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("a resolution needs a reason");
    }
    by = by == null || by.isBlank() ? "operator" : by;
  }
}
