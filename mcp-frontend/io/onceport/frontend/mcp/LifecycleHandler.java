package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.frontend.auth.SessionIds;
import io.onceport.frontend.mcp.McpController.Reply;

/**
 * The lifecycle methods: {@code initialize} and {@code ping} (session-based revisions) and
 * {@code server/discover} (2026-07-28). {@code initialize} issues the signed session and records
 * the agent session's start; both answers tell the agent that a retry attaches instead of acting again.
 */
final class LifecycleHandler {
  private final McpConfig config;
  private final McpSessions sessions;

  LifecycleHandler(McpConfig config, McpSessions sessions) {
    this.config = config;
    this.sessions = sessions;
  }

  /** This server's {@code name}/{@code version}, as {@code initialize} and every 2026-07-28 result carry it. */
  static ObjectNode serverInfo(McpConfig config) {
    return Json.object().put("name", config.serverName()).put("version", config.serverVersion());
  }

  static String instructions() {
    return "Onceport executes each requested action once. If a response is lost, retry the same call: "
        + "it attaches to the first execution instead of acting again. Results carry an execution_id; "
        + "ask " + ToolResults.STATUS_TOOL + " about an uncertain one.";
  }

  Reply initialize(Exchange ex, Transport.Accepts accepts) {
    JsonNode p = ex.params() == null ? Json.object() : ex.params();
    JsonNode requested = p.get("protocolVersion");
    if (requested == null || !requested.isTextual()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: protocolVersion is required", ex.id());
    }
    String version = Protocol.LEGACY.contains(requested.asText()) ? requested.asText() : Protocol.LATEST_LEGACY;
    JsonNode ci = p.path("clientInfo");
    ClientInfo client = ci.path("name").isTextual()
        ? new ClientInfo(ci.get("name").asText(), ci.path("version").isTextual() ? ci.get("version").asText() : null)
        : ClientInfo.NONE;
    // Counted against the agent's session limits (HTTP 429 over them); its session workflow starts
    // with its first call that needs one (ToolsHandler), not here: 500 initializes start nothing durable.
    Session s = sessions.issue(ex.actor(), ex.generation(), version, client, ex.id());
    ObjectNode r = Json.object();
    r.put("protocolVersion", version);
    r.set("capabilities", capabilities(version));
    r.set("serverInfo", serverInfo(config));
    r.put("instructions", instructions());
    ex.ctx().header("Mcp-Session-Id", s.id());
    return Reply.of(ex.answer(r));
  }

  private static ObjectNode capabilities(String version) {
    ObjectNode caps = Json.object();
    caps.putObject("tools").put("listChanged", false).putObject("idempotency"); // SEP-3182: params.idempotencyKey is honoured
    caps.putObject("logging");
    if (Protocol.hasTasks(version)) {
      ObjectNode t = caps.putObject("tasks");
      t.putObject("list");
      t.putObject("cancel");
      t.putObject("requests").putObject("tools").putObject("call");
    }
    return caps;
  }

  Reply ping(Exchange ex, Transport.Accepts accepts) {
    return Reply.of(ex.answer(Json.object()));
  }

  Reply discover(Exchange ex, Transport.Accepts accepts) {
    ObjectNode r = Json.object();
    ArrayNode versions = r.putArray("supportedVersions");
    Protocol.ALL.forEach(versions::add);
    ObjectNode caps = r.putObject("capabilities");
    caps.putObject("tools").putObject("idempotency"); // SEP-3182: params.idempotencyKey is honoured
    caps.putObject("extensions").putObject(Protocol.TASKS_EXTENSION);
    r.put("instructions", instructions());
    r.put("ttlMs", 60_000);
    r.put("cacheScope", "private");
    return Reply.of(ex.answer(r));
  }
}
