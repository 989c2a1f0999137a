package io.onceport.shared.temporal.connect;

/**
 * A connection to Temporal that could not be made, as one line that says what to do. A
 * {@link #retryable()} failure is Temporal not answering (yet): roles keep retrying it with
 * backoff. Any other is a setting to fix — a CA, a client certificate, TLS on or off, an API key —
 * and retrying would only repeat it.
 */
public final class TemporalConnectException extends IllegalStateException {
  private final boolean retryable;

  TemporalConnectException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  public boolean retryable() {
    return retryable;
  }
}
