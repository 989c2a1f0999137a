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

  McpException(int httpStatus, int code, String message, JsonNode id, JsonNode data) {
    super(message);
    this.httpStatus = httpStatus;
    this.code = code;
    this.id = id;
    this.data = data;
  }

  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;
  /** Implementation-defined transport errors (session missing, session not found). */
  static final int TRANSPORT = -32000;
  static final int SESSION_NOT_FOUND = -32001;
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

  McpException withId(JsonNode newId) {
    return new McpException(httpStatus, code, getMessage(), newId, data);
  }
}
