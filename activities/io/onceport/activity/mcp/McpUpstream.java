package io.onceport.activity.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A minimal MCP client for one upstream server, written for dispatch rather than convenience: it
 * never re-sends a request on its own, it tells exactly whether a request was written ({@link
 * McpFailure.Stage}), and it runs a caller's hook right before the first byte of a request leaves.
 * One instance is shared by every dispatch to that server; it is thread-safe.
 *
 * <p>Why not the official Java MCP SDK: its client transports retry and reconnect internally, do not
 * say whether a failed request was written, and its typed {@code CallToolRequest} cannot carry the
 * proposed {@code idempotencyKey} params field. A dispatch needs all three under its control.
 */
public interface McpUpstream extends AutoCloseable {
  /** The protocol revision asked for in {@code initialize}. */
  String PROTOCOL_VERSION = "2025-11-25";
  /** Revisions accepted from a server's {@code initialize} answer. */
  List<String> KNOWN_VERSIONS = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");

  /**
   * The current session, initializing one first if there is none (or the server restarted).
   * Nothing of a tool call has been sent when this fails, so its failures are always {@code NOT_SENT}.
   *
   * @param headers extra HTTP headers (authorization); ignored by stdio upstreams
   */
  McpSession session(Map<String, String> headers, long timeoutMillis) throws McpFailure;

  /**
   * Sends one JSON-RPC request on {@code session} and waits for its answer.
   *
   * @param beforeWrite runs once, right before the first byte of the request is written; if it
   *     throws, nothing is written and its exception propagates unchanged
   * @param notifications receives each notification the server sends while the request is open
   *     (progress, log messages)
   * @return the JSON-RPC response message ({@code result} or {@code error}), or for an HTTP answer
   *     that is not a JSON-RPC message an {@link Answer} with the status and body
   */
  Answer request(McpSession session, Map<String, String> headers, String method, ObjectNode params,
      Runnable beforeWrite, Consumer<JsonNode> notifications, long timeoutMillis) throws McpFailure;

  /** Forgets {@code session} so the next {@link #session} initializes a new one. */
  void invalidate(McpSession session);

  /** Where the server is, for messages: its URL or {@code stdio:} and the argv. */
  String describe();

  @Override
  void close();

  /**
   * What came back: a JSON-RPC response message, or (Streamable HTTP) an HTTP status that carried
   * none, with its body; {@code sessionId} is the {@code Mcp-Session-Id} an {@code initialize}
   * answer assigned.
   */
  record Answer(JsonNode message, int httpStatus, String httpBody, String sessionId) {
    public Answer(JsonNode message, int httpStatus, String httpBody) {
      this(message, httpStatus, httpBody, null);
    }

    public boolean isRpc() {
      return message != null;
    }
  }

  /** Every tool of the server, following {@code nextCursor}. A read: nothing here is an action. */
  default List<JsonNode> listTools(McpSession session, Map<String, String> headers, long timeoutMillis) throws McpFailure {
    List<JsonNode> tools = new ArrayList<>();
    String cursor = null;
    for (int page = 0; page < 100; page++) {
      ObjectNode params = JSON.createObjectNode();
      if (cursor != null) {
        params.put("cursor", cursor);
      }
      Answer a = request(session, headers, "tools/list", params, () -> {}, n -> {}, timeoutMillis);
      if (!a.isRpc()) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, describe() + ": tools/list answered HTTP " + a.httpStatus());
      }
      if (a.message().has("error")) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, describe() + ": tools/list failed: " + a.message().get("error"));
      }
      JsonNode result = a.message().path("result");
      JsonNode list = result.path("tools");
      if (list instanceof ArrayNode arr) {
        arr.forEach(tools::add);
      }
      cursor = result.path("nextCursor").isTextual() ? result.get("nextCursor").asText() : null;
      if (cursor == null || cursor.isEmpty()) {
        return tools;
      }
    }
    throw new McpFailure(McpFailure.Stage.UNKNOWN, describe() + ": tools/list did not end after 100 pages");
  }

  ObjectMapper JSON = new ObjectMapper();

  /**
   * The largest message read from an upstream (a JSON answer, an SSE event, a stdio line), 16 MiB:
   * four times Temporal's 4 MB payload limit, which the result must fit into anyway (so nothing a
   * call could use is lost), and small enough that a worker with many calls in flight holds it per
   * call. Reads stop at it before buffering more; a larger message is an unknown outcome.
   */
  int MESSAGE_CAP = 16 * 1024 * 1024;
}
