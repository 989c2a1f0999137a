package io.onceport.activity.mcp;

import java.io.IOException;
import java.util.Objects;

/**
 * A request to an upstream MCP server that got no answer, classified by what crossed the wire.
 * {@link Stage#NOT_SENT}: not one byte of the request was written (the server could not start,
 * the connection was refused, initialize failed). {@link Stage#SESSION_GONE}: the request was
 * written with a session id the server no longer knows and it answered HTTP 404, which the MCP
 * transport specification reserves for exactly that case: the server did not process it.
 * {@link Stage#UNKNOWN}: bytes may have reached the server and no answer was observed (a broken
 * stream, a timeout, a stdio server that died mid-call).
 */
public final class McpFailure extends IOException {
  public enum Stage {
    NOT_SENT,
    SESSION_GONE,
    UNKNOWN
  }

  private final Stage stage;

  public McpFailure(Stage stage, String message, Throwable cause) {
    super(message, cause);
    this.stage = Objects.requireNonNull(stage, "stage == null");
  }

  public McpFailure(Stage stage, String message) {
    this(stage, message, null);
  }

  public Stage stage() {
    return stage;
  }
}
