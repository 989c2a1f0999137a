package io.onceport.workflow.contract;

import java.time.Duration;
import java.util.Objects;

/**
 * The replay contract: class, how long an unfinished or undelivered execution stays attachable,
 * and (for {@code status_query}) how to ask the target.
 *
 * <p>{@code status} is required for an HTTP {@code status_query} tool (checked by {@link
 * ToolContract}); an SSH tool answers status queries from its remote marker and has none.
 */
public record ReplaySpec(ReplayClass replayClass, Duration attachWindow, StatusSpec status) {
  public ReplaySpec {
    Objects.requireNonNull(replayClass, "replayClass == null");
    Objects.requireNonNull(attachWindow, "attachWindow == null");
    if (attachWindow.isZero() || attachWindow.isNegative()) {
      throw new IllegalArgumentException("Invalid attach window: " + attachWindow);
    }
  }
}
