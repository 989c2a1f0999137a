package io.onceport.activity.journal;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.journal.JournalTransition;
import io.temporal.failure.ApplicationFailure;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes workflow transitions to the activity journal. Idempotent per {@link
 * JournalEntry#appendKey()}. Returns once the entry is <em>written</em>, not once it is forced
 * ({@link Journal#appendAsync}): every transition it records is also in the workflow history, so
 * nothing on a call's path waits for an fsync here. The entry survives a crash of this worker
 * process; the journal's background syncer forces it right away (sharing one fsync with whatever
 * else is pending), and a {@code dispatched} entry written later to the same segment cannot be
 * reported durable before it (a force covers every earlier line). A machine crash can lose entries
 * written after the last force; an fsync failure stops the journal, and the next dispatch through
 * it then fails closed. A failure is an {@code ApplicationFailure} of
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
      appendCounted(journal, entry, activityScope());
    } catch (JournalException e) {
      throw ApplicationFailure.newFailure(e.getMessage(), ErrorTypes.JOURNAL_UNAVAILABLE);
    } catch (IllegalArgumentException e) {
      // a payload the journal cannot hold will not become writable by retrying
      throw ApplicationFailure.newNonRetryableFailure(
          "journal entry rejected: " + e.getMessage(), ErrorTypes.JOURNAL_UNAVAILABLE);
    }
  }

  /** Appends entries in order (one local activity per workflow task); same failure contract as {@link #append}. */
  @Override
  public void appendAll(java.util.List<JournalEntry> entries) {
    Objects.requireNonNull(entries, "entries == null");
    for (JournalEntry entry : entries) {
      append(entry);
    }
  }

  /**
   * Appends one entry and counts its metrics if this was its first append. Shared with the send
   * activity, which journals what it carries and observes ({@link JournalDispatchJournal#append}).
   *
   * @param metrics the activity's metrics scope, or null to count nothing
   */
  public static void appendCounted(Journal journal, JournalEntry entry, com.uber.m3.tally.Scope metrics) {
    // written before return (survives a kill of this process), fsynced by the next group commit:
    // these transitions are in the workflow history too, and the send's dispatched entry, appended
    // after them and waited for, forces every line before it
    Appended appended = journal.appendAsync(payload(entry), entry.appendKey()).appended();
    if (!appended.existing() && metrics != null) {
      count(entry, metrics);
    }
  }

  private static com.uber.m3.tally.Scope activityScope() {
    try {
      return io.temporal.activity.Activity.getExecutionContext().getMetricsScope();
    } catch (IllegalStateException | UnsupportedOperationException notInAnActivity) {
      return null; // appended outside an activity (tests of the journal itself): nothing to count
    }
  }

  /**
   * Execution metrics, counted here because a journal append happens exactly once per transition
   * (appends are idempotent), while workflow code can run again when a workflow task completion is
   * rejected. Prometheus names: {@code onceport_executions_total{tool,state,outcome}},
   * {@code onceport_unknown_outcomes_total{tool}}, {@code onceport_status_query_resolutions_total{tool,verdict}}.
   */
  private static void count(JournalEntry entry, com.uber.m3.tally.Scope metrics) {
    String tool = String.valueOf(entry.detail().getOrDefault("tool", "unknown"));
    String name;
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("tool", tool);
    JournalTransition transition = JournalTransition.fromWireName(entry.transition());
    if (transition == null) {
      return; // a word from before the vocabulary (or a test's): nothing to count
    }
    switch (transition) {
      case OUTCOME -> {
        String outcome = String.valueOf(entry.detail().getOrDefault("outcome", "unknown"));
        name = "onceport_executions";
        tags.put("state", "completed".equals(outcome) ? "completed" : "failed");
        tags.put("outcome", outcome);
      }
      case REJECTED, CANCELLED -> {
        name = "onceport_executions";
        tags.put("state", transition.wireName());
        tags.put("outcome", "not_executed");
      }
      case OUTCOME_UNKNOWN -> name = "onceport_unknown_outcomes";
      case STATUS_QUERY -> {
        String verdict = String.valueOf(entry.detail().getOrDefault("verdict", "unknown"));
        if (verdict.equals("running") || verdict.equals("unknown")) {
          return;
        }
        name = "onceport_status_query_resolutions";
        tags.put("verdict", verdict);
      }
      default -> {
        return;
      }
    }
    try {
      metrics.tagged(tags).counter(name).inc(1);
    } catch (UnsupportedOperationException noMetrics) {
      // a scope that counts nothing
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
