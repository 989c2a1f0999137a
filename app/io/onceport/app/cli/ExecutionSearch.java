package io.onceport.app.cli;

import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.frontend.temporal.ExecutionLocation;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator's search for executions ({@code executions list --query}, {@code investigate} by
 * fingerprint): a Temporal visibility query over {@code ToolExecution} runs. The front end never
 * asks one (it finds executions by id and lists an actor's, {@link ExecutionDirectory}), so this is
 * not in it.
 */
final class ExecutionSearch {
  private ExecutionSearch() {}

  /**
   * Executions, newest first: those {@code query} (a visibility query, or null for all) matches,
   * only {@code actor}'s when not null.
   *
   * @throws CliException when there is a query and the engine answers none (the embedded engine)
   */
  static List<ExecutionLocation> list(TemporalConnection connection, ExecutionDirectory directory, String query, String actor,
      int limit) {
    if (query == null) {
      return directory.list(actor, limit);
    }
    if (!directory.hasVisibility()) {
      throw new CliException("the embedded engine has no visibility queries; --query needs a Temporal cluster");
    }
    String q = "WorkflowType = '" + ToolExecutionWorkflow.TYPE + "' AND (" + query + ")"
        + (actor == null ? "" : " AND " + ExecutionSearchAttributes.SA_ACTOR.getName() + " = '" + actor.replace("'", "") + "'");
    List<ExecutionLocation> out = new ArrayList<>();
    connection.client().listExecutions(q).limit(limit).forEach(m -> out.add(ExecutionDirectory.location(m)));
    return out;
  }
}
