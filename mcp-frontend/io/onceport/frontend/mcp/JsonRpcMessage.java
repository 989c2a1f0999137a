package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One JSON-RPC 2.0 message, classified before any MCP rule applies — the typed messages the
 * official SDKs build their transports on. A {@link Request} is answered, a {@link Notification}
 * never is, and a {@link Response} answers nothing this server asked (it is accepted and dropped).
 * {@link #parse} refuses anything else with HTTP 400 and {@code -32600}, or {@code -32602} for
 * params that are not an object, so no later layer sees a half-valid message.
 */
sealed interface JsonRpcMessage permits JsonRpcMessage.Call, JsonRpcMessage.Response {

  /** A message that names a method: a request or a notification. */
  sealed interface Call extends JsonRpcMessage permits Request, Notification {
    String method();

    /** An object, or null when the message has no params. */
    JsonNode params();

    /** The request id (a string or an integer), or null for a notification. */
    JsonNode id();

    default JsonNode meta() {
      return params() == null ? Json.MAPPER.missingNode() : params().path("_meta");
    }
  }

  record Request(JsonNode id, String method, JsonNode params) implements Call {
    public Request {
      Objects.requireNonNull(id, "id == null");
      Objects.requireNonNull(method, "method == null");
    }
  }

  record Notification(String method, JsonNode params) implements Call {
    public Notification {
      Objects.requireNonNull(method, "method == null");
    }

    @Override
    public JsonNode id() {
      return null;
    }
  }

  /** A result or error sent to this server; it never asks the client anything, so it answers nothing. */
  record Response(JsonNode id) implements JsonRpcMessage {}

  /** Classifies one message of a POST body (one element of a batch). */
  static JsonRpcMessage parse(JsonNode msg) {
    if (!msg.isObject() || !"2.0".equals(msg.path("jsonrpc").asText(null))) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message",
          msg.isObject() ? msg.get("id") : null);
    }
    JsonNode id = msg.get("id");
    JsonNode methodNode = msg.get("method");
    if (methodNode == null) {
      if (id != null && (msg.has("result") || msg.has("error"))) {
        return new Response(id);
      }
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: no method", id);
    }
    if (!methodNode.isTextual()) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: method must be a string", id);
    }
    if (id != null && !(id.isTextual() || id.isIntegralNumber())) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: id must be a string or an integer", null);
    }
    JsonNode params = msg.get("params");
    if (params != null && !params.isObject()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: params must be an object", id);
    }
    String method = methodNode.asText();
    return id == null ? new Notification(method, params) : new Request(id, method, params);
  }
}
