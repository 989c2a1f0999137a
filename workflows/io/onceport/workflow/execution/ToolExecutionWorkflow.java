package io.onceport.workflow.execution;

import java.time.Duration;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One execution of one tool action. The workflow id is derived from the intent (fingerprint, or the
 * client's intent key), and every arriving call is an {@link #attach} update sent with
 * update-with-start and {@code USE_EXISTING}: a duplicate start lands here instead of creating a
 * second execution. The run stays open while a retry may still attach — unresolved, or finished but
 * not delivered, within the contract's attach window; delivered, for its late-arrival tail ({@code
 * replay.dedupe_after_delivery}) — then refuses new attaches ({@code RunClosing}) and closes once
 * the repeated attempts of the attaches it took can no longer come ({@link #ATTACH_RETRY_GRACE}).
 */
@WorkflowInterface
public interface ToolExecutionWorkflow {
  String TYPE = "ToolExecution";

  /**
   * How long a run stays open after it accepted an attach. A front end sends the same
   * update-with-start again (same request id, same update id) after a failure whose effect is
   * unknown, and never later than its attach budget (20 s) after the call arrived; so within this
   * grace a repeated attempt of an attach that landed finds its run and is answered by the update
   * id, never by a second run.
   */
  Duration ATTACH_RETRY_GRACE = Duration.ofSeconds(30);

  @WorkflowMethod(name = TYPE)
  ExecutionRecord run(ExecutionInput input);

  /** The current record. */
  @QueryMethod(name = "record")
  ExecutionRecord record();

  /**
   * Records a call as evidence and waits up to {@code waitMillis} for a settled outcome. Never
   * dispatches a second time: a retry sees the first execution's state.
   */
  @UpdateMethod(name = "attach")
  ExecutionRecord attach(AttachRequest request);

  @UpdateValidatorMethod(updateName = "attach")
  void validateAttach(AttachRequest request);

  /** Waits up to {@code waitMillis} for a record newer than {@code afterVersion}; records nothing. */
  @UpdateMethod(name = "awaitChange")
  ExecutionRecord awaitChange(long afterVersion, long waitMillis);

  @SignalMethod(name = "reportDelivery")
  void reportDelivery(DeliveryReport report);

  /**
   * Delivery reports for several calls at once: a front end that coalesced many callers of one
   * intent onto one attach reports their deliveries in one signal instead of one each.
   */
  @SignalMethod(name = "reportDeliveries")
  void reportDeliveries(java.util.List<DeliveryReport> reports);

  /**
   * Evidence of calls a front end coalesced onto an attach it already made for the same intent
   * (one attach per intent per front end; the other callers waited on it). Recorded like attached
   * calls; never dispatches and never waits.
   */
  @SignalMethod(name = "recordCalls")
  void recordCalls(java.util.List<AttachRequest> calls);

  @UpdateMethod(name = "resolve")
  ExecutionRecord resolve(Resolution resolution);

  @UpdateValidatorMethod(updateName = "resolve")
  void validateResolve(Resolution resolution);

  /**
   * An operator approves or denies an execution in {@code awaiting_approval} ({@code onceport
   * approve|deny}, or the Temporal UI with {@code {"executionId":..,"fingerprint":..,"approved":true,
   * "reason":..,"by":..}}). The validator refuses a decision naming another execution id or
   * fingerprint, one for an execution not awaiting approval, and one after the approval expired.
   * Returns once the execution left {@code awaiting_approval}.
   */
  /**
   * An operator's signed verdict on the effect of an execution kept {@code until_verified} ({@code
   * onceport executions verify act_… --verified|--not-applied --reason …}): taken while its checks
   * are pending or after they gave up. Verified starts the verified window; not applied is a fact for
   * the replay policy. Returns once the verdict was acted on (or refused: the update fails).
   */
  @UpdateMethod(name = "verify")
  ExecutionRecord verify(VerificationDecision decision);

  @UpdateValidatorMethod(updateName = "verify")
  void validateVerify(VerificationDecision decision);

  @UpdateMethod(name = "decideApproval")
  ExecutionRecord decideApproval(ApprovalDecision decision);

  @UpdateValidatorMethod(updateName = "decideApproval")
  void validateDecideApproval(ApprovalDecision decision);

  @UpdateMethod(name = "cancel")
  ExecutionRecord cancel(CancelRequest request);

  /**
   * The operator's decision on the agent session this execution waits for, sent by the session
   * workflow. The first decision for this execution's session counts; others are ignored.
   */
  @SignalMethod(name = "sessionAuthorization")
  void sessionAuthorization(SessionAuthorization decision);

  /**
   * The authorization gate changed (vault locked): a waiting execution re-checks it now instead of
   * at its next periodic re-check, and is rejected if the gate closed.
   */
  @SignalMethod(name = "recheckAuthorization")
  void recheckAuthorization(String reason);
}
