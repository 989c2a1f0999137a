package io.onceport.workflow.session;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One agent session (rung 4 of the authorization ladder): who connected, with which client, from
 * where, and whether an operator authorized it. Executions that wait for the session's
 * authorization register here; an operator's {@link #authorize} or {@link #deny} is forwarded to
 * each of them as the {@code sessionAuthorization} signal, with the operator's signed statement.
 * The workflow id is a keyed derivation of the session id ({@code SessionWorkflowIds} in
 * activities), so every front end and worker reaches the same session by signal-with-start without
 * a lookup while an agent cannot compute it from its own session id; {@link #workflowId(String)} is
 * the unkeyed form used before.
 *
 * <p>{@link #authorize} and {@link #deny} act only on a statement signed by a registered operator,
 * bound to this session and the decision, within its validity and not applied before: the main
 * method verifies it (a local activity) and records and journals a refusal with what was presented.
 *
 * <p>Authorization is evidence of who may act, never deduplication: nothing here decides whether an
 * execution already happened. Every event is appended to the sessions journal by an activity, once.
 */
@WorkflowInterface
public interface AgentSessionWorkflow {
  String TYPE = "AgentSession";
  String WORKFLOW_ID_PREFIX = "onceport-session-";

  /** The unkeyed workflow id of sessions started before ids were keyed (and of tests). */
  static String workflowId(String sessionId) {
    return WORKFLOW_ID_PREFIX + sessionId;
  }

  @WorkflowMethod(name = TYPE)
  SessionRecord run(AgentSessionInput input);

  /** The current session record. */
  @QueryMethod(name = "session")
  SessionRecord session();

  /** The MCP layer saw the session begin (initialize, or the first call of a run). Repeats are ignored. */
  @SignalMethod(name = "started")
  void started(SessionStarted started);

  /** The session ended (MCP session deleted or expired). */
  @SignalMethod(name = "ended")
  void ended(SessionEnded ended);

  /**
   * An execution (by workflow id) waits for this session's authorization. If the session is already
   * decided, the decision is sent to it at once, so a decision racing the registration is not lost.
   */
  @SignalMethod(name = "registerWaiting")
  void registerWaiting(String executionWorkflowId);

  /**
   * As {@link #registerWaiting}, naming the execution's actor: an execution of another actor is
   * refused (journalled {@code registration_refused}) and never gets this session's decision. The
   * ladder sends this one; {@code registerWaiting} stays for histories and older workers.
   */
  @SignalMethod(name = "executionWaiting")
  void executionWaiting(WaitingExecution waiting);

  /**
   * An operator authorizes the session; returns once waiting executions were told. Fails with
   * {@code DecisionRefused} when the statement does not verify (nothing changes).
   */
  @UpdateMethod(name = "authorize")
  SessionRecord authorize(SessionDecision decision);

  @UpdateValidatorMethod(updateName = "authorize")
  void validateAuthorize(SessionDecision decision);

  /** An operator refuses the session; waiting executions are rejected ({@code session_denied}). Verified like {@link #authorize}. */
  @UpdateMethod(name = "deny")
  SessionRecord deny(SessionDecision decision);

  @UpdateValidatorMethod(updateName = "deny")
  void validateDeny(SessionDecision decision);
}
