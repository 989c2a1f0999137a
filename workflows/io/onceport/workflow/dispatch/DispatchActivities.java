package io.onceport.workflow.dispatch;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The boundary between a deterministic execution and the outside world. Implementations route by
 * the contract's channel (HTTP, SSH).
 *
 * <p>Failure contract: {@code dispatch} throws an {@code ApplicationFailure} of type
 * {@code ErrorTypes.NOT_SENT} when provably nothing reached the target (retryable), of type
 * {@code ErrorTypes.OUTCOME_UNKNOWN} when request bytes may have reached it and no answer was
 * observed (never blindly retried), and returns a {@link DispatchResult} for any answer, success or
 * not. The dispatched journal entry is made durable before the first byte is sent; if it cannot be,
 * the failure is {@code ErrorTypes.JOURNAL_UNAVAILABLE} and nothing is sent.
 */
@ActivityInterface
public interface DispatchActivities {
  @ActivityMethod
  DispatchResult dispatch(DispatchRequest request);

  /** Asks the target (status endpoint, remote marker) what happened to an execution. Read-only. */
  @ActivityMethod
  StatusResult queryStatus(DispatchRequest request);
}
