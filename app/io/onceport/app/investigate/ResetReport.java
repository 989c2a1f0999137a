package io.onceport.app.investigate;

import io.onceport.activity.journal.JournalReader.Record;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The resets of executions and the sends of each run, from activity journal entries alone: a reset
 * run journals {@code reset} (its run id, the original run id, which reset it is), every send's
 * {@code dispatched} entry names its run ({@code detail.run_id}), and a send the journal refused as
 * made before is {@code sent_before}. What {@code investigate} and {@code audit verify} tell an
 * operator, so "one execution, one dispatch" is said only when it is true.
 */
public final class ResetReport {
  private ResetReport() {}

  /**
   * One run of an execution.
   *
   * @param reset 0 for a run no reset made, else which reset it is
   * @param sent attempts whose {@code dispatched} entry names this run
   * @param refused attempts this run asked for and the journal refused (sent before)
   */
  public record Run(String runId, int reset, List<Integer> sent, List<Integer> refused) {}

  /** An execution's runs in journal order and its sends ({@code dispatched} entries) in all. */
  public record Execution(String executionId, List<Run> runs, int dispatches, int resets) {
    /** Sends by runs that a reset made. */
    public int sendsAfterReset() {
      return runs.stream().filter(r -> r.reset() > 0).mapToInt(r -> r.sent().size()).sum();
    }
  }

  /** The executions that were reset, in order of their first entry. */
  public static List<Execution> resets(List<Record> records) {
    Map<String, List<Record>> byExecution = new LinkedHashMap<>();
    for (Record r : records) {
      if (r.executionId() != null) {
        byExecution.computeIfAbsent(r.executionId(), k -> new ArrayList<>()).add(r);
      }
    }
    List<Execution> out = new ArrayList<>();
    for (Map.Entry<String, List<Record>> e : byExecution.entrySet()) {
      Execution x = of(e.getKey(), e.getValue());
      if (x.resets() > 0) {
        out.add(x);
      }
    }
    return out;
  }

  /**
   * What {@code audit verify} prints after the chains, so a journal that verifies also says
   * whether a {@code temporal workflow reset} made any run send again: {@code sends: …}, then one
   * {@code reset: <execution>: …} line per execution a reset ran again.
   */
  public static List<String> summary(List<Record> records) {
    long dispatched = records.stream().filter(r -> "dispatched".equals(r.transition())).count();
    long executions = records.stream().filter(r -> "dispatched".equals(r.transition())).map(Record::executionId).distinct().count();
    List<Execution> reset = resets(records);
    int again = reset.stream().mapToInt(Execution::sendsAfterReset).sum();
    List<String> lines = new ArrayList<>();
    lines.add("sends: " + dispatched + " dispatched " + (dispatched == 1 ? "entry" : "entries") + " for " + executions
        + (executions == 1 ? " execution" : " executions") + "; " + reset.size() + (reset.size() == 1 ? " execution" : " executions")
        + " reset (" + again + (again == 1 ? " send" : " sends") + " by reset runs, each under its execution's key)");
    for (Execution x : reset) {
      lines.add("reset: " + x.executionId() + ": " + describe(x));
    }
    return lines;
  }

  /** One execution's runs and sends, from its entries. */
  public static Execution of(String executionId, List<Record> entries) {
    Map<String, Run> runs = new LinkedHashMap<>();
    int dispatches = 0;
    int resets = 0;
    for (Record r : entries) {
      if (!Objects.equals(executionId, r.executionId())) {
        continue;
      }
      String runId = text(r, "run_id");
      switch (r.transition()) {
        case "reset" -> {
          resets = Math.max(resets, r.attempt());
          String original = text(r, "original_run_id");
          if (original != null) {
            run(runs, original, 0);
          }
          run(runs, runId, r.attempt());
        }
        case "dispatched" -> {
          dispatches++;
          run(runs, runId, -1).sent().add(r.attempt());
        }
        case "sent_before" -> run(runs, runId, -1).refused().add(r.attempt());
        default -> {
          // other transitions say nothing about runs
        }
      }
    }
    return new Execution(executionId, List.copyOf(runs.values()), dispatches, resets);
  }

  /** The run's entry, made when first seen; {@code reset} -1 leaves what is known (0 until a reset entry names it). */
  private static Run run(Map<String, Run> runs, String runId, int reset) {
    String key = runId == null ? "(a run not named)" : runId;
    Run known = runs.get(key);
    if (known == null || (reset >= 0 && known.reset() != reset)) {
      Run updated = new Run(key, reset >= 0 ? reset : known == null ? 0 : known.reset(),
          known == null ? new ArrayList<>() : known.sent(), known == null ? new ArrayList<>() : known.refused());
      runs.put(key, updated);
      return updated;
    }
    return known;
  }

  /**
   * "reset 2 times; run R1 sent attempt 1; run R2 (reset 1) sent nothing (attempt 1 refused: sent
   * before); run R3 (reset 2) sent attempt 2".
   */
  public static String describe(Execution x) {
    StringBuilder b = new StringBuilder("reset ").append(x.resets()).append(x.resets() == 1 ? " time" : " times");
    for (Run r : x.runs()) {
      b.append("; run ").append(r.runId()).append(r.reset() > 0 ? " (reset " + r.reset() + ")" : " (before any reset)");
      b.append(r.sent().isEmpty() ? " sent nothing" : " sent attempt" + (r.sent().size() > 1 ? "s " : " ") + join(r.sent()));
      if (!r.refused().isEmpty()) {
        b.append(" (attempt").append(r.refused().size() > 1 ? "s " : " ").append(join(r.refused()))
            .append(" refused: sent before)");
      }
    }
    return b.toString();
  }

  private static String join(List<Integer> attempts) {
    return String.join(", ", attempts.stream().map(String::valueOf).toList());
  }

  private static String text(Record r, String field) {
    Object v = r.detail().get(field);
    return v == null ? null : String.valueOf(v);
  }
}
