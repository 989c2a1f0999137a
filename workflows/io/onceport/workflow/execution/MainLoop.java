package io.onceport.workflow.execution;

import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * The main method's one way to wait, and the only place its bookkeeping commands come from: the
 * journal writes (one local activity per wait), the visibility upserts, and the timers for its own
 * deadline and its callers' ({@link CallerDeadlines}), each cancelled when no longer needed. Because every wait
 * goes through {@link #waitUntil}, these commands are issued in one deterministic order however
 * signals and updates interleave.
 */
final class MainLoop {
  private final Execution execution;
  private final ExecutionVisibility visibility;
  private final CallerDeadlines callers;
  private final JournalActivities journal;
  private final ResetPoint resetPoint;
  /** For the {@code until} of the current wait. */
  private final DeadlineTimer ownDeadline = new DeadlineTimer();
  /** For the earliest deadline of the callers waiting in handlers. */
  private final DeadlineTimer callerDeadline = new DeadlineTimer();

  MainLoop(Execution execution, ExecutionVisibility visibility, CallerDeadlines callers, JournalActivities journal) {
    this.execution = execution;
    this.visibility = visibility;
    this.callers = callers;
    this.journal = journal;
    this.resetPoint = new ResetPoint(execution, journal);
  }

  /**
   * A step of the main method where a reset run may be past its reset point (its start, the end of
   * every wait): see {@link ResetPoint}.
   */
  void resetPoint() {
    resetPoint.check();
  }

  /**
   * Waits until {@code done} holds or the clock reaches {@code until}; returns whether {@code done}
   * holds. Before every wait it writes what is queued (journal, search attributes, memo); while
   * waiting it wakes for new queued entries and for the deadlines of callers waiting in handlers.
   *
   * <p>Two timers at most, each cancelled as soon as its deadline no longer matters ({@link
   * DeadlineTimer}): one for {@code until}, kept across waits with the same deadline; one for the
   * earliest deadline of the callers waiting, re-armed whenever that changes — a caller arrives
   * with an earlier one, or the earliest caller was answered or gave up (then the timer moves to
   * the next caller's deadline, or is cancelled when none waits). Apart, a caller coming and going
   * costs its own timer's start and cancel, never a re-arm of the run's deadline.
   */
  boolean waitUntil(long until, Functions.Func<Boolean> done) {
    boolean deadlineFired = false;
    while (true) {
      commit();
      if (done.apply()) {
        return true;
      }
      long now = Workflow.currentTimeMillis();
      // A fired timer for the deadline is the deadline, whatever this task's clock reads: replayed,
      // a task's clock can read a few milliseconds before a deadline computed from the live clock.
      if (now >= until || deadlineFired) {
        return false;
      }
      ownDeadline.arm(until, now);
      callerDeadline.arm(callers.earliestAfter(now), now);
      Workflow.await(() -> done.apply() || !execution.journal().isEmpty()
          || ownDeadline.fired() || callerDeadline.fired()
          || callers.earliestAfter(Workflow.currentTimeMillis()) != callerDeadline.at());
      deadlineFired = ownDeadline.fired();
      resetPoint.check();
    }
  }

  /** Writes the queued journal entries (one local activity) and publishes the view if it changed. */
  void commit() {
    if (!execution.journal().isEmpty()) {
      List<JournalEntry> batch = execution.journal().drain();
      try {
        journal.appendAll(batch);
      } catch (ActivityFailure failure) {
        // Also in the workflow history: a journal outage is recorded, not fatal (the dispatched
        // entry, written by the send itself, fails closed).
        execution.journalGap(batch.get(0).transition() + (batch.size() > 1 ? " and " + (batch.size() - 1) + " more" : ""),
            rootMessage(failure));
      }
    }
    publish();
  }

  /** Search attributes and memo, if what they show changed. */
  void publish() {
    visibility.publish(execution);
  }

  /** The innermost message of a failure: what an operator reads on the record. */
  static String rootMessage(Throwable failure) {
    Throwable t = failure;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof ApplicationFailure app ? app.getOriginalMessage() : String.valueOf(t.getMessage());
  }
}
