package io.onceport.app.runtime;

import io.onceport.shared.temporal.TemporalConnection;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Tells executions waiting for an operator to re-check their gate now ({@code recheckAuthorization}
 * signal), e.g. when {@code VaultLockWatcher} sees the vault locked: "locking the vault rejects
 * pending approvals" without waiting for the workflow's periodic re-check. Harmless to an execution
 * that is not waiting (it re-checks once when it next waits).
 */
public final class AuthorizationRechecks {
  private AuthorizationRechecks() {}

  /** Signals every waiting execution (every open one on the embedded engine); returns how many. */
  public static int signalWaiting(TemporalConnection connection, String reason) {
    WorkflowClient client = connection.client();
    int signalled = 0;
    for (WorkflowExecution run : waiting(connection)) {
      try {
        client.newWorkflowStub(ToolExecutionWorkflow.class, run.getWorkflowId(), Optional.of(run.getRunId()))
            .recheckAuthorization(reason);
        signalled++;
      } catch (WorkflowNotFoundException e) {
        // Closed meanwhile.
      }
    }
    return signalled;
  }

  private static List<WorkflowExecution> waiting(TemporalConnection connection) {
    List<WorkflowExecution> out = new ArrayList<>();
    String query = "WorkflowType = '" + ToolExecutionWorkflow.TYPE + "' AND ExecutionStatus = 'Running' AND "
        + ExecutionSearchAttributes.SA_STATE.getName() + " IN ('" + ExecutionState.AWAITING_APPROVAL.wireName() + "', '"
        + ExecutionState.AWAITING_SESSION_AUTHORIZATION.wireName() + "')";
    try {
      connection.client().listExecutions(query).forEach(m -> out.add(m.getExecution()));
      return out;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
    }
    // The embedded engine has no visibility queries (and ignores the type filter): every open execution.
    WorkflowTypeFilter type = WorkflowTypeFilter.newBuilder().setName(ToolExecutionWorkflow.TYPE).build();
    for (WorkflowExecutionInfo info : connection.stubs().blockingStub().listOpenWorkflowExecutions(
        ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace(connection.namespace()).setTypeFilter(type)
            .setMaximumPageSize(10_000).build()).getExecutionsList()) {
      if (info.getType().getName().equals(ToolExecutionWorkflow.TYPE)) {
        out.add(info.getExecution());
      }
    }
    return out;
  }
}
