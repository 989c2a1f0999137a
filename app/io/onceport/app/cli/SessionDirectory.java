package io.onceport.app.cli;

import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.workflow.session.AgentSessionInput;
import io.onceport.workflow.session.SessionStarted;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowOptions;
import java.time.Instant;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.workflow.session.SessionWorkflowIds;
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
 * its actor and id ({@link SessionWorkflowIds}, keyed with the deployment's fingerprint key; the
 * actor is read from the id, {@link io.onceport.workflow.ids.AgentSessionId}), so one is found
 * without visibility; for sessions started before it tries the ids they had then, and without the
 * key (an operator machine that has only payload keys) it looks through the session runs for the
 * session id. Listing uses visibility where the server has it and scans open and closed
 * runs on the embedded engine.
 */
public final class SessionDirectory {
  private final TemporalConnection connection;
  private final SessionWorkflowIds ids;

  /** Without the fingerprint key: unkeyed ids, then a scan of session runs. */
  public SessionDirectory(TemporalConnection connection) {
    this(connection, SessionWorkflowIds.unkeyed());
  }

  public SessionDirectory(TemporalConnection connection, SessionWorkflowIds ids) {
    this.connection = connection;
    this.ids = java.util.Objects.requireNonNull(ids, "ids == null");
  }

  /** The latest run's record: the live query while open, the result once closed. */
  public Optional<SessionRecord> find(String sessionId) {
    return latest(sessionId).map(this::record);
  }

  /** The workflow id of the session's runs, if it has any. */
  public Optional<String> workflowIdOf(String sessionId) {
    return latest(sessionId).map(info -> info.getExecution().getWorkflowId());
  }

  private Optional<WorkflowExecutionInfo> latest(String sessionId) {
    for (String workflowId : ids.candidates(sessionId)) {
      try {
        return Optional.of(describe(WorkflowExecution.newBuilder().setWorkflowId(workflowId).build()));
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
          throw e;
        }
      }
    }
    // No key (or another deployment's) to derive the id with: look for a run whose record names this session.
    for (WorkflowExecutionInfo info : sessionRuns(1_000)) {
      SessionRecord r = record(info);
      if (r.sessionId().equals(sessionId)) {
        return Optional.of(info);
      }
    }
    return Optional.empty();
  }

  /** Sessions, newest first (each session id once: its latest run). */
  public List<SessionRecord> list(int limit) {
    List<SessionRecord> out = new ArrayList<>();
    for (WorkflowExecutionInfo info : sessionRuns(limit)) {
      out.add(record(info));
    }
    return out;
  }

  /** The latest run of each session workflow, newest first. */
  private List<WorkflowExecutionInfo> sessionRuns(int limit) {
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
    List<WorkflowExecutionInfo> out = new ArrayList<>();
    for (WorkflowExecutionInfo info : infos) {
      if (out.size() >= limit) {
        break;
      }
      // The embedded engine does not apply the type filter.
      if (info.getType().getName().equals(AgentSessionWorkflow.TYPE) && seen.add(info.getExecution().getWorkflowId())) {
        out.add(info);
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

  /**
   * A typed stub on the grant {@code grantId} of {@code actor} ({@code sessions authorize --agent}),
   * its workflow started (signal-with-start) on {@code taskQueue} when no run of it is open.
   */
  public AgentSessionWorkflow grant(String grantId, String actor, String taskQueue, String clientName) {
    String workflowId = ids.workflowId(actor, grantId);
    AgentSessionWorkflow stub = connection.client().newWorkflowStub(AgentSessionWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId).setTaskQueue(taskQueue)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING).build());
    BatchRequest batch = connection.client().newSignalWithStartRequest();
    batch.add(stub::run, new AgentSessionInput(grantId, actor));
    batch.add(stub::started, new SessionStarted(grantId, actor, clientName, null, null, null, Instant.now().toString()));
    connection.client().signalWithStart(batch);
    return connection.client().newWorkflowStub(AgentSessionWorkflow.class, workflowId);
  }

  /** A typed stub on the session's current run, for authorize/deny (the derived id when the session has no run yet). */
  public AgentSessionWorkflow stub(String sessionId) {
    String workflowId = workflowIdOf(sessionId).or(() -> ids.workflowId(sessionId)).orElseThrow(() ->
        new IllegalArgumentException("no session " + sessionId + ": it has never had a run, and the id does not name an actor"));
    return connection.client().newWorkflowStub(AgentSessionWorkflow.class, workflowId);
  }
}
