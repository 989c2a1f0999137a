package io.onceport.workflow.contract;

import java.util.List;
import java.util.Objects;

/**
 * How a {@code status_query} tool learns what happened after an unknown outcome. The URL may use
 * {@code {{execution_id}}} and argument placeholders.
 */
public record StatusSpec(
    String method, String url, List<Integer> completedWhen, List<Integer> notExecutedWhen) {
  public StatusSpec {
    Objects.requireNonNull(method, "method == null");
    Objects.requireNonNull(url, "url == null");
    completedWhen = List.copyOf(Objects.requireNonNull(completedWhen, "completedWhen == null"));
    notExecutedWhen = List.copyOf(Objects.requireNonNull(notExecutedWhen, "notExecutedWhen == null"));
  }
}
