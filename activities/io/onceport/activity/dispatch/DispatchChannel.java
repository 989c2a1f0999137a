package io.onceport.activity.dispatch;

import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyRequest;
import io.onceport.workflow.ErrorTypes;
import io.temporal.failure.ApplicationFailure;

/**
 * One channel (HTTP, SSH) behind {@code DispatchActivities}. Same failure contract: throw
 * {@code ApplicationFailure} of type {@code ErrorTypes.NOT_SENT} when provably nothing reached the
 * target, {@code ErrorTypes.OUTCOME_UNKNOWN} when bytes may have reached it without an observed
 * answer; return a result for any answer.
 *
 * <p>Implementations must call {@link DispatchContext#beforeSend()} immediately before the first
 * byte of the action goes out (after connecting and authenticating): that is where the dispatched
 * journal entry is made durable, and if it throws nothing may be sent.
 */
public interface DispatchChannel {
  DispatchResult dispatch(DispatchRequest request, DispatchContext context);

  StatusResult queryStatus(DispatchRequest request, DispatchContext context);

  /**
   * One verification check of an execution kept {@code until_verified} ({@code replay.verify}): a
   * read, so any failure may simply be retried by the next check. Returns the verdict with what the
   * pointers held, never the answer or a secret. A channel without verification refuses.
   */
  default VerifyAnswer verify(VerifyRequest request, DispatchContext context) {
    throw ApplicationFailure.newNonRetryableFailure("channel " + request.contract().channel().name().toLowerCase(java.util.Locale.ROOT)
        + " has no verification (tool " + request.contract().tool() + ")", ErrorTypes.INVALID_REQUEST);
  }
}
