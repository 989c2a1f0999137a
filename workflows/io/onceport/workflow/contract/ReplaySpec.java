package io.onceport.workflow.contract;

import java.time.Duration;
import java.util.Objects;

/**
 * The replay contract: class, how long an unfinished or undelivered execution stays attachable,
 * and (for {@code status_query}) how to ask the target.
 */
public record ReplaySpec(ReplayClass replayClass, Duration attachWindow, StatusSpec status) {
  public ReplaySpec {
    Objects.requireNonNull(replayClass, "replayClass == null");
    Objects.requireNonNull(attachWindow, "attachWindow == null");
    if (attachWindow.isZero() || attachWindow.isNegative()) {
      throw new IllegalArgumentException("Invalid attach window: " + attachWindow);
    }
    if (replayClass == ReplayClass.STATUS_QUERY && status == null) {
      throw new IllegalArgumentException("replay.status is required for class status_query");
    }
  }
}
