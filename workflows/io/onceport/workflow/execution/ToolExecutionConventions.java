package io.onceport.workflow.execution;

import io.temporal.common.SearchAttributeKey;

/**
 * What clients of the ToolExecution workflow read besides its interface: the search attributes it
 * sets and how its refusal of a reused intent key begins. They live here, not in
 * {@link ToolExecutionWorkflowImpl}, so the front end and the CLI never depend on the
 * implementation (an ArchUnit rule holds them to that), and the implementation can change shape
 * without its clients noticing.
 */
public final class ToolExecutionConventions {
  /** The execution id ({@code act_…}), set when the execution starts. */
  public static final SearchAttributeKey<String> SA_EXECUTION_ID = SearchAttributeKey.forKeyword("OnceportExecutionId");
  /** The request fingerprint (never the arguments, never a secret). */
  public static final SearchAttributeKey<String> SA_FINGERPRINT = SearchAttributeKey.forKeyword("OnceportFingerprint");
  public static final SearchAttributeKey<String> SA_TOOL = SearchAttributeKey.forKeyword("OnceportTool");
  public static final SearchAttributeKey<String> SA_ACTOR = SearchAttributeKey.forKeyword("OnceportActor");
  /** The operator's view of the execution ({@link ExecutionRecord#view()}), upserted when it changes. */
  public static final SearchAttributeKey<String> SA_STATE = SearchAttributeKey.forKeyword("OnceportState");

  /**
   * How the attach validator's refusal of a reused intent key begins: an update validator's failure
   * type does not reach the caller, so the front end recognises the refusal by this prefix.
   */
  public static final String INTENT_KEY_MISMATCH_PREFIX = "intent key reused: ";

  private ToolExecutionConventions() {}
}
