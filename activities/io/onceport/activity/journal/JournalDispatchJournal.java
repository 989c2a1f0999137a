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
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The dispatch boundary record: appends transition {@code dispatched} (attempt = the request's
 * attempt) durably before the channel sends. Fails closed: if the entry cannot be made durable it
 * throws a non-retryable {@code ApplicationFailure(JOURNAL_UNAVAILABLE)} so the dispatch does not
 * happen.
 *
 * <p><b>Once per (execution, attempt), ever.</b> Before writing, it consults the {@link SendLedger}
 * of the journal's directory (every writer's segment, no window): an execution id and attempt whose
 * {@code dispatched} entry exists were sent before, and since every send runs with {@code
 * maximumAttempts = 1}, only a replayed or reset workflow history asks for them again. That send
 * fails closed with a non-retryable {@code ApplicationFailure(SENT_BEFORE)}: no bytes leave, and the
 * workflow's replay policy decides, as for any send whose outcome it does not know.
 */
public final class JournalDispatchJournal implements DispatchJournal {
  public static final String TRANSITION = JournalTransition.DISPATCHED.wireName();

  private final Journal journal;
  private final SendLedger ledger;
  private final Clock clock;

  /** @param ledger the send ledger of {@code journal}'s directory */
  public JournalDispatchJournal(Journal journal, SendLedger ledger) {
    this(journal, ledger, Clock.systemUTC());
  }

  public JournalDispatchJournal(Journal journal, SendLedger ledger, Clock clock) {
    this.journal = Objects.requireNonNull(journal, "journal == null");
    this.ledger = Objects.requireNonNull(ledger, "ledger == null");
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
    dispatched(r, null);
  }

  @Override
  public void dispatched(DispatchRequest r, String runId) {
    Objects.requireNonNull(r, "r == null");
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("tool", r.contract().tool());
    detail.put("channel", r.contract().channel().name().toLowerCase(Locale.ROOT));
    if (runId != null) {
      detail.put("run_id", runId); // which run of the execution sent it: resets show as sends of several runs
    }
    JournalEntry entry = new JournalEntry(r.executionId(), r.fingerprint(), TRANSITION, r.attempt(),
        Instant.now(clock).truncatedTo(ChronoUnit.MILLIS).toString(), detail);
    String key = entry.appendKey();
    Appended written;
    try {
      // written under the ledger's lock, forced after it: the next claimant reads the line from the page cache
      written = ledger.claim(key, () -> journal.appendAsync(JournalActivitiesImpl.payload(entry), key).appended());
      if (written.existing()) {
        throw new SendLedger.SentBefore(key); // the segment's own window knew it: the same fact
      }
      journal.awaitDurable(written.seq());
    } catch (SendLedger.SentBefore sent) {
      throw ApplicationFailure.newNonRetryableFailure("dispatch not sent: " + sent.getMessage(), ErrorTypes.SENT_BEFORE);
    } catch (RuntimeException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "dispatch not sent: the dispatched journal entry could not be made durable: "
              + e.getMessage(),
          ErrorTypes.JOURNAL_UNAVAILABLE);
    }
  }
}
