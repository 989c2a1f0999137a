package io.onceport.workflow.execution;

import io.temporal.common.SearchAttributeKey;
import java.util.List;

/**
 * The names a {@code ToolExecution} run publishes to Temporal visibility, and the one failure text
 * clients recognise, for code outside the workflow (front end, CLI, tests) so that it never needs
 * the workflow implementation. The keys must be registered on the namespace before the worker runs.
 */
public final class ExecutionSearchAttributes {
  public static final SearchAttributeKey<String> SA_EXECUTION_ID = SearchAttributeKey.forKeyword("OnceportExecutionId");
  public static final SearchAttributeKey<String> SA_FINGERPRINT = SearchAttributeKey.forKeyword("OnceportFingerprint");
  public static final SearchAttributeKey<String> SA_TOOL = SearchAttributeKey.forKeyword("OnceportTool");
  public static final SearchAttributeKey<String> SA_ACTOR = SearchAttributeKey.forKeyword("OnceportActor");
  public static final SearchAttributeKey<String> SA_STATE = SearchAttributeKey.forKeyword("OnceportState");
  /** Every attribute above: what a namespace must have registered (keyword) before Onceport runs in it. */
  public static final List<String> NAMES = List.of(SA_EXECUTION_ID.getName(), SA_FINGERPRINT.getName(), SA_TOOL.getName(),
      SA_ACTOR.getName(), SA_STATE.getName());

  /**
   * The state a run is published with in its start request (front ends that choose the execution
   * id): the state of a call the ladder lets through, which the first workflow task reaches; a run
   * held by the ladder is relabelled in that same task.
   */
  public static final String STATE_AT_START = "dispatched";

  /** The memo field with the one-line summary the Temporal UI shows. */
  public static final String MEMO_SUMMARY = "summary";

  /**
   * The memo {@code summary} a front end that chooses the execution id publishes in the start
   * request: what was asked ({@code create_release service=catalog version=1}, from the masked
   * arguments). The run rewrites it only when it waits for a person or ends other than completed
   * and delivered, which its {@link #SA_STATE} then says without the memo.
   */
  public static String requestSummary(String tool, String shownArguments) {
    return ExecutionVisibility.requestSummary(tool, shownArguments);
  }

  /**
   * The start request's user-metadata summary, the first line of the call's story in the Temporal
   * UI: what was asked and where it goes ({@code send_notification message=hi → POST
   * http://host/v1/notifications (http, irreversible)}), from the masked arguments.
   */
  public static String startSummary(ExecutionInput input) {
    return CallStory.startSummary(input);
  }

  /** How the attach validator's refusal of a reused intent key begins (failure types of validators are not kept). */
  public static final String INTENT_KEY_MISMATCH_PREFIX = "intent key reused: ";

  private ExecutionSearchAttributes() {}
}
