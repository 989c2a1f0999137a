package io.onceport.workflow.dispatch;

import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The boundary between a deterministic execution and the outside world. Implementations route by
 * the contract's channel (HTTP, SSH). They report facts and never decide: whether a request is
 * sent again is the workflow's {@code ReplayPolicy}'s decision, and these activities run with
 * {@code maximumAttempts = 1}.
 *
 * <p>Failure contract: {@code send} and {@code dispatch} throw an {@code ApplicationFailure} of type
 * {@code ErrorTypes.NOT_SENT} when provably nothing reached the target, of type
 * {@code ErrorTypes.OUTCOME_UNKNOWN} when request bytes may have reached it and no answer was
 * observed, and return the answer for any answer, success or not. The dispatched journal entry
 * is made durable before the first byte is sent; if it cannot be, the failure is
 * {@code ErrorTypes.JOURNAL_UNAVAILABLE} and nothing is sent.
 */
@ActivityInterface
public interface DispatchActivities {
  /** The send of workflows before the replay policy; kept so their histories replay. */
  @ActivityMethod
  DispatchResult dispatch(DispatchRequest request);

  /**
   * One send: appends the request's carried journal entries and {@code dispatched} (durable)
   * before the first byte, sends, and appends {@code outcome} after the answer when the request
   * names a result reference.
   */
  @ActivityMethod
  Sent send(DispatchRequest request);

  /** Asks the target (status endpoint, remote marker) what happened to an execution. Read-only. */
  @ActivityMethod
  StatusResult queryStatus(DispatchRequest request);

  /**
   * One check of whether an execution's effect took place ({@code replay.verify}, for a contract
   * with {@code attach_window: until_verified}). Read-only; returns the verdict with what the
   * contract's pointers held, never the answer or a secret. A failure is "not yet known" for the
   * workflow, which checks again on its schedule.
   */
  @ActivityMethod
  VerifyAnswer verifyEffect(VerifyRequest request);
}
