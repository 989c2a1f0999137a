package io.onceport.workflow.contract;

import java.time.Duration;

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

  /**
   * How long a settled execution of this class keeps answering identical calls after its result was
   * delivered ({@code replay.dedupe_after_delivery} when the contract does not say): long enough for
   * a client's retry after a lost answer — including one whose first attempt reached a front end that
   * then died — to meet the execution, and longer the worse a second act would be. A deliberate
   * repeat within it sends a new intent key.
   */
  public Duration defaultDedupeAfterDelivery() {
    return switch (this) {
      case READ_ONLY -> Duration.ofSeconds(30);
      case IDEMPOTENCY_KEY -> Duration.ofMinutes(2);
      case STATUS_QUERY -> Duration.ofMinutes(5);
      case IRREVERSIBLE -> Duration.ofMinutes(10);
    };
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
