package io.onceport.workflow.execution;

/** What is known about the effect at the target. */
public enum Outcome {
  /** Not dispatched yet, or dispatched and no answer so far. */
  PENDING,
  /** The target accepted and performed the action. */
  COMPLETED,
  /** The target refused or failed the action, or it was never sent. */
  FAILED,
  /** Bytes may have reached the target and no answer was observed. */
  UNKNOWN,
  /** Nothing was executed (rejected, cancelled, or a status query proved it did not run). */
  NOT_EXECUTED;

  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
