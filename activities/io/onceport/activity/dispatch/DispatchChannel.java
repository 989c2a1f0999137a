package io.onceport.activity.dispatch;

import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;

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
}
