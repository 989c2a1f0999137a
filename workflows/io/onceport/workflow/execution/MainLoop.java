package io.onceport.workflow.execution;

import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

/**
 * The main method's one way to wait, and the only place its bookkeeping commands come from: the
 * journal writes (one local activity per wait), the visibility upserts, and one timer at a time for
 * the earliest of its own deadline and its callers' ({@link CallerDeadlines}). Because every wait
 * goes through {@link #waitUntil}, these commands are issued in one deterministic order however
 * signals and updates interleave.
 */
final class MainLoop {
  private final Execution execution;
  private final ExecutionVisibility visibility;
  private final CallerDeadlines callers;
  private final JournalActivities journal;
  private final ResetPoint resetPoint;
  private Promise<Void> timer;
  private long timerAt = Long.MAX_VALUE;

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
   * waiting it wakes for new queued entries and for the deadlines of callers waiting in handlers,
   * with one timer at a time.
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
      long wake = Math.min(until, callers.earliestAfter(now));
      if (wake != Long.MAX_VALUE && (timer == null || timerAt != wake || timer.isCompleted())) {
        timerAt = wake;
        timer = Workflow.newTimer(Duration.ofMillis(wake - now));
      }
      Promise<Void> armed = wake == Long.MAX_VALUE ? null : timer;
      int waiting = callers.count();
      Workflow.await(() -> done.apply() || !execution.journal().isEmpty()
          || armed != null && armed.isCompleted()
          || callers.count() != waiting && callers.earliestAfter(Workflow.currentTimeMillis()) < wake);
      deadlineFired = armed != null && armed.isCompleted() && wake == until;
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
