package io.onceport.testing;

import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.journal.JournaledSends;
import io.onceport.workflow.journal.ResetRun;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps journal entries in memory, for tests that look at the workflow's transitions. */
public final class RecordingJournal implements JournalActivities {
  public final List<JournalEntry> entries = new CopyOnWriteArrayList<>();

  @Override
  public void append(JournalEntry entry) {
    entries.add(entry);
  }

  @Override
  public void appendAll(List<JournalEntry> batch) {
    entries.addAll(batch);
  }

  /** A reset run asks: nothing was sent before (these tests have no shared journal); its reset is recorded. */
  @Override
  public JournaledSends resetRun(ResetRun run) {
    entries.add(new JournalEntry(run.executionId(), run.fingerprint(), "reset", 1, run.at(), java.util.Map.of("run_id", run.runId())));
    return new JournaledSends(List.of(), 1, List.of(run.originalRunId(), run.runId()));
  }
}
