package io.onceport.activity.session;

import io.onceport.workflow.session.SessionJournalActivities;
import io.onceport.workflow.session.SessionJournalEntry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Writes the session workflow's events to a {@link SessionJournal}, keyed so retries write once. */
public final class SessionJournalActivitiesImpl implements SessionJournalActivities {
  private final SessionJournal journal;

  public SessionJournalActivitiesImpl(SessionJournal journal) {
    this.journal = Objects.requireNonNull(journal, "journal == null");
  }

  @Override
  public void recordSessionEvent(SessionJournalEntry entry) {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("session", entry.sessionId());
    payload.put("event", entry.event());
    payload.put("actor", entry.actor());
    payload.put("at", entry.at());
    payload.put("sequence", entry.sequence());
    payload.put("detail", new LinkedHashMap<>(entry.detail()));
    journal.append(payload, entry.appendKey()); // a failure is retried by Temporal with the same key
  }
}
