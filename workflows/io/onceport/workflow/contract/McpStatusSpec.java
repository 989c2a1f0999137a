package io.onceport.workflow.contract;

import java.util.List;
import java.util.Objects;

/**
 * How an {@code mcp} tool of class {@code status_query} learns what happened after an unknown
 * outcome: it calls a read-only upstream tool ({@code tool}) with {@code arguments} (a JSON object
 * template whose string leaves may hold {@code {{execution_id}}} and argument placeholders) and reads
 * the verdict from one field of the answer's {@code structuredContent}.
 *
 * <p>A value in {@code completedWhen} settles the execution as completed, one in {@code failedWhen}
 * as failed (it ran), one in {@code notExecutedWhen} proves it did not run; any other value, a
 * missing field or an {@code isError} answer means "still unknown".
 *
 * @param arguments the arguments template as serialized JSON
 * @param field a dotted path into {@code structuredContent}, e.g. {@code state} or {@code job.state}
 */
public record McpStatusSpec(
    String tool,
    String arguments,
    String field,
    List<String> completedWhen,
    List<String> failedWhen,
    List<String> notExecutedWhen) {
  public McpStatusSpec {
    Objects.requireNonNull(tool, "tool == null");
    Objects.requireNonNull(field, "field == null");
    arguments = arguments == null ? "{}" : arguments;
    completedWhen = List.copyOf(Objects.requireNonNull(completedWhen, "completedWhen == null"));
    failedWhen = failedWhen == null ? List.of() : List.copyOf(failedWhen);
    notExecutedWhen = notExecutedWhen == null ? List.of() : List.copyOf(notExecutedWhen);
    if (completedWhen.isEmpty()) {
      throw new IllegalArgumentException("completedWhen is empty");
    }
  }
}
