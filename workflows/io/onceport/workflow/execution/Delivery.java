package io.onceport.workflow.execution;

/** Whether the agent received the result, as far as the transport can establish it. */
public enum Delivery {
  /** No result has been written to any caller yet. */
  PENDING,
  /** A response carrying the final result was written completely to a caller. */
  DELIVERED,
  /** Writing the final result failed or the caller was gone. */
  NOT_DELIVERED;

  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
