package io.onceport.workflow.execution;

import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_ACTOR;
import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_EXECUTION_ID;
import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_FINGERPRINT;
import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_STATE;
import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_TOOL;

import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * What an operator sees of an execution in Temporal visibility, derived from the {@link Execution}
 * in this one place: the search attributes ({@link ExecutionSearchAttributes}) and the memo
 * {@code summary}.
 *
 * <p><b>Cost.</b> An upsert is a command in history, so it is written only when its value changed:
 * the identity attributes once, with the first state; {@code OnceportState} when the view label
 * changed; the memo when the execution settles, waits for a person, or closes, and its text changed.
 * Called from the main method only (never from a handler, whose commands could replay in another
 * order), at most once per wait.
 */
final class ExecutionVisibility {
  private String publishedLabel;
  private String publishedMemo;
  private boolean publishedIdentity;

  void publish(Execution execution) {
    String label = execution.record().view();
    if (!label.equals(publishedLabel)) {
      if (!publishedIdentity) {
        ExecutionInput input = execution.input();
        Workflow.upsertTypedSearchAttributes(
            SA_EXECUTION_ID.valueSet(execution.executionId()),
            SA_FINGERPRINT.valueSet(input.fingerprint()),
            SA_TOOL.valueSet(input.tool()),
            SA_ACTOR.valueSet(input.actor()),
            SA_STATE.valueSet(label));
        publishedIdentity = true;
      } else {
        Workflow.upsertTypedSearchAttributes(SA_STATE.valueSet(label));
      }
      publishedLabel = label;
    }
    if (execution.memoDue()) {
      String memo = execution.summary();
      if (!memo.equals(publishedMemo)) {
        Workflow.upsertMemo(Map.of("summary", memo));
        publishedMemo = memo;
      }
    }
  }
}
