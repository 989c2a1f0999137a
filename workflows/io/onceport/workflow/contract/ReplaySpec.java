package io.onceport.workflow.contract;

import java.time.Duration;
import java.util.Objects;

/**
 * The replay contract: class, how long an unfinished or undelivered execution stays attachable, how
 * long a delivered one keeps answering identical calls (the late-arrival tail), and (for {@code
 * status_query}) how to ask the target.
 *
 * <p>{@code status} is required for an HTTP {@code status_query} tool (checked by {@link
 * ToolContract}); an SSH tool answers status queries from its remote marker and has none.
 *
 * @param dedupeAfterDelivery the late-arrival tail: null takes the class's default ({@link
 *     ReplayClass#defaultDedupeAfterDelivery()}); never shorter than {@link #MIN_DEDUPE_AFTER_DELIVERY}
 */
public record ReplaySpec(ReplayClass replayClass, Duration attachWindow, StatusSpec status, Duration dedupeAfterDelivery) {
  /**
   * The shortest late-arrival tail: the time a run stays open after it accepted an attach
   * ({@code ToolExecutionWorkflow.ATTACH_RETRY_GRACE}), which is longer than any front end takes to
   * get a call it received onto its run. A shorter tail could close a run before a front end's
   * repeated attempt of a call it already delivered reached it.
   */
  public static final Duration MIN_DEDUPE_AFTER_DELIVERY = Duration.ofSeconds(30);

  public ReplaySpec {
    Objects.requireNonNull(replayClass, "replayClass == null");
    Objects.requireNonNull(attachWindow, "attachWindow == null");
    if (attachWindow.isZero() || attachWindow.isNegative()) {
      throw new IllegalArgumentException("Invalid attach window: " + attachWindow);
    }
    if (dedupeAfterDelivery == null) {
      dedupeAfterDelivery = replayClass.defaultDedupeAfterDelivery();
    }
    if (dedupeAfterDelivery.compareTo(MIN_DEDUPE_AFTER_DELIVERY) < 0) {
      throw new IllegalArgumentException("Invalid dedupe_after_delivery: " + dedupeAfterDelivery + " (at least "
          + MIN_DEDUPE_AFTER_DELIVERY + ")");
    }
  }

  /** With the class's default late-arrival tail. */
  public ReplaySpec(ReplayClass replayClass, Duration attachWindow, StatusSpec status) {
    this(replayClass, attachWindow, status, null);
  }
}
