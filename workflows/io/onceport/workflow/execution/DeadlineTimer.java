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
 * when cancelled in the task that started it (the SDK then drops both commands). Measured by
 * {@code ToolExecutionCostTest}, one call through the engine: 5 workflow tasks / 31 events while
 * the caller's deadline timer was left to fire, 4 / 30 with it and the attach window's cancelled.
 *
 * <p>Determinism: only the main method arms and cancels ({@link MainLoop#waitUntil}); handlers
 * change only the deadlines they wait on ({@link CallerDeadlines}), never a command, so a signal and
 * an update handled in one workflow task arm and cancel the same timers in either order (the
 * multi-process histories in {@code ToolExecutionReplayTest}). A cancelled timer's promise fails
 * with a {@code CanceledFailure}; nothing waits on it ({@link #fired} reads only the timer still
 * armed, and only one that completed without failure has fired), so the failure is never thrown.
 */
final class DeadlineTimer {
  private CancellationScope scope;
  private Promise<Void> timer;
  private long at = Long.MAX_VALUE;

  /**
   * Makes the timer fire at {@code wake} ({@code Long.MAX_VALUE}: not at all). A timer pending for
   * that time is kept (a wait that ends and the next one with the same deadline share it); one
   * pending for another time is cancelled first. {@code wake} must be after {@code now}.
   */
  void arm(long wake, long now) {
    if (timer != null && at == wake && !timer.isCompleted()) {
      return;
    }
    cancel();
    if (wake == Long.MAX_VALUE) {
      return;
    }
    at = wake;
    scope = Workflow.newCancellationScope(() -> timer = Workflow.newTimer(Duration.ofMillis(wake - now)));
    scope.run();
  }

  /** Cancels a pending timer; a fired one is only forgotten. */
  void cancel() {
    if (timer != null && !timer.isCompleted()) {
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

  /** Whether the timer armed for {@link #at} fired (a cancelled one never has). */
  boolean fired() {
    return timer != null && timer.isCompleted() && timer.getFailure() == null;
  }
}
