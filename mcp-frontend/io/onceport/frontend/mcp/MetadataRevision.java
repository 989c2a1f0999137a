package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.onceport.frontend.mcp.McpController.Reply;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * Revision 2026-07-28: no sessions; every request carries its revision and client in
 * {@code _meta} and mirrors the revision, the method and (for {@code tools/call}) the tool name in
 * the {@code MCP-Protocol-Version}, {@code Mcp-Method} and {@code Mcp-Name} headers, so that a
 * proxy can route on headers; a header that disagrees with the body is HTTP 400 {@code -32020}.
 * Results carry {@code resultType} and the server's identity; an unknown method is HTTP 404.
 */
final class MetadataRevision implements Revision {
  private final McpConfig config;
  private final NotificationHandler notifications;
  private final MethodTable methods;

  MetadataRevision(McpConfig config, NotificationHandler notifications, LifecycleHandler lifecycle, ToolsHandler tools,
      TasksHandler tasks) {
    this.config = config;
    this.notifications = notifications;
    this.methods = new MethodTable(Map.of(
        "server/discover", lifecycle::discover,
        "tools/list", tools::list,
        "tools/call", tools::call,
        "tasks/get", tasks::modernGet,
        "tasks/update", tasks::update,
        "tasks/cancel", tasks::modernCancel),
        ex -> McpException.http(404, McpException.METHOD_NOT_FOUND, "Method not found: " + ex.method(), ex.id()));
  }

  /** A call is 2026-07-28 when its body or header names that revision, or it asks {@code server/discover}; never in a batch. */
  static boolean claims(Context ctx, JsonRpcMessage.Call call, boolean inBatch) {
    return !inBatch && (metaVersion(call) != null || Protocol.looksModern(ctx.header("MCP-Protocol-Version"))
        || "server/discover".equals(call.method()));
  }

  private static String metaVersion(JsonRpcMessage.Call call) {
    JsonNode v = call.meta().path(Protocol.META_VERSION);
    return v.isTextual() ? v.asText() : null;
  }

  @Override
  public boolean modern() {
    return true;
  }

  @Override
  public Optional<Exchange> admit(Context ctx, String actor, JsonRpcMessage.Call call, boolean inBatch) {
    String version = checkHeaders(ctx, call);
    if (call instanceof JsonRpcMessage.Notification n) {
      notifications.receive(actor, null, n.method(), n.params());
      return Optional.empty();
    }
    return Optional.of(new Exchange(ctx, actor, null, version, this, call.id(), call.method(), call.params(),
        Revision.clientInfoFromMeta(call.meta()), inBatch));
  }

  /** The revision named in body and header, after checking that the headers mirror the body. */
  private static String checkHeaders(Context ctx, JsonRpcMessage.Call call) {
    JsonNode id = call.id();
    String headerVersion = ctx.header("MCP-Protocol-Version");
    String metaVersion = metaVersion(call);
    if (headerVersion == null) {
      throw McpException.http(400, McpException.HEADER_MISMATCH,
          "Header mismatch: the MCP-Protocol-Version header is required", id);
    }
    if (metaVersion == null) {
      throw McpException.http(400, McpException.HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version header value '"
          + headerVersion + "' does not match body value (missing _meta." + Protocol.META_VERSION + ")", id);
    }
    if (!headerVersion.equals(metaVersion)) {
      throw McpException.http(400, McpException.HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version header value '"
          + headerVersion + "' does not match body value '" + metaVersion + "'", id);
    }
    if (!Protocol.MODERN.contains(metaVersion)) {
      ObjectNode data = Json.object();
      ArrayNode supported = data.putArray("supported");
      Protocol.ALL.forEach(supported::add);
      data.put("requested", metaVersion);
      throw McpException.http(400, McpException.UNSUPPORTED_VERSION, "Unsupported protocol version", id, data);
    }
    checkMirrored(ctx, "Mcp-Method", false, call.method(), id);
    if ("tools/call".equals(call.method())) {
      String bodyName = call.params() == null ? null : call.params().path("name").asText(null);
      checkMirrored(ctx, "Mcp-Name", true, bodyName, id);
    }
    return metaVersion;
  }

  /**
   * A required header whose value must equal the body's.
   *
   * @param encoded the header may carry the value as {@code =?base64?...?=} (tool names need not be ASCII)
   */
  private static void checkMirrored(Context ctx, String header, boolean encoded, String bodyValue, JsonNode id) {
    String h = ctx.header(header);
    if (h == null) {
      throw McpException.http(400, McpException.HEADER_MISMATCH, "Header mismatch: the " + header + " header is required", id);
    }
    String value = encoded ? decodeHeader(h) : h;
    if (!value.equals(bodyValue)) {
      throw McpException.http(400, McpException.HEADER_MISMATCH,
          "Header mismatch: " + header + " header value '" + value + "' does not match body value '" + bodyValue + "'", id);
    }
  }

  private static String decodeHeader(String v) {
    if (v.startsWith("=?base64?") && v.endsWith("?=") && v.length() >= 11) {
      try {
        return new String(Base64.getDecoder().decode(v.substring(9, v.length() - 2)), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return v;
      }
    }
    return v;
  }

  @Override
  public Reply dispatch(Exchange ex, Transport.Accepts accepts) {
    return methods.dispatch(ex, accepts);
  }

  /** Adds {@code resultType: complete} (unless the result says otherwise) and the server's identity in {@code _meta}. */
  @Override
  public JsonNode answer(Exchange ex, ObjectNode result) {
    if (!result.has("resultType")) {
      result.put("resultType", "complete");
    }
    ObjectNode meta = result.has("_meta") ? (ObjectNode) result.get("_meta") : result.putObject("_meta");
    meta.set(Protocol.META_SERVER_INFO, LifecycleHandler.serverInfo(config));
    return Json.response(ex.id(), result);
  }
}
