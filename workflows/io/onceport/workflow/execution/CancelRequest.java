package io.onceport.workflow.execution;

import java.util.Objects;

/**
 * A caller or operator asks to cancel. Before dispatch the execution is cancelled; after dispatch a
 * sent request cannot be unsent, so the record only notes that the caller stopped waiting.
 */
public record CancelRequest(String by, String reason, String callId) {
  public CancelRequest {
    Objects.requireNonNull(by, "by == null");
    reason = reason == null ? "" : reason;
  }
}
