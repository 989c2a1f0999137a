package io.onceport.workflow.contract;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a {@code status_query} tool learns what happened after an unknown outcome. The URL may use
 * {@code {{execution_id}}} and argument placeholders.
 *
 * @param settle the least time between a send's end and a status answer that may cause a re-send
 *     ({@code replay.status.settle}): a target slower than the request timeout keeps working after
 *     the gateway gave up, and a "not executed" answer before it has finished proves nothing. Null
 *     means the default, the HTTP request timeout.
 */
public record StatusSpec(
    String method, String url, List<Integer> completedWhen, List<Integer> notExecutedWhen, Duration settle) {
  public StatusSpec {
    Objects.requireNonNull(method, "method == null");
    Objects.requireNonNull(url, "url == null");
    completedWhen = List.copyOf(Objects.requireNonNull(completedWhen, "completedWhen == null"));
    notExecutedWhen = List.copyOf(Objects.requireNonNull(notExecutedWhen, "notExecutedWhen == null"));
    if (settle != null && settle.isNegative()) {
      throw new IllegalArgumentException("Invalid settle: " + settle);
    }
  }

  /** A status facility whose settle time is the default (the HTTP timeout). */
  public StatusSpec(String method, String url, List<Integer> completedWhen, List<Integer> notExecutedWhen) {
    this(method, url, completedWhen, notExecutedWhen, null);
  }
}
