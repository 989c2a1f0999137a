package io.onceport.testing;

import io.onceport.shared.temporal.TemporalConnection;
import io.temporal.api.filter.v1.WorkflowExecutionFilter;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import java.util.ArrayList;
import java.util.List;

/** The runs of one workflow id, open and closed (the engine's list APIs, which the embedded engine answers too). */
public final class WorkflowRuns {
  private WorkflowRuns() {}

  /** The run ids of {@code workflowId}, open ones first. */
  public static List<String> of(TemporalConnection connection, String workflowId) {
    var service = connection.stubs().blockingStub();
    var filter = WorkflowExecutionFilter.newBuilder().setWorkflowId(workflowId).build();
    List<String> runs = new ArrayList<>();
    service.listOpenWorkflowExecutions(ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace(connection.namespace())
        .setExecutionFilter(filter).setMaximumPageSize(100).build()).getExecutionsList()
        .forEach(i -> runs.add(i.getExecution().getRunId()));
    service.listClosedWorkflowExecutions(ListClosedWorkflowExecutionsRequest.newBuilder().setNamespace(connection.namespace())
        .setExecutionFilter(filter).setMaximumPageSize(100).build()).getExecutionsList()
        .forEach(i -> runs.add(i.getExecution().getRunId()));
    return runs;
  }
}
