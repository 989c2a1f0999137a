package io.onceport.workflow.execution;

import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * One timer of the main method, for one deadline at a time, cancelled as soon as that deadline no
 * longer matters. Why cancel: a timer left pending after its reason went away (a caller answered,
 * a wait that ended on its condition) still fires, and a fired timer is a workflow task with
 * nothing to do — four history events after its start (fired; task scheduled, started,
 * completed). Cancelled, it costs one event (TimerCanceled) in a task that runs anyway, or none
 * when cancelled in the task that started it (the SDK then drops both commands); one due within a
 * workflow task's timeout is left to fire ({@link #release} says why). Measured by
 * {@code ToolExecutionCostTest}, one call through the engine: 5 workflow tasks / 31 events while
 * the caller's deadline timer was left to fire, 4 / 30 with it and the attach window's cancelled.
 *
 * <p>Determinism: only the main method arms and cancels ({@link MainLoop#waitUntil}); handlers
 * change only the deadlines they wait on ({@link CallerDeadlines}), never a command, so a signal and
 * an update handled in one workflow task arm and cancel the same timers in either order (the
 * multi-process histories in {@code ToolExecutionReplayTest}). A cancelled timer's promise fails
 * with a {@code CanceledFailure}: nothing waits on it ({@link #fired} and {@link #ended} read only
 * the timer still armed) and a handler takes it, so it is neither thrown nor logged as ignored.
 */
final class DeadlineTimer {
  private CancellationScope scope;
  private Promise<Void> timer;
  private long at = Long.MAX_VALUE;

  /**
   * Temporal's default workflow task timeout; Onceport sets no other. A completion arriving later
   * than this after its task started is refused, so a timer due later than this after the task's
   * start cannot have fired before the task's commands are taken.
   */
  static final long WORKFLOW_TASK_TIMEOUT_MILLIS = 10_000;

  /**
   * Makes the timer fire at {@code wake} ({@code Long.MAX_VALUE}: not at all). A timer pending for
   * that time is kept (a wait that ends and the next one with the same deadline share it); one
   * pending for another time is let go first ({@link #release}). {@code wake} must be after {@code
   * now}, the task's clock.
   */
  void arm(long wake, long now) {
    if (timer != null && at == wake && !timer.isCompleted()) {
      return;
    }
    release(now);
    if (wake == Long.MAX_VALUE) {
      return;
    }
    at = wake;
    scope = Workflow.newCancellationScope(() -> timer = Workflow.newTimer(Duration.ofMillis(wake - now)));
    scope.run();
    // Cancelled (here or with the whole run), the timer fails with a CanceledFailure nothing waits
    // for: handled here, or the SDK logs it as an ignored failure when the run closes.
    timer.exceptionally(canceled -> null);
  }

  /**
   * Lets the pending timer go: cancelled when it is due more than a workflow task's timeout after
   * {@code now}, forgotten (left to fire into a task with nothing to do) when due sooner. Why not
   * always cancel: a timer may fire while the task that cancels it runs. The Temporal server then
   * drops the buffered fire; the embedded engine (the Java test server, 1.38: {@code
   * processCancelTimer} finds the fired timer gone) refuses the whole completion with "invalid
   * history builder state for action" after applying part of it, which can leave the run stuck — in
   * one {@code MultiProcessFaultTest} run on the embedded engine with every timer cancelled, an
   * execution stayed in {@code dispatched_outcome_unknown}. A timer due after the task's timeout cannot fire before its
   * completion is taken. With {@code serve}'s default {@code --call-wait} of 30 s a caller answered
   * in its first 20 s has its timer cancelled.
   */
  void release(long now) {
    if (timer != null && !timer.isCompleted() && at - now > WORKFLOW_TASK_TIMEOUT_MILLIS) {
      scope.cancel("the deadline it was armed for no longer matters");
    }
    scope = null;
    timer = null;
    at = Long.MAX_VALUE;
  }

  /** When the timer fires, {@code Long.MAX_VALUE} when none is armed. */
  long at() {
    return at;
  }

  /** Whether the timer armed for {@link #at} fired. */
  boolean fired() {
    return timer != null && timer.isCompleted() && timer.getFailure() == null;
  }

  /**
   * Whether the timer armed for {@link #at} fired or was cancelled from outside: a Temporal cancel
   * request cancels every scope of the run, and a wait on the run's own deadline then ends as if
   * the deadline had passed (so such a run still closes; a timer this class cancels itself is no
   * longer the one armed).
   */
  boolean ended() {
    return timer != null && timer.isCompleted();
  }
}
