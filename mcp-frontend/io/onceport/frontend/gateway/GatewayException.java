package io.onceport.frontend.gateway;

/**
 * A call the gateway refuses before anything is executed. {@link Kind} tells the MCP layer how to
 * answer: an unknown tool and a call too large for the execution layer are JSON-RPC errors
 * (-32602); invalid arguments and an intent-key reuse with different arguments are {@code isError}
 * tool results naming the problem.
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
    TOO_LARGE
  }

  private final Kind kind;

  public GatewayException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public GatewayException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
