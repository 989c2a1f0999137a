package io.onceport.frontend.temporal;

import io.onceport.workflow.session.SessionWorkflowIds;
import io.onceport.frontend.auth.SessionRegistry;
import io.onceport.frontend.auth.SessionStart;
import io.onceport.workflow.session.AgentSessionInput;
import io.onceport.workflow.session.AgentSessionWorkflow;
import io.onceport.workflow.session.SessionEnded;
import io.onceport.workflow.session.SessionStarted;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import java.time.Instant;
import java.util.Objects;

/** {@link SessionRegistry} on the session workflows: signal-with-start {@code started}, signal {@code ended}. */
public final class TemporalSessionRegistry implements SessionRegistry {
  private final WorkflowClient client;
  private final String taskQueue;
  private final SessionWorkflowIds ids;

  public TemporalSessionRegistry(WorkflowClient client, String taskQueue, SessionWorkflowIds ids) {
    this.client = Objects.requireNonNull(client, "client == null");
    this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue == null");
    this.ids = Objects.requireNonNull(ids, "ids == null");
  }

  @Override
  public void started(SessionStart s) {
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(ids.workflowId(s.actor(), s.sessionId()))
        .setTaskQueue(taskQueue)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .build());
    BatchRequest batch = client.newSignalWithStartRequest();
    batch.add(stub::run, new AgentSessionInput(s.sessionId(), s.actor()));
    batch.add(stub::started, new SessionStarted(s.sessionId(), s.actor(), s.clientName(), s.clientVersion(),
        s.protocolVersion(), s.remoteAddress(), s.at().toString()));
    client.signalWithStart(batch);
  }

  @Override
  public void ended(String actor, String sessionId, String reason) {
    end(actor, sessionId, new SessionEnded(reason, Instant.now().toString()));
  }

  @Override
  public void credentialRemoved(String actor, String sessionId, String reason) {
    end(actor, sessionId, new SessionEnded(reason, Instant.now().toString(), true));
  }

  private void end(String actor, String sessionId, SessionEnded ended) {
    try {
      client.newWorkflowStub(AgentSessionWorkflow.class, ids.workflowId(actor, sessionId)).ended(ended);
    } catch (WorkflowNotFoundException e) {
      // Never started here, or already closed: nothing to end.
    }
  }
}
