package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.ExecutionRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The {@code /mcp} endpoint: POST (JSON-RPC), GET (stream resumption), DELETE (end session). */
final class McpController {
  private static final Set<String> LOG_LEVELS =
      Set.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");
  private final McpConfig config;
  private final ExecutionGateway gateway;
  private final Transport transport;
  private final SessionTokens sessions;
  private final ResponseWriter writer;
  private final SseStreams sse;
  /** Requests in flight on this process, for notifications/cancelled and the delivery grace. */
  private final InFlightRequests inFlight = new InFlightRequests();
  private final ScheduledExecutorService graceTimer;
  /** How often a waiting answer looks for a cancellation of its request. */
  static final Duration CANCEL_CHECK = Duration.ofMillis(250);

  McpController(McpConfig config, ExecutionGateway gateway, Transport transport) {
    this.config = config;
    this.gateway = gateway;
    this.transport = transport;
    this.sessions = new SessionTokens(config.sessionKey(), config.sessionTtl().toSeconds(), config.sessionRevocations());
    this.graceTimer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "onceport-delivery-grace");
      t.setDaemon(true);
      return t;
    });
    this.writer = new ResponseWriter(gateway, config.clock(), config.deliveryGrace(), graceTimer, inFlight);
    this.sse = new SseStreams(config, gateway, writer, inFlight);
  }

  /** Decides the deliveries still in their grace now, then stops the timer. */
  void close() {
    graceTimer.shutdown();
    try {
      graceTimer.awaitTermination(config.deliveryGrace().toMillis() + 1000, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** What handling one message produced. */
  record Reply(JsonNode body, List<ResponseWriter.Pending> deliveries, boolean streamed) {
    static Reply of(JsonNode body) {
      return new Reply(body, List.of(), false);
    }

    static final Reply NONE = new Reply(null, List.of(), false);
    static final Reply STREAMED = new Reply(null, List.of(), true);
  }

  // ---- POST -------------------------------------------------------------------------------

  void post(Context ctx) {
    transport.checkOrigin(ctx);
    String actor = transport.authenticate(ctx);
    Transport.Accepts accepts = Transport.accepts(ctx);
    if (!accepts.json() && !accepts.sse()) {
      throw McpException.http(406, McpException.TRANSPORT,
          "Not Acceptable: the client must accept application/json or text/event-stream", null);
    }
    Transport.checkContentType(ctx);
    JsonNode msg = Json.parseRequest(ctx.bodyAsBytes());
    if (msg.isArray()) {
      postBatch(ctx, actor, (ArrayNode) msg);
      return;
    }
    Exchange ex = exchange(ctx, actor, msg, false);
    Reply reply = ex == null ? Reply.NONE : handle(ex, accepts);
    finish(ctx, reply);
  }

  private void finish(Context ctx, Reply reply) {
    if (reply.streamed()) {
      return;
    }
    if (reply.body() == null) {
      ctx.status(202);
      return;
    }
    writer.writeJson(ctx, 200, Json.bytes(reply.body()), reply.deliveries());
  }

  private void postBatch(Context ctx, String actor, ArrayNode batch) {
    String sid = ctx.header("Mcp-Session-Id");
    if (sid == null || Protocol.looksModern(ctx.header("MCP-Protocol-Version"))) {
      String v = sid == null ? "without a session" : ctx.header("MCP-Protocol-Version");
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: batches are not supported in "
          + (sid == null ? "requests " + v : "protocol version " + v) + "; send one JSON-RPC message per POST", null);
    }
    Session session = requireSession(ctx, actor, null);
    String version = legacyVersion(ctx, session, null);
    if (!Protocol.allowsBatch(version)) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: batches are not supported in "
          + "protocol version " + version + "; send one JSON-RPC message per POST", null);
    }
    if (batch.isEmpty()) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: empty batch", null);
    }
    ArrayNode out = Json.MAPPER.createArrayNode();
    List<ResponseWriter.Pending> deliveries = new ArrayList<>();
    Transport.Accepts jsonOnly = new Transport.Accepts(true, false, 1, 0, false);
    for (JsonNode m : batch) {
      try {
        Exchange ex = exchange(ctx, actor, m, true);
        if (ex == null) {
          continue;
        }
        if ("initialize".equals(ex.method())) {
          throw McpException.rpc(McpException.INVALID_REQUEST, "Invalid Request: initialize must not be part of a batch", ex.id());
        }
        Reply r = handle(ex, jsonOnly);
        if (r.body() != null) {
          out.add(r.body());
          deliveries.addAll(r.deliveries());
        }
      } catch (McpException e) {
        if (e.id != null || m.has("id")) {
          out.add(Json.error(e.id != null ? e.id : m.get("id"), e.code, e.getMessage(), e.data));
        }
      }
    }
    if (out.isEmpty()) {
      ctx.status(202);
      return;
    }
    writer.writeJson(ctx, 200, Json.bytes(out), deliveries);
  }

  /**
   * Classifies one message and runs the transport rules of its revision; null for responses and
   * notifications that need no answer.
   */
  private Exchange exchange(Context ctx, String actor, JsonNode msg, boolean inBatch) {
    if (!msg.isObject() || !"2.0".equals(msg.path("jsonrpc").asText(null))) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message",
          msg.isObject() ? msg.get("id") : null);
    }
    JsonNode id = msg.get("id");
    JsonNode methodNode = msg.get("method");
    if (methodNode == null) {
      if (id != null && (msg.has("result") || msg.has("error"))) {
        return null; // a response to nothing we asked: accepted, 202
      }
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: no method", id);
    }
    if (!methodNode.isTextual()) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: method must be a string", id);
    }
    if (id != null && !(id.isTextual() || id.isIntegralNumber())) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: id must be a string or an integer", null);
    }
    String method = methodNode.asText();
    JsonNode params = msg.get("params");
    if (params != null && !params.isObject()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: params must be an object", id);
    }
    Transport.checkIntentKey(ctx, method, params, id);
    String headerVersion = ctx.header("MCP-Protocol-Version");
    JsonNode meta = params == null ? Json.MAPPER.missingNode() : params.path("_meta");
    String metaVersion = meta.path(Protocol.META_VERSION).isTextual() ? meta.get(Protocol.META_VERSION).asText() : null;
    boolean modern = !inBatch && (metaVersion != null || Protocol.looksModern(headerVersion)
        || "server/discover".equals(method));
    if (modern) {
      String v = checkModern(ctx, id, method, params, headerVersion, metaVersion);
      return new Exchange(ctx, actor, null, v, true, id, method, params, clientInfoFromMeta(meta), inBatch);
    }
    if ("initialize".equals(method)) {
      return new Exchange(ctx, actor, null, null, false, id, method, params, null, inBatch);
    }
    Session session = requireSession(ctx, actor, id);
    String version = legacyVersion(ctx, session, id);
    String clientInfo = session.clientInfo() != null ? session.clientInfo() : clientInfoFromMeta(meta);
    if (id == null) {
      notification(actor, session, method, params);
      return null;
    }
    return new Exchange(ctx, actor, session, version, false, id, method, params, clientInfo, inBatch);
  }

  private String checkModern(Context ctx, JsonNode id, String method, JsonNode params, String headerVersion, String metaVersion) {
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
    String mh = ctx.header("Mcp-Method");
    if (mh == null) {
      throw McpException.http(400, McpException.HEADER_MISMATCH, "Header mismatch: the Mcp-Method header is required", id);
    }
    if (!mh.equals(method)) {
      throw McpException.http(400, McpException.HEADER_MISMATCH,
          "Header mismatch: Mcp-Method header value '" + mh + "' does not match body value '" + method + "'", id);
    }
    if ("tools/call".equals(method)) {
      String bodyName = params == null ? null : params.path("name").asText(null);
      String nh = ctx.header("Mcp-Name");
      if (nh == null) {
        throw McpException.http(400, McpException.HEADER_MISMATCH, "Header mismatch: the Mcp-Name header is required", id);
      }
      String name = decodeHeader(nh);
      if (!name.equals(bodyName)) {
        throw McpException.http(400, McpException.HEADER_MISMATCH,
            "Header mismatch: Mcp-Name header value '" + name + "' does not match body value '" + bodyName + "'", id);
      }
    }
    return metaVersion;
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

  private Session requireSession(Context ctx, String actor, JsonNode id) {
    String sid = ctx.header("Mcp-Session-Id");
    if (sid == null || sid.isBlank()) {
      throw McpException.http(400, McpException.TRANSPORT,
          "Bad Request: the Mcp-Session-Id header is required (call initialize first)", id);
    }
    Optional<Session> s = sessions.verify(sid.trim(), now());
    if (s.isEmpty() || !s.get().actor().equals(actor)) {
      throw McpException.http(404, McpException.SESSION_NOT_FOUND,
          "Session not found: it was ended or has expired; initialize a new session", id);
    }
    return s.get();
  }

  private String legacyVersion(Context ctx, Session session, JsonNode id) {
    String h = ctx.header("MCP-Protocol-Version");
    if (h == null) {
      return session.protocolVersion();
    }
    if (!Protocol.LEGACY.contains(h)) {
      throw McpException.http(400, McpException.TRANSPORT, "Bad Request: unsupported MCP-Protocol-Version '" + h
          + "' (supported: " + String.join(", ", Protocol.LEGACY) + ")", id);
    }
    return h;
  }

  private long now() {
    return config.clock().instant().getEpochSecond();
  }

  private static String clientInfoFromMeta(JsonNode meta) {
    JsonNode ci = meta.path(Protocol.META_CLIENT_INFO);
    if (ci.isObject() && ci.path("name").isTextual()) {
      return ci.get("name").asText() + "/" + ci.path("version").asText("");
    }
    JsonNode own = meta.path("onceport/client");
    return own.isTextual() ? own.asText() : null;
  }

  // ---- notifications ----------------------------------------------------------------------

  private void notification(String actor, Session session, String method, JsonNode params) {
    if ("notifications/cancelled".equals(method) && params != null) {
      String reason = "notifications/cancelled: " + params.path("reason").asText("no reason given");
      InFlightRequests.Cancellation c = inFlight.cancel(session == null ? actor : session.nonce(), params.path("requestId"), reason);
      if (c != null && c.executionToCancel() != null) {
        // Before dispatch this cancels the execution; after, it only notes that this caller stopped
        // waiting: the execution goes on, the request is not answered and its delivery is not_delivered.
        c.entry().resolveCancel(cancelQuietly(c.executionToCancel(), actor, reason));
      }
      // Not in flight (already answered, or never seen): nothing to do, as MCP allows.
    }
    // notifications/initialized, progress, roots changes: nothing to do
  }

  private ExecutionRecord cancelQuietly(String executionId, String actor, String reason) {
    try {
      return gateway.cancel(executionId, new CancelRequest(actor, reason, null));
    } catch (RuntimeException e) {
      return null; // nothing to answer to a notification; the record keeps its state
    }
  }

  private static String scope(Exchange ex) {
    return ex.session() == null ? ex.actor() : ex.session().nonce();
  }

  // ---- methods ----------------------------------------------------------------------------

  private Reply handle(Exchange ex, Transport.Accepts accepts) {
    if (ex.modern() && ex.id() == null) {
      notification(ex.actor(), null, ex.method(), ex.params());
      return Reply.NONE;
    }
    try {
      return dispatch(ex, accepts);
    } catch (McpException e) {
      throw e.id == null ? e.withId(ex.id()) : e;
    } catch (GatewayException e) {
      if (e.kind() == GatewayException.Kind.UNKNOWN_TOOL || e.kind() == GatewayException.Kind.TOO_LARGE) {
        throw McpException.rpc(McpException.INVALID_PARAMS, e.getMessage(), ex.id());
      }
      throw McpException.rpc(McpException.INTERNAL_ERROR, "Execution layer: " + e.getMessage(), ex.id());
    }
  }

  private Reply dispatch(Exchange ex, Transport.Accepts accepts) {
    String m = ex.method();
    if (ex.modern()) {
      return switch (m) {
        case "server/discover" -> Reply.of(modernResult(ex, discover()));
        case "tools/list" -> Reply.of(modernResult(ex, toolsList(ex)));
        case "tools/call" -> toolsCall(ex, accepts);
        case "tasks/get" -> modernTaskGet(ex);
        case "tasks/update" -> Reply.of(modernResult(ex, Json.object()));
        case "tasks/cancel" -> Reply.of(modernResult(ex, taskCancel(ex, false)));
        default -> throw McpException.http(404, McpException.METHOD_NOT_FOUND, "Method not found: " + m, ex.id());
      };
    }
    return switch (m) {
      case "initialize" -> initialize(ex);
      case "ping" -> Reply.of(Json.response(ex.id(), Json.object()));
      case "tools/list" -> Reply.of(Json.response(ex.id(), toolsList(ex)));
      case "tools/call" -> toolsCall(ex, accepts);
      case "logging/setLevel" -> setLevel(ex);
      case "tasks/get" -> requireTasks(ex, () -> Reply.of(Json.response(ex.id(), ToolResults.task(
          ownRecord(ex, taskId(ex)), config.taskTtl().toMillis(), pollMillis()))));
      case "tasks/result" -> requireTasks(ex, () -> taskResult(ex));
      case "tasks/list" -> requireTasks(ex, () -> taskList(ex));
      case "tasks/cancel" -> requireTasks(ex, () -> Reply.of(Json.response(ex.id(), taskCancel(ex, true))));
      default -> throw McpException.rpc(McpException.METHOD_NOT_FOUND, "Method not found: " + m, ex.id());
    };
  }

  private Reply requireTasks(Exchange ex, java.util.function.Supplier<Reply> body) {
    if (!Protocol.hasTasks(ex.protocolVersion())) {
      throw McpException.rpc(McpException.METHOD_NOT_FOUND, "Method not found: " + ex.method()
          + " (tasks need protocol version " + Protocol.V2025_11_25 + ")", ex.id());
    }
    return body.get();
  }

  private JsonNode modernResult(Exchange ex, ObjectNode result) {
    if (!result.has("resultType")) {
      result.put("resultType", "complete");
    }
    ObjectNode meta = result.has("_meta") ? (ObjectNode) result.get("_meta") : result.putObject("_meta");
    meta.set(Protocol.META_SERVER_INFO, serverInfo());
    return Json.response(ex.id(), result);
  }

  private ObjectNode serverInfo() {
    return Json.object().put("name", config.serverName()).put("version", config.serverVersion());
  }

  private ObjectNode discover() {
    ObjectNode r = Json.object();
    ArrayNode versions = r.putArray("supportedVersions");
    Protocol.ALL.forEach(versions::add);
    ObjectNode caps = r.putObject("capabilities");
    caps.putObject("tools").putObject("idempotency"); // SEP-3182: params.idempotencyKey is honoured
    caps.putObject("extensions").putObject(Protocol.TASKS_EXTENSION);
    r.put("instructions", instructions());
    r.put("ttlMs", 60_000);
    r.put("cacheScope", "private");
    return r;
  }

  private static String instructions() {
    return "Onceport executes each requested action once. If a response is lost, retry the same call: "
        + "it attaches to the first execution instead of acting again. Results carry an execution_id; "
        + "ask " + ToolResults.STATUS_TOOL + " about an uncertain one.";
  }

  private Reply initialize(Exchange ex) {
    JsonNode p = ex.params() == null ? Json.object() : ex.params();
    JsonNode requested = p.get("protocolVersion");
    if (requested == null || !requested.isTextual()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: protocolVersion is required", ex.id());
    }
    String version = Protocol.LEGACY.contains(requested.asText()) ? requested.asText() : Protocol.LATEST_LEGACY;
    JsonNode ci = p.path("clientInfo");
    String clientInfo = ci.path("name").isTextual() ? ci.get("name").asText() + "/" + ci.path("version").asText("") : null;
    Session s = sessions.issue(ex.actor(), version, clientInfo, now());
    recordSessionStart(ex.actor(), io.onceport.frontend.auth.SessionIds.forCall(ex.actor(), s.nonce(), null, clientInfo),
        ci.path("name").asText(null), ci.path("version").asText(null), version, ex.ctx().req().getRemoteAddr());
    ObjectNode r = Json.object();
    r.put("protocolVersion", version);
    ObjectNode caps = r.putObject("capabilities");
    caps.putObject("tools").put("listChanged", false).putObject("idempotency"); // SEP-3182: params.idempotencyKey is honoured
    caps.putObject("logging");
    if (Protocol.hasTasks(version)) {
      ObjectNode t = caps.putObject("tasks");
      t.putObject("list");
      t.putObject("cancel");
      t.putObject("requests").putObject("tools").putObject("call");
    }
    r.set("serverInfo", serverInfo());
    r.put("instructions", instructions());
    ex.ctx().header("Mcp-Session-Id", s.id());
    return Reply.of(Json.response(ex.id(), r));
  }

  private Reply setLevel(Exchange ex) {
    String level = ex.params() == null ? null : ex.params().path("level").asText(null);
    if (level == null || !LOG_LEVELS.contains(level)) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: level must be one of " + LOG_LEVELS, ex.id());
    }
    if (ex.session() != null) {
      sse.logLevels.put(ex.session().nonce(), level);
    }
    return Reply.of(Json.response(ex.id(), Json.object()));
  }

  private ObjectNode toolsList(Exchange ex) {
    if (ex.params() != null && ex.params().hasNonNull("cursor")) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: unknown cursor", ex.id());
    }
    List<ObjectNode> tools = new ArrayList<>();
    for (ToolContract c : gateway.tools()) {
      tools.add(ToolResults.descriptor(c));
    }
    tools.add(ToolResults.statusToolDescriptor());
    tools.sort((a, b) -> a.get("name").asText().compareTo(b.get("name").asText()));
    ObjectNode r = Json.object();
    ArrayNode arr = r.putArray("tools");
    tools.forEach(arr::add);
    if (ex.modern()) {
      r.put("ttlMs", 60_000);
      r.put("cacheScope", "private");
    }
    return r;
  }

  // ---- tools/call -------------------------------------------------------------------------

  private Reply toolsCall(Exchange ex, Transport.Accepts accepts) {
    JsonNode p = ex.params();
    if (p == null || !p.path("name").isTextual()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: name is required", ex.id());
    }
    String name = p.get("name").asText();
    JsonNode args = p.get("arguments");
    if (args != null && !args.isObject() && !args.isNull()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: arguments must be an object", ex.id());
    }
    if (ToolResults.STATUS_TOOL.equals(name)) {
      return Reply.of(result(ex, statusTool(ex, args)));
    }
    JsonNode meta = ex.meta();
    String runId = text(meta.path("onceport/run"), ex.ctx().header("Onceport-Run"));
    String intentKey = intentKey(ex, p, meta);
    boolean taskRequested = !ex.modern() && p.path("task").isObject() && Protocol.hasTasks(ex.protocolVersion());
    boolean modernTasks = ex.modern() && meta.path(Protocol.META_CLIENT_CAPABILITIES).path("extensions")
        .has(Protocol.TASKS_EXTENSION);
    boolean stream = !taskRequested && !modernTasks && !ex.inBatch() && accepts.sse()
        && (accepts.prefersSse() && config.sseToolCalls() || !accepts.json());
    long wait = taskRequested || stream ? 0 : config.callWait().toMillis();
    if (ex.session() == null) {
      String modernSession = ex.gatewaySession(runId);
      String ci = ex.clientInfo();
      int slash = ci == null ? -1 : ci.indexOf('/');
      recordSessionStart(ex.actor(), modernSession, ci == null ? null : slash < 0 ? ci : ci.substring(0, slash),
          slash < 0 ? null : ci.substring(slash + 1), ex.protocolVersion(), ex.ctx().req().getRemoteAddr());
    }
    ToolCall call = new ToolCall(ex.actor(), name, args == null || args.isNull() ? Json.object() : args, runId,
        intentKey, ex.gatewaySession(runId), ex.id() == null ? null : ex.id().asText(), ex.protocolVersion(),
        ex.clientInfo(), ex.ctx().req().getRemoteAddr(), wait, ClientConnection.receivedNanos(ex.ctx().req()));
    InFlightRequests.Entry f = ex.id() != null && !taskRequested ? inFlight.open(scope(ex), ex.id()) : null;
    Reply reply = null;
    try {
      reply = callAndAnswer(ex, call, f, name, taskRequested, stream, modernTasks, p);
      return reply;
    } finally {
      Reply r = reply;
      if (r == null || r.deliveries().stream().noneMatch(d -> d.entry() == f)) {
        inFlight.release(f); // no answer of it is pending a write or a grace
      }
    }
  }

  private Reply callAndAnswer(Exchange ex, ToolCall call, InFlightRequests.Entry f, String name, boolean taskRequested,
      boolean stream, boolean modernTasks, JsonNode p) {
    CallResult cr;
    try {
      cr = gateway.attach(call);
    } catch (GatewayException e) {
      if (e.kind() == GatewayException.Kind.INVALID_ARGUMENTS || e.kind() == GatewayException.Kind.INTENT_KEY_MISMATCH) {
        return Reply.of(result(ex, ToolResults.refusal(e.getMessage())));
      }
      if (e.kind() == GatewayException.Kind.BUSY) {
        return Reply.of(result(ex, ToolResults.busy(e.executionId(), e.getMessage())));
      }
      throw e;
    }
    if (f != null) {
      String pendingCancel = f.attached(cr.record().executionId(), cr.callId());
      if (pendingCancel != null) {
        // Cancelled before the execution was known: cancel it now (it may not be dispatched yet).
        ExecutionRecord after = cancelQuietly(cr.record().executionId(), ex.actor(), pendingCancel);
        f.resolveCancel(after);
        if (after != null) {
          cr = new CallResult(after, cr.callId(), cr.attached());
        }
      }
    }
    ToolContract contract = contract(name);
    if (taskRequested) {
      ObjectNode r = Json.object();
      r.set("task", ToolResults.task(cr.record(), config.taskTtl().toMillis(), pollMillis()));
      return Reply.of(Json.response(ex.id(), r));
    }
    if (stream) {
      sse.toolCall(ex, cr, contract, p.path("_meta").get("progressToken"), f);
      return Reply.STREAMED;
    }
    ExecutionRecord rec = awaitSettled(cr.record(), call.receivedNanos() + Duration.ofMillis(call.waitMillis()).toNanos(), f);
    if (f != null && f.cancelled()) {
      ExecutionRecord after = f.awaitCancel(Duration.ofSeconds(10));
      if (after == null || after.state() != io.onceport.workflow.execution.ExecutionState.CANCELLED) {
        // Cancelled after dispatch: the execution goes on (a retry attaches and gets its result);
        // this request is not answered, and its result is not delivered to it.
        writer.unanswered(List.of(new ResponseWriter.Pending(rec.executionId(), cr.callId(), f)));
        return Reply.NONE;
      }
      rec = after; // cancelled before dispatch: the answer says so (nothing was sent)
    }
    if (modernTasks && !rec.isSettled()) {
      ObjectNode t = modernTask(rec);
      return Reply.of(modernResult(ex, t));
    }
    ObjectNode res = ToolResults.callResult(rec, cr.attached(), contract);
    List<ResponseWriter.Pending> d = ToolResults.carriesFinalResult(rec)
        ? List.of(new ResponseWriter.Pending(rec.executionId(), cr.callId(), f)) : List.of();
    return new Reply(result(ex, res), d, false);
  }

  /**
   * Waits until the record settles or waits for an operator (the agent is told that at once), the
   * deadline passes or the request is cancelled.
   */
  private ExecutionRecord awaitSettled(ExecutionRecord rec, long deadlineNanos, InFlightRequests.Entry f) {
    while (!ToolResults.answersNow(rec) && (f == null || !f.cancelled())) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        break;
      }
      rec = gateway.awaitChange(rec.executionId(), rec.version(), Duration.ofNanos(Math.min(left, CANCEL_CHECK.toNanos())));
    }
    return rec;
  }

  private JsonNode result(Exchange ex, ObjectNode res) {
    return ex.modern() ? modernResult(ex, res) : Json.response(ex.id(), res);
  }

  private ToolContract contract(String tool) {
    for (ToolContract c : gateway.tools()) {
      if (c.tool().equals(tool)) {
        return c;
      }
    }
    return null;
  }

  /**
   * The client's intent key: {@code params.idempotencyKey} (the SEP-3182 field), {@code _meta}
   * {@code "onceport/intent"} or header {@code Idempotency-Key}, all with the same meaning. Two that
   * differ are refused: guessing which one the client meant could merge two intents.
   */
  private static String intentKey(Exchange ex, JsonNode params, JsonNode meta) {
    JsonNode k = params.get("idempotencyKey");
    String proposed = null;
    if (k != null && !k.isNull()) {
      if (!k.isTextual() || k.asText().isBlank()) {
        throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: idempotencyKey must be a non-empty string", ex.id());
      }
      proposed = k.asText();
    }
    String other = text(meta.path("onceport/intent"), ex.ctx().header("Idempotency-Key"));
    if (proposed != null && other != null && !proposed.equals(other)) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: idempotencyKey differs from the intent key in "
          + "_meta onceport/intent or the Idempotency-Key header; send one key", ex.id());
    }
    return proposed != null ? proposed : other;
  }

  private static String text(JsonNode node, String fallback) {
    if (node != null && node.isTextual() && !node.asText().isBlank()) {
      return node.asText();
    }
    return fallback == null || fallback.isBlank() ? null : fallback;
  }

  private ObjectNode statusTool(Exchange ex, JsonNode args) {
    JsonNode idNode = args == null ? null : args.get("execution_id");
    if (idNode == null || !idNode.isTextual() || idNode.asText().isBlank()) {
      return ToolResults.refusal("Invalid arguments: execution_id is required (a string such as act_...)");
    }
    String executionId = idNode.asText();
    Optional<ExecutionRecord> rec = gateway.find(executionId).filter(r -> ex.actor().equals(r.actor()));
    if (rec.isEmpty()) {
      return ToolResults.refusal("No execution " + executionId + " for this caller");
    }
    ExecutionRecord r = rec.get();
    ObjectNode s = ToolResults.summary(r, false);
    s.remove("attached");
    s.put("tool", r.tool());
    s.put("view", r.view());
    s.put("replay_class", r.replayClass());
    s.put("accepted_at", r.acceptedAt());
    s.put("dispatched_at", r.dispatchedAt());
    s.put("completed_at", r.completedAt());
    s.put("delivered_at", r.deliveredAt());
    s.put("attachable_until", r.attachableUntil());
    ObjectNode res = Json.object();
    res.putArray("content").addObject().put("type", "text").put("text", ToolResults.message(r) + "\n" + Json.text(s));
    res.set("structuredContent", s);
    res.put("isError", false);
    return res;
  }

  // ---- tasks ------------------------------------------------------------------------------

  private long pollMillis() {
    return 1000;
  }

  private String taskId(Exchange ex) {
    JsonNode t = ex.params() == null ? null : ex.params().get("taskId");
    if (t == null || !t.isTextual()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: taskId is required", ex.id());
    }
    return t.asText();
  }

  /** The caller's own execution; another actor's looks exactly like a missing one. */
  private ExecutionRecord ownRecord(Exchange ex, String executionId) {
    return gateway.find(executionId).filter(r -> ex.actor().equals(r.actor()))
        .orElseThrow(() -> McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: unknown task " + executionId, ex.id()));
  }

  private Reply taskResult(Exchange ex) {
    ExecutionRecord r = ownRecord(ex, taskId(ex));
    // Cancelling a tasks/result stops this wait; it never cancels the task (tasks/cancel does).
    InFlightRequests.Entry f = ex.id() == null ? null : inFlight.open(scope(ex), ex.id());
    Reply reply = null;
    try {
      long deadline = System.nanoTime() + config.taskResultWait().toNanos();
      while (!r.state().isTerminal() && (f == null || !f.cancelled())) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        r = gateway.awaitChange(r.executionId(), r.version(), Duration.ofNanos(Math.min(left, CANCEL_CHECK.toNanos())));
      }
      if (f != null && f.cancelled()) {
        reply = Reply.NONE;
        return reply;
      }
      ObjectNode res = ToolResults.callResult(r, false, contract(r.tool()));
      ((ObjectNode) res.get("_meta")).putObject(Protocol.META_RELATED_TASK).put("taskId", r.executionId());
      reply = new Reply(Json.response(ex.id(), res), deliveryFor(ex, r, f), false);
      return reply;
    } finally {
      Reply done = reply;
      if (done == null || done.deliveries().stream().noneMatch(d -> d.entry() == f)) {
        inFlight.release(f);
      }
    }
  }

  private List<ResponseWriter.Pending> deliveryFor(Exchange ex, ExecutionRecord r) {
    return deliveryFor(ex, r, null);
  }

  /** The call this task's result answers: the latest call from this session, else the latest call. */
  private List<ResponseWriter.Pending> deliveryFor(Exchange ex, ExecutionRecord r, InFlightRequests.Entry f) {
    if (!ToolResults.carriesFinalResult(r) || r.calls().isEmpty()) {
      return List.of();
    }
    String scope = ex.session() != null ? ex.session().nonce() : null;
    AttachedCall chosen = r.calls().get(r.calls().size() - 1);
    for (AttachedCall c : r.calls()) {
      if (scope != null && scope.equals(c.sessionId())) {
        chosen = c;
      }
    }
    return List.of(new ResponseWriter.Pending(r.executionId(), chosen.callId(), f));
  }

  private Reply taskList(Exchange ex) {
    if (ex.params() != null && ex.params().hasNonNull("cursor")) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: unknown cursor", ex.id());
    }
    ObjectNode r = Json.object();
    ArrayNode tasks = r.putArray("tasks");
    for (ExecutionRecord rec : gateway.listByActor(ex.actor(), 100)) {
      tasks.add(ToolResults.task(rec, config.taskTtl().toMillis(), pollMillis()));
    }
    return Reply.of(Json.response(ex.id(), r));
  }

  private ObjectNode taskCancel(Exchange ex, boolean refuseAfterDispatch) {
    ExecutionRecord r = ownRecord(ex, taskId(ex));
    if (r.state().isTerminal()) {
      if (!refuseAfterDispatch) {
        return Json.object();
      }
      throw McpException.rpc(McpException.INVALID_PARAMS, "Cannot cancel task " + r.executionId()
          + ": it is already " + r.state().wireName(), ex.id());
    }
    boolean dispatched = r.state().mayHaveCrossedDispatch();
    ExecutionRecord after = gateway.cancel(r.executionId(), new CancelRequest(ex.actor(), ex.method(), null));
    if (!refuseAfterDispatch) {
      return Json.object();
    }
    if (dispatched || after.state() != io.onceport.workflow.execution.ExecutionState.CANCELLED) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Cannot cancel task " + r.executionId()
          + ": it was already dispatched and a sent request cannot be unsent; the execution continues ("
          + after.state().wireName() + ")", ex.id());
    }
    return ToolResults.task(after, config.taskTtl().toMillis(), pollMillis());
  }

  private ObjectNode modernTask(ExecutionRecord rec) {
    ObjectNode t = ToolResults.task(rec, config.taskTtl().toMillis(), pollMillis());
    t.put("resultType", "task");
    t.set("ttlMs", t.remove("ttl"));
    t.set("pollIntervalMs", t.remove("pollInterval"));
    return t;
  }

  private Reply modernTaskGet(Exchange ex) {
    ExecutionRecord r = ownRecord(ex, taskId(ex));
    ObjectNode t = modernTask(r);
    List<ResponseWriter.Pending> d = List.of();
    if (r.state().isTerminal() && r.state() != io.onceport.workflow.execution.ExecutionState.CANCELLED) {
      // A tool error is still a completed request: the result says isError.
      t.put("status", "completed");
      t.set("result", ToolResults.callResult(r, false, contract(r.tool())));
      d = deliveryFor(ex, r);
    }
    return new Reply(modernResult(ex, t), d, false);
  }

  // ---- GET / DELETE -----------------------------------------------------------------------

  void get(Context ctx) {
    transport.checkOrigin(ctx);
    String actor = transport.authenticate(ctx);
    if (Protocol.looksModern(ctx.header("MCP-Protocol-Version"))) {
      throw McpException.http(405, McpException.TRANSPORT, "Method Not Allowed: protocol version "
          + ctx.header("MCP-Protocol-Version") + " has no GET stream", null);
    }
    if (!Transport.accepts(ctx).sse()) {
      throw McpException.http(406, McpException.TRANSPORT, "Not Acceptable: GET needs Accept: text/event-stream", null);
    }
    String last = ctx.header("Last-Event-ID");
    if (last == null) {
      ctx.header("Allow", "POST, DELETE");
      throw McpException.http(405, McpException.TRANSPORT,
          "Method Not Allowed: no standalone stream; GET with Last-Event-ID resumes a tools/call stream", null);
    }
    Session session = requireSession(ctx, actor, null);
    legacyVersion(ctx, session, null);
    EventIds ids = EventIds.parse(last);
    ExecutionRecord rec = ids == null ? null
        : gateway.find(ids.executionId()).filter(r -> actor.equals(r.actor())).orElse(null);
    if (rec == null) {
      throw McpException.http(404, McpException.TRANSPORT, "Not Found: no stream for Last-Event-ID " + last, null);
    }
    if (inFlight.wasCancelled(ids.callId())) {
      // The client cancelled that request after dispatch: it is not answered, on this stream or a resumed one.
      throw McpException.http(404, McpException.TRANSPORT, "Not Found: the request of Last-Event-ID " + last
          + " was cancelled (notifications/cancelled); retry the call to get its execution's result", null);
    }
    sse.resume(ctx, session, ids, rec);
  }

  void delete(Context ctx) {
    transport.checkOrigin(ctx);
    String actor = transport.authenticate(ctx);
    if (Protocol.looksModern(ctx.header("MCP-Protocol-Version"))) {
      throw McpException.http(405, McpException.TRANSPORT, "Method Not Allowed: protocol version "
          + ctx.header("MCP-Protocol-Version") + " has no sessions", null);
    }
    Session session = requireSession(ctx, actor, null);
    sessions.revoke(session);
    try {
      config.sessionRegistry().ended(io.onceport.frontend.auth.SessionIds.forCall(actor, session.nonce(), null, null), "deleted by the client");
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(McpController.class).warn("could not record the end of a session: {}", e.getMessage());
    }
    ctx.status(204);
  }

  /**
   * Sessions this front end already recorded ({@value #MAX_RECORDED_SESSIONS}, each forgotten an
   * hour after its last call): a run's every call must not signal its session again. Forgetting is
   * safe: a repeated start is ignored by the session record.
   */
  private final io.onceport.frontend.gateway.BoundedMap<String, Boolean> recordedSessions =
      new io.onceport.frontend.gateway.BoundedMap<>(MAX_RECORDED_SESSIONS, Duration.ofHours(1));
  static final int MAX_RECORDED_SESSIONS = 10_000;

  /** Records an agent session's start; a failure to record never fails the request itself. */
  private void recordSessionStart(String actor, String sessionId, String clientName, String clientVersion, String version, String remote) {
    boolean[] first = {false};
    recordedSessions.compute(sessionId, (k, seen) -> {
      first[0] = seen == null;
      return Boolean.TRUE;
    });
    if (!first[0]) {
      return;
    }
    try {
      config.sessionRegistry().started(new io.onceport.frontend.auth.SessionStart(
          actor, sessionId, clientName, clientVersion, version, remote, config.clock().instant()));
    } catch (RuntimeException e) {
      recordedSessions.remove(sessionId);
      org.slf4j.LoggerFactory.getLogger(McpController.class).warn("could not record session {}: {}", sessionId, e.getMessage());
    }
  }
}
