package io.onceport.workflow.contract;

/**
 * What happens when the caller loses the response after dispatch: the replay contract of a tool.
 *
 * <p>The class decides how often the dispatch may be sent and what an unknown outcome turns into.
 */
public enum ReplayClass {
  /** No side effect: retried normally, an unknown outcome is simply retried. */
  READ_ONLY("read_only"),
  /** The target deduplicates by the idempotency header (= execution id): retried with the same key. */
  IDEMPOTENCY_KEY("idempotency_key"),
  /** Sent at most once; after an unknown outcome a status query decides what happened. */
  STATUS_QUERY("status_query"),
  /** Sent at most once; after an unknown outcome an operator must resolve it. */
  IRREVERSIBLE("irreversible");

  private final String wireName;

  ReplayClass(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in contract files and records. */
  public String wireName() {
    return wireName;
  }

  /** True when the dispatch may be sent again after bytes may have reached the target. */
  public boolean resendsAfterUnknown() {
    return this == READ_ONLY || this == IDEMPOTENCY_KEY;
  }

  public static ReplayClass fromWireName(String name) {
    for (ReplayClass c : values()) {
      if (c.wireName.equals(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "unknown replay class '" + name + "' (expected read_only, idempotency_key, status_query or irreversible)");
  }
}
