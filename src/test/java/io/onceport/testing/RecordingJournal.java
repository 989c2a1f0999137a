package io.onceport.testing;

import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
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
}
