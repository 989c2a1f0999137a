package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A request the MCP layer refuses. One exception type for every refusal, mapped in one place
 * ({@link McpServer}) to an HTTP status and a JSON-RPC error body (id null when unknown).
 */
final class McpException extends RuntimeException {
  final int httpStatus;
  final int code;
  final JsonNode id;
  final JsonNode data;
  /** Seconds for a {@code Retry-After} header, or 0 for none. */
  final long retryAfterSeconds;

  McpException(int httpStatus, int code, String message, JsonNode id, JsonNode data) {
    this(httpStatus, code, message, id, data, 0);
  }

  private McpException(int httpStatus, int code, String message, JsonNode id, JsonNode data, long retryAfterSeconds) {
    super(message);
    this.httpStatus = httpStatus;
    this.code = code;
    this.id = id;
    this.data = data;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;
  /** Implementation-defined transport errors (session missing, session not found). */
  static final int TRANSPORT = -32000;
  static final int SESSION_NOT_FOUND = -32001;
  /** An agent is over one of its limits ({@link AgentLimits}): HTTP 429, try again after {@code Retry-After}. */
  static final int BUSY = -32029;
  /** 2026-07-28: HTTP headers disagree with the body, or required headers are missing. */
  static final int HEADER_MISMATCH = -32020;
  /** 2026-07-28: the requested protocol version is not implemented. */
  static final int UNSUPPORTED_VERSION = -32022;

  /** A JSON-RPC error answered with HTTP 200 (the request reached a method). */
  static McpException rpc(int code, String message, JsonNode id) {
    return new McpException(200, code, message, id, null);
  }

  static McpException http(int status, int code, String message, JsonNode id) {
    return new McpException(status, code, message, id, null);
  }

  static McpException http(int status, int code, String message, JsonNode id, JsonNode data) {
    return new McpException(status, code, message, id, data);
  }

  /**
   * HTTP 429 with {@code Retry-After}: the agent is over one of its limits; nothing was started or
   * changed, so the same request may be sent again after that many seconds.
   */
  static McpException busy(String message, JsonNode id, long retryAfterSeconds) {
    return new McpException(429, BUSY, message, id, null, Math.max(1, retryAfterSeconds));
  }

  McpException withId(JsonNode newId) {
    return new McpException(httpStatus, code, getMessage(), newId, data, retryAfterSeconds);
  }
}
