package io.onceport.activity.journal;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.journal.JournalTransition;
import io.onceport.workflow.journal.JournaledSends;
import io.onceport.workflow.journal.ResetRun;
import java.util.ArrayList;
import java.util.List;
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
   * Reads every writer's segment for the execution's {@code dispatched}, {@code outcome} and {@code
   * outcome_unknown} entries and its earlier {@code reset} entries, and journals this run's reset
   * once ({@code <execution>/reset/<n>}, n counting the execution's resets). Runs only in a reset
   * run, once, as a local activity; a failure is retried by its options, then recorded as a journal
   * gap (the send path's ledger does not depend on it).
   */
  @Override
  public JournaledSends resetRun(ResetRun run) {
    Objects.requireNonNull(run, "run == null");
    Execution seen = read(run);
    List<JournaledSends.Send> sends = new ArrayList<>();
    for (JournalReader.Record d : seen.dispatched.values()) {
      JournalReader.Record o = seen.outcomes.get(d.attempt());
      String outcome = o != null ? text(o, "outcome") : seen.unknown.contains(d.attempt()) ? "unknown" : null;
      Object status = o == null ? null : o.detail().getOrDefault("target_status", o.detail().get("exit_status"));
      sends.add(new JournaledSends.Send(d.attempt(), text(d, "run_id"), d.journal(), d.at(), outcome,
          status instanceof Number n ? n.intValue() : null, o == null ? null : text(o, "result_reference")));
    }
    int number = seen.mine != null ? seen.mine : seen.resets + 1;
    if (seen.mine == null) {
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("tool", run.tool());
      detail.put("run_id", run.runId());
      detail.put("original_run_id", run.originalRunId());
      detail.put("sends_before", sends.size());
      append(new JournalEntry(run.executionId(), run.fingerprint(), JournalTransition.RESET.wireName(), number, run.at(), detail));
    }
    seen.runs.add(run.runId());
    return new JournaledSends(sends, number, new ArrayList<>(seen.runs));
  }

  /** What every segment holds of one execution's sends and resets. */
  private static final class Execution {
    final Map<Integer, JournalReader.Record> dispatched = new java.util.TreeMap<>();
    final Map<Integer, JournalReader.Record> outcomes = new java.util.HashMap<>();
    final java.util.Set<Integer> unknown = new java.util.HashSet<>();
    final java.util.LinkedHashSet<String> runs = new java.util.LinkedHashSet<>();
    int resets;
    /** This run's own reset entry (a retried activity), if it wrote one. */
    Integer mine;
  }

  private Execution read(ResetRun run) {
    List<JournalReader.Record> entries;
    try {
      entries = JournalReader.ofExecution(journal.segment().getParent(), run.executionId());
    } catch (java.io.IOException e) {
      throw ApplicationFailure.newFailure("journal unreadable for the reset of " + run.executionId() + ": " + e.getMessage(),
          ErrorTypes.JOURNAL_UNAVAILABLE);
    }
    Execution seen = new Execution();
    for (JournalReader.Record r : entries) {
      String runId = text(r, "run_id");
      switch (r.transition()) {
        case "dispatched" -> seen.dispatched.putIfAbsent(r.attempt(), r);
        case "outcome" -> seen.outcomes.put(r.attempt(), r);
        case "outcome_unknown" -> seen.unknown.add(r.attempt());
        case "reset" -> {
          seen.resets = Math.max(seen.resets, r.attempt());
          if (run.runId().equals(runId)) {
            seen.mine = r.attempt();
          }
          if (text(r, "original_run_id") != null) {
            seen.runs.add(text(r, "original_run_id"));
          }
        }
        default -> {
          continue; // other transitions say nothing about sends or runs
        }
      }
      if (runId != null) {
        seen.runs.add(runId);
      }
    }
    return seen;
  }

  private static String text(JournalReader.Record r, String field) {
    Object v = r.detail().get(field);
    return v == null ? null : String.valueOf(v);
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
