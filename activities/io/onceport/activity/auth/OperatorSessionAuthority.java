package io.onceport.activity.auth;

import io.onceport.workflow.session.SessionWorkflowIds;
import io.onceport.workflow.ids.AgentSessionId;
import io.onceport.workflow.session.AgentSessionInput;
import io.onceport.workflow.session.AgentSessionWorkflow;
import io.onceport.workflow.session.SessionRecord;
import io.onceport.workflow.session.WaitingExecution;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import java.time.Instant;
import java.util.Objects;

/**
 * Policy {@code --session-authorization operator}: a session is authorized when its session
 * workflow ({@link AgentSessionWorkflow}, whose id is derived from the actor and the session id)
 * records an operator's authorization for the same actor and the session has not ended. A session the workflow does not know, that ended (the client
 * closed it, or it was idle for a day), or that belongs to another actor, is not authorized.
 *
 * <p>When the ladder makes an execution wait, {@link #awaitAuthorization} signal-with-starts the
 * session workflow with {@code registerWaiting}: the session exists from then on (visible to {@code
 * onceport sessions list}), and the operator's decision is forwarded to the execution. Both calls are
 * safe to repeat (the activity calling them may be retried).
 */
public final class OperatorSessionAuthority implements SessionAuthority {
  private final WorkflowClient client;
  private final String taskQueue;
  private final SessionWorkflowIds ids;

  /** With the unkeyed workflow ids of {@link SessionWorkflowIds#unkeyed()} (tests). */
  public OperatorSessionAuthority(WorkflowClient client, String taskQueue) {
    this(client, taskQueue, SessionWorkflowIds.unkeyed());
  }

  /**
   * @param taskQueue the task queue the workers serving {@link AgentSessionWorkflow} poll
   * @param ids how session ids map to workflow ids (keyed in a deployment: {@link SessionWorkflowIds#keyed})
   */
  public OperatorSessionAuthority(WorkflowClient client, String taskQueue, SessionWorkflowIds ids) {
    this.client = Objects.requireNonNull(client, "client == null");
    this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue == null");
    this.ids = Objects.requireNonNull(ids, "ids == null");
  }

  /**
   * The session's own decision counts first (a denial of this session stands even under a grant);
   * an undecided session is authorized while its actor — with the session's credential generation —
   * holds an unexpired, unrevoked grant ({@code sessions authorize --agent ACTOR --for P7D}).
   */
  @Override
  public boolean isAuthorized(String sessionId, String actor) {
    SessionRecord record = record(sessionId, actor);
    if (record != null && record.authorization() != null && !record.isAuthorized() && record.endedAt() == null) {
      return false; // denied
    }
    if (record != null && record.isAuthorized() && record.actor().equals(actor)) {
      return true;
    }
    return granted(sessionKey(sessionId, actor), actor);
  }

  private boolean granted(String sessionId, String actor) {
    AgentSessionId session = AgentSessionId.parse(sessionId).orElse(null);
    if (session == null || session.kind() == AgentSessionId.Kind.GRANT || !session.actor().equals(actor)) {
      return false;
    }
    SessionRecord grant = record(session.grantOfActor().id(), actor);
    return grant != null && grant.actor().equals(actor) && grant.isAuthorizedAt(Instant.now());
  }

  @Override
  public java.util.Optional<Denial> denial(String sessionId, String actor) {
    SessionRecord record = record(sessionId, actor);
    if (record == null || record.endedAt() != null || !record.actor().equals(actor) || record.authorization() == null
        || !"denied".equals(record.authorization().decision())) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new Denial(record.authorization().by(), record.authorization().reason()));
  }

  private SessionRecord record(String sessionId, String actor) {
    try {
      return client.newWorkflowStub(AgentSessionWorkflow.class, ids.workflowId(actor, sessionKey(sessionId, actor))).session();
    } catch (WorkflowNotFoundException e) {
      return null;
    }
  }

  @Override
  public void awaitAuthorization(String sessionId, String actor, String executionWorkflowId) {
    String id = sessionKey(sessionId, actor);
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(ids.workflowId(actor, id))
        .setTaskQueue(taskQueue)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .build());
    BatchRequest batch = client.newSignalWithStartRequest();
    batch.add(stub::run, new AgentSessionInput(id, actor));
    batch.add(stub::executionWaiting, new WaitingExecution(executionWorkflowId, actor));
    client.signalWithStart(batch);
  }

  /** A call without a session id is the actor's own session ({@link AgentSessionId#actor}). */
  static String sessionKey(String sessionId, String actor) {
    return sessionId == null || sessionId.isBlank() ? AgentSessionId.actor(actor, null).id() : sessionId;
  }

  @Override
  public String toString() {
    return "SessionAuthority[operator, " + taskQueue + "]";
  }
}
