package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.onceport.frontend.mcp.McpController.Reply;
import java.util.Map;
import java.util.Optional;

/**
 * Revisions 2025-03-26, 2025-06-18 and 2025-11-25: {@code initialize} negotiates the revision and
 * issues a signed session; every later request names it in {@code Mcp-Session-Id} (and may name
 * its revision in {@code MCP-Protocol-Version}). Only 2025-11-25 has the tasks methods; an unknown
 * method is a JSON-RPC error with HTTP 200.
 */
final class SessionRevision implements Revision {
  private final McpSessions sessions;
  private final NotificationHandler notifications;
  private final MethodTable methods;

  SessionRevision(McpSessions sessions, NotificationHandler notifications, LifecycleHandler lifecycle, ToolsHandler tools,
      LoggingHandler logging, TasksHandler tasks) {
    this.sessions = sessions;
    this.notifications = notifications;
    this.methods = new MethodTable(Map.of(
        "initialize", lifecycle::initialize,
        "ping", lifecycle::ping,
        "tools/list", tools::list,
        "tools/call", tools::call,
        "logging/setLevel", logging::setLevel,
        "tasks/get", withTasks(tasks::get),
        "tasks/result", withTasks(tasks::result),
        "tasks/list", withTasks(tasks::list),
        "tasks/cancel", withTasks(tasks::cancel)),
        ex -> McpException.rpc(McpException.METHOD_NOT_FOUND, "Method not found: " + ex.method(), ex.id()));
  }

  /** The tasks methods exist only in a session that negotiated 2025-11-25. */
  private static MethodHandler withTasks(MethodHandler handler) {
    return (ex, accepts) -> {
      if (!Protocol.hasTasks(ex.protocolVersion())) {
        throw McpException.rpc(McpException.METHOD_NOT_FOUND, "Method not found: " + ex.method()
            + " (tasks need protocol version " + Protocol.V2025_11_25 + ")", ex.id());
      }
      return handler.handle(ex, accepts);
    };
  }

  @Override
  public boolean modern() {
    return false;
  }

  @Override
  public Optional<Exchange> admit(Context ctx, String actor, JsonRpcMessage.Call call, boolean inBatch) {
    if ("initialize".equals(call.method())) {
      if (inBatch) {
        throw McpException.rpc(McpException.INVALID_REQUEST, "Invalid Request: initialize must not be part of a batch", call.id());
      }
      return Optional.of(new Exchange(ctx, actor, null, null, this, call.id(), call.method(), call.params(), ClientInfo.NONE,
          false));
    }
    Session session = sessions.require(ctx, actor, call.id());
    String version = sessions.version(ctx, session, call.id());
    if (call instanceof JsonRpcMessage.Notification n) {
      notifications.receive(actor, session, n.method(), n.params());
      return Optional.empty();
    }
    ClientInfo client = session.client().name() != null ? session.client() : Revision.clientInfoFromMeta(call.meta());
    return Optional.of(new Exchange(ctx, actor, session, version, this, call.id(), call.method(), call.params(), client,
        inBatch));
  }

  @Override
  public Reply dispatch(Exchange ex, Transport.Accepts accepts) {
    return methods.dispatch(ex, accepts);
  }

  @Override
  public JsonNode answer(Exchange ex, ObjectNode result) {
    return Json.response(ex.id(), result);
  }
}
