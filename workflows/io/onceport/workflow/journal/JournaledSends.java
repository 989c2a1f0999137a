package io.onceport.workflow.journal;

import java.util.List;

/**
 * What the journal (every writer's segment) holds of one execution's sends, as a reset run reads it
 * with a local activity, so the answer is in the run's history and replays the same.
 *
 * @param sends every {@code dispatched} entry of the execution, by attempt: the sends that left
 * @param reset which reset of the execution this run is (1 for the first), from the journal's
 *     {@code reset} entries (the activity wrote this run's)
 * @param runs the run ids the journal names for the execution's sends and resets, oldest first
 */
public record JournaledSends(List<Send> sends, int reset, List<String> runs) {
  public JournaledSends {
    sends = sends == null ? List.of() : List.copyOf(sends);
    runs = runs == null ? List.of() : List.copyOf(runs);
  }

  /**
   * One send the journal proves: its {@code dispatched} entry, and what the journal says came of it.
   *
   * @param runId the workflow run that sent it (null for entries written before sends named their run)
   * @param writer the journal segment it is in ({@code activity/<writer-id>})
   * @param at the {@code dispatched} entry's time
   * @param outcome {@code completed} / {@code failed} (an {@code outcome} entry of that attempt),
   *     {@code unknown} (an {@code outcome_unknown} entry) or null (nothing after the dispatch)
   * @param status the target's HTTP status or exit status, when the journal has it
   */
  public record Send(int attempt, String runId, String writer, String at, String outcome, Integer status,
      String resultReference) {}

  /** The send of {@code attempt}, or null when the journal has none. */
  public Send attempt(int attempt) {
    for (Send s : sends) {
      if (s.attempt() == attempt) {
        return s;
      }
    }
    return null;
  }
}
