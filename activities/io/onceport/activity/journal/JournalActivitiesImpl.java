package io.onceport.activity.journal;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.failure.ApplicationFailure;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes workflow transitions to the activity journal. Idempotent per {@link
 * JournalEntry#appendKey()}, durable before return. A failure is an {@code ApplicationFailure} of
 * type {@link ErrorTypes#JOURNAL_UNAVAILABLE}: retryable when the journal cannot write (the
 * workflow's retry options decide; a full disk may be cleared), non-retryable when the entry itself
 * cannot be journaled (a reserved or non-JSON field). The dispatch hook, by contrast, always fails
 * closed.
 */
public final class JournalActivitiesImpl implements JournalActivities {
  private final Journal journal;

  public JournalActivitiesImpl(Journal journal) {
    this.journal = Objects.requireNonNull(journal, "journal == null");
  }

  @Override
  public void append(JournalEntry entry) {
    Objects.requireNonNull(entry, "entry == null");
    try {
      journal.append(payload(entry), entry.appendKey());
    } catch (JournalException e) {
      throw ApplicationFailure.newFailure(e.getMessage(), ErrorTypes.JOURNAL_UNAVAILABLE);
    } catch (IllegalArgumentException e) {
      // a payload the journal cannot hold will not become writable by retrying
      throw ApplicationFailure.newNonRetryableFailure(
          "journal entry rejected: " + e.getMessage(), ErrorTypes.JOURNAL_UNAVAILABLE);
    }
  }

  /** The journal fields of an activity entry (snake case, as in the journal format). */
  static Map<String, Object> payload(JournalEntry entry) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("execution_id", entry.executionId());
    m.put("fingerprint", entry.fingerprint());
    m.put("transition", entry.transition());
    m.put("attempt", entry.attempt());
    m.put("at", entry.at());
    m.put("detail", entry.detail());
    return m;
  }
}
