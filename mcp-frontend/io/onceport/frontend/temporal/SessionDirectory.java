package io.onceport.frontend.temporal;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.workflow.session.AgentSessionWorkflow;
import io.onceport.workflow.session.SessionRecord;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowStub;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Finds agent sessions ({@link AgentSessionWorkflow} runs). A session's workflow id is derived from
 * its id, so one is found without visibility; listing uses visibility where the server has it and
 * scans open and closed runs on the embedded engine.
 */
public final class SessionDirectory {
  private final TemporalConnection connection;

  public SessionDirectory(TemporalConnection connection) {
    this.connection = connection;
  }

  /** The latest run's record: the live query while open, the result once closed. */
  public Optional<SessionRecord> find(String sessionId) {
    WorkflowExecution latest = WorkflowExecution.newBuilder().setWorkflowId(AgentSessionWorkflow.workflowId(sessionId)).build();
    WorkflowExecutionInfo info;
    try {
      info = describe(latest);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
    return Optional.of(record(info));
  }

  /** Sessions, newest first (each session id once: its latest run). */
  public List<SessionRecord> list(int limit) {
    List<WorkflowExecutionInfo> infos = new ArrayList<>();
    var service = connection.stubs().blockingStub();
    WorkflowTypeFilter type = WorkflowTypeFilter.newBuilder().setName(AgentSessionWorkflow.TYPE).build();
    infos.addAll(service.listOpenWorkflowExecutions(ListOpenWorkflowExecutionsRequest.newBuilder()
        .setNamespace(connection.namespace()).setTypeFilter(type).setMaximumPageSize(1_000).build()).getExecutionsList());
    infos.addAll(service.listClosedWorkflowExecutions(ListClosedWorkflowExecutionsRequest.newBuilder()
        .setNamespace(connection.namespace()).setTypeFilter(type).setMaximumPageSize(1_000).build()).getExecutionsList());
    infos.sort(Comparator.comparing((WorkflowExecutionInfo i) -> i.getStartTime().getSeconds())
        .thenComparing(i -> i.getStartTime().getNanos()).reversed());
    Set<String> seen = new LinkedHashSet<>();
    List<SessionRecord> out = new ArrayList<>();
    for (WorkflowExecutionInfo info : infos) {
      if (out.size() >= limit) {
        break;
      }
      // The embedded engine does not apply the type filter.
      if (info.getType().getName().equals(AgentSessionWorkflow.TYPE) && seen.add(info.getExecution().getWorkflowId())) {
        out.add(record(info));
      }
    }
    return out;
  }

  private SessionRecord record(WorkflowExecutionInfo info) {
    WorkflowExecution execution = info.getExecution();
    WorkflowStub stub = connection.client().newUntypedWorkflowStub(
        execution.getWorkflowId(), Optional.of(execution.getRunId()), Optional.empty());
    if (info.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) {
      try {
        return stub.getResult(10, TimeUnit.SECONDS, SessionRecord.class);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException("timed out reading the result of " + execution.getWorkflowId(), e);
      }
    }
    return stub.query("session", SessionRecord.class);
  }

  private WorkflowExecutionInfo describe(WorkflowExecution execution) {
    return connection.stubs().blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
        .setNamespace(connection.namespace()).setExecution(execution).build()).getWorkflowExecutionInfo();
  }

  /** A typed stub on the session's current run, for authorize/deny. */
  public AgentSessionWorkflow stub(String sessionId) {
    return connection.client().newWorkflowStub(AgentSessionWorkflow.class, AgentSessionWorkflow.workflowId(sessionId));
  }
}
