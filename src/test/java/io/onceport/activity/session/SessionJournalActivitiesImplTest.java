package io.onceport.activity.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.onceport.activity.journal.Journals;
import io.onceport.workflow.session.SessionJournalEntry;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The session journal activity on the real tamper-evident sessions journal. */
class SessionJournalActivitiesImplTest {
  @TempDir Path data;

  @Test
  void aRetriedAppendOfTheSameSessionEventIsWrittenOnceToTheSessionsJournal() {
    try (Journals journals = Journals.open(data, "test-writer")) {
      SessionJournalActivitiesImpl activities = new SessionJournalActivitiesImpl((entry, key) -> journals.sessions().append(entry, key));
      SessionJournalEntry started = new SessionJournalEntry("mcp:1", "alice", "started", "run-1", 1, "2026-11-30T06:00:00Z",
          Map.of("client", "claude/1.2"));
      activities.recordSessionEvent(started);
      activities.recordSessionEvent(started);
      activities.recordSessionEvent(new SessionJournalEntry("mcp:1", "alice", "authorized", "run-1", 2, "2026-11-30T06:01:00Z",
          Map.of("by", "operator:carol", "reason", "")));
      assertEquals(2, journals.sessions().size());
      long first = journals.sessions().find("session/run-1/1").orElseThrow().seq();
      assertEquals(first + 1, journals.sessions().find("session/run-1/2").orElseThrow().seq());
    }
  }
}
