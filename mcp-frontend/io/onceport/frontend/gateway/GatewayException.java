package io.onceport.frontend.gateway;

/**
 * A call the gateway refuses before anything is executed, or cannot take right now. {@link Kind}
 * tells the MCP layer how to answer: an unknown tool and a call too large for the execution layer
 * are JSON-RPC errors (-32602); invalid arguments and an intent-key reuse with different arguments
 * are {@code isError} tool results naming the problem; {@link Kind#BUSY} is an honest "busy, retry"
 * answer naming the execution when one is known (the engine turned the call away; nothing new was
 * started for it).
 */
public final class GatewayException extends RuntimeException {
  public enum Kind {
    UNKNOWN_TOOL,
    INVALID_ARGUMENTS,
    INTENT_KEY_MISMATCH,
    NOT_FOUND,
    INVALID_STATE,
    UNAVAILABLE,
    /** What the call would hand the execution layer exceeds its size budget; nothing was started. */
    TOO_LARGE,
    /** The engine refused to take the call for now (admission or rate limits); retry the same call. */
    BUSY
  }

  private final Kind kind;
  private final String executionId;

  public GatewayException(Kind kind, String message) {
    this(kind, message, null, null);
  }

  public GatewayException(Kind kind, String message, Throwable cause) {
    this(kind, message, null, cause);
  }

  /** @param executionId the execution the call belongs to, when known (for {@link Kind#BUSY}), or null */
  public GatewayException(Kind kind, String message, String executionId, Throwable cause) {
    super(message, cause);
    this.kind = kind;
    this.executionId = executionId;
  }

  public Kind kind() {
    return kind;
  }

  /** The execution this call belongs to, or null when none is known. */
  public String executionId() {
    return executionId;
  }
}
