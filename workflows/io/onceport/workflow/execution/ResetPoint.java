package io.onceport.workflow.execution;

import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournaledSends;
import io.onceport.workflow.journal.ResetRun;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;

/**
 * A run that {@code temporal workflow reset} made reads the journal at its first step after the
 * reset point: what every run of the execution sent (its history may have lost sends: they happened
 * after the point it was reset to), so its record, the journal and {@code investigate} tell the
 * reset and the sends that really left. The read is a local activity, so its answer is in the run's
 * history and a replay of the run rebuilds the same record.
 *
 * <p><b>Finding the first step after the reset point.</b> A reset run replays the history it was
 * reset to before it runs anything new, and a command the replayed history does not hold would fail
 * the replay. So the main method asks at each of its steps — its start, and the end of every wait
 * ({@link MainLoop}) — with {@code Workflow.getVersion} under a name of its own for each step
 * ({@value #CHANGE_PREFIX}1, 2, …): while replaying history recorded before the reset the name is
 * not in history and the answer is {@code DEFAULT_VERSION} (no command); at the first step that runs
 * anew the version is recorded, and from then on every replay of this run finds it there. Runs that
 * are not resets never ask: their histories stay as they were.
 */
final class ResetPoint {
  static final String CHANGE_PREFIX = "onceport-reset-point-";

  private final Execution execution;
  private final JournalActivities journal;
  private int asked;
  private boolean found;

  ResetPoint(Execution execution, JournalActivities journal) {
    this.execution = execution;
    this.journal = journal;
  }

  /** At one step of the main method: on the reset run's first step after the reset point, reads the journal. */
  void check() {
    if (execution.originalRunId() == null || found) {
      return;
    }
    asked++;
    if (Workflow.getVersion(CHANGE_PREFIX + asked, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION) {
      return; // history recorded before the reset point
    }
    found = true;
    ExecutionInput input = execution.input();
    try {
      JournaledSends read = journal.resetRun(new ResetRun(execution.executionId(), input.fingerprint(), input.tool(),
          execution.runId(), execution.originalRunId(), execution.now()));
      execution.journalRead(read);
    } catch (ActivityFailure failure) {
      // The send path's ledger does not depend on this read: a send made before is still refused.
      execution.journalGap("reset", MainLoop.rootMessage(failure));
    }
  }
}
