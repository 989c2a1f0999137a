package io.onceport.activity.dispatch;

import io.onceport.activity.vault.Credential;

/** What a channel may ask of the activity it runs in. */
public interface DispatchContext {
  /**
   * Called once, right before the first byte of the action is sent. Makes the dispatched journal
   * entry durable; throws {@code ApplicationFailure(JOURNAL_UNAVAILABLE)} if it cannot, in which
   * case the channel must not send.
   */
  void beforeSend();

  /** Records liveness so a crashed worker is noticed; safe to call often. */
  void heartbeat(String phase);

  /**
   * Resolves a credential reference from the vault at dispatch time. Throws
   * {@code ApplicationFailure(CREDENTIAL_UNAVAILABLE)} (non-retryable) when it cannot. Never log
   * or return the secret.
   */
  Credential credential(String reference);

  /**
   * The W3C {@code traceparent} of the send, for an HTTP channel to send along (never in the
   * fingerprint or the history: it is added at send time), or null when tracing is off.
   */
  default String traceparent() {
    return null;
  }
}
