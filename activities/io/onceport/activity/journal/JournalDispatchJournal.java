package io.onceport.activity.journal;

import io.onceport.activity.dispatch.DispatchJournal;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.journal.JournalTransition;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;

/**
 * The dispatch boundary record: appends transition {@code dispatched} (attempt = the request's
 * attempt) durably before the channel sends. Fails closed: if the entry cannot be made durable it
 * throws a non-retryable {@code ApplicationFailure(JOURNAL_UNAVAILABLE)} so the dispatch does not
 * happen. A retried activity attempt with the same dispatch attempt finds the existing entry.
 */
public final class JournalDispatchJournal implements DispatchJournal {
  public static final String TRANSITION = JournalTransition.DISPATCHED.wireName();

  private final Journal journal;
  private final Clock clock;

  public JournalDispatchJournal(Journal journal) {
    this(journal, Clock.systemUTC());
  }

  public JournalDispatchJournal(Journal journal, Clock clock) {
    this.journal = Objects.requireNonNull(journal, "journal == null");
    this.clock = Objects.requireNonNull(clock, "clock == null");
  }

  @Override
  public void append(java.util.List<JournalEntry> entries, com.uber.m3.tally.Scope metrics) {
    for (JournalEntry entry : entries) {
      JournalActivitiesImpl.appendCounted(journal, entry, metrics);
    }
  }

  @Override
  public void dispatched(DispatchRequest r) {
    Objects.requireNonNull(r, "r == null");
    JournalEntry entry = new JournalEntry(r.executionId(), r.fingerprint(), TRANSITION, r.attempt(),
        Instant.now(clock).truncatedTo(ChronoUnit.MILLIS).toString(),
        Map.of("tool", r.contract().tool(), "channel", r.contract().channel().name().toLowerCase()));
    try {
      journal.append(JournalActivitiesImpl.payload(entry), entry.appendKey());
    } catch (RuntimeException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "dispatch not sent: the dispatched journal entry could not be made durable: "
              + e.getMessage(),
          ErrorTypes.JOURNAL_UNAVAILABLE);
    }
  }
}
