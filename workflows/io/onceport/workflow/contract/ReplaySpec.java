package io.onceport.workflow.contract;

import java.time.Duration;
import java.util.Objects;

/**
 * The replay contract: class, how long an unfinished or undelivered execution stays attachable, how
 * long a delivered one keeps answering identical calls (the late-arrival tail), (for {@code
 * status_query}) how to ask the target, and (for {@code attach_window: until_verified}) how to
 * verify the effect.
 *
 * <p>{@code status} is required for an HTTP {@code status_query} tool (checked by {@link
 * ToolContract}); an SSH tool answers status queries from its remote marker and has none.
 *
 * @param attachWindow the attach window; with {@code until_verified} the window of an execution
 *     that has no effect to verify (it failed, was refused or cancelled): the loader's default
 * @param dedupeAfterDelivery the late-arrival tail: null takes the class's default ({@link
 *     ReplayClass#defaultDedupeAfterDelivery()}); never shorter than {@link #MIN_DEDUPE_AFTER_DELIVERY}
 * @param verify set when the contract says {@code attach_window: until_verified}: the execution keeps
 *     its identity until this check (or an operator) confirms the effect, then for its verified
 *     window (at least {@link #MIN_DEDUPE_AFTER_DELIVERY}); null otherwise
 */
public record ReplaySpec(ReplayClass replayClass, Duration attachWindow, StatusSpec status, Duration dedupeAfterDelivery,
    VerifySpec verify) {
  /**
   * The shortest late-arrival tail: the time a run stays open after it accepted an attach
   * ({@code ToolExecutionWorkflow.ATTACH_RETRY_GRACE}), which is longer than any front end takes to
   * get a call it received onto its run. A shorter tail could close a run before a front end's
   * repeated attempt of a call it already delivered reached it.
   */
  public static final Duration MIN_DEDUPE_AFTER_DELIVERY = Duration.ofSeconds(30);
  /** The word a contract writes instead of a duration. */
  public static final String UNTIL_VERIFIED = "until_verified";

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
    if (verify != null && replayClass == ReplayClass.READ_ONLY) {
      throw new IllegalArgumentException("Invalid attach window: until_verified is not for class read_only (a read has no effect)");
    }
  }

  /** With the class's default late-arrival tail, kept by time. */
  public ReplaySpec(ReplayClass replayClass, Duration attachWindow, StatusSpec status) {
    this(replayClass, attachWindow, status, null, null);
  }

  /** With a late-arrival tail (null: the class's default), kept by time. */
  public ReplaySpec(ReplayClass replayClass, Duration attachWindow, StatusSpec status, Duration dedupeAfterDelivery) {
    this(replayClass, attachWindow, status, dedupeAfterDelivery, null);
  }

  /** Kept until verified ({@code verify}), with the class's default late-arrival tail. */
  public ReplaySpec(ReplayClass replayClass, Duration attachWindow, StatusSpec status, VerifySpec verify) {
    this(replayClass, attachWindow, status, null, verify);
  }

  /** Whether executions are kept until their effect is verified ({@code attach_window: until_verified}). */
  public boolean untilVerified() {
    return verify != null;
  }

  /**
   * How long identical calls keep attaching after the effect was verified: the contract's {@code
   * verified_window}, at least {@link #MIN_DEDUPE_AFTER_DELIVERY} (the same floor as the late-arrival
   * tail, for the same reason).
   */
  public Duration verifiedWindow() {
    Duration w = verify == null ? Duration.ZERO : verify.verifiedWindow();
    return w.compareTo(MIN_DEDUPE_AFTER_DELIVERY) < 0 ? MIN_DEDUPE_AFTER_DELIVERY : w;
  }
}
