package io.onceport.frontend.read;

import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;

/**
 * How {@link DirectReads} sends one read: this process's HTTP read channel with the credentials it
 * holds. The front end owns the interface and the application wires it ({@code serve}: the
 * worker's vault; a frontend-only process: no vault), so the front end itself never reaches a
 * channel or the vault.
 */
@FunctionalInterface
public interface ReadChannel {
  /**
   * Sends the read once, as a dispatch channel does: throws a Temporal {@code ApplicationFailure}
   * of type {@code NotSent} or {@code OutcomeUnknown} when there was no answer, and of type
   * {@code CredentialUnavailable} when the contract's credential reference cannot be resolved here.
   *
   * @param beforeSend called just before the request leaves
   */
  DispatchResult send(DispatchRequest request, Runnable beforeSend);
}
