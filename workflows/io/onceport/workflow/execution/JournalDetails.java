package io.onceport.workflow.execution;

import io.onceport.workflow.dispatch.DispatchResult;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The detail of the journal entries {@link Execution} queues whose detail is more than a pair or
 * two: pure functions of the values they are given (no state, no clock), so the state object keeps
 * only its transitions. The keys are the journal's format; changing one changes what readers of
 * existing journals see.
 */
final class JournalDetails {
  private JournalDetails() {}

  /** The {@code accepted} entry: what was asked, by whom, of which target, under which replay class. */
  static Map<String, Object> accepted(ExecutionInput input) {
    return Map.of(
        "tool", input.tool(), "actor", input.actor(), "target", input.target(),
        "replay_class", input.contract().replayClass().wireName(), "intent_scope", input.intentScope(),
        "arguments", input.shownArguments());
  }

  /** The {@code outcome} entry of a settled execution: the outcome, and what the target answered when known. */
  static Map<String, Object> outcome(Outcome outcome, DispatchResult result, String resultReference) {
    Map<String, Object> detail = new LinkedHashMap<>(Map.of("outcome", outcome.wireName()));
    putIfPresent(detail, "target_status", result == null ? null : result.status());
    putIfPresent(detail, "exit_status", result == null ? null : result.exitStatus());
    putIfPresent(detail, "result_reference", resultReference);
    return detail;
  }

  /** The {@code review_resolved} entry: the operator's decision on an unknown outcome, by whom and why. */
  static Map<String, Object> reviewResolved(ExecutionRecord.Review review) {
    return Map.of("decision", review.decision(), "by", review.by(), "reason", review.reason());
  }

  private static void putIfPresent(Map<String, Object> map, String key, Object value) {
    if (value != null) {
      map.put(key, value);
    }
  }
}
