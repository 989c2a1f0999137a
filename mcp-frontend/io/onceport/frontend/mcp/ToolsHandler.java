package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.ReadPath;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.frontend.mcp.McpController.Reply;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code tools/list} and {@code tools/call}. A call is started-or-attached on the gateway, then
 * answered in one of four ways: a task (2025-11-25 task-augmented call), an SSE stream, a JSON
 * answer once the record settles or waits for an operator, or a task result (2026-07-28 tasks
 * extension) when it has not settled within the wait. The request stays registered in
 * {@link InFlightRequests} until its answer was written or decided, so a
 * {@code notifications/cancelled} finds it. A {@code read_only} call the read path
 * ({@link McpConfig#readPath()}) can answer takes no execution at all ({@link ReadAnswers}). The
 * built-in status tool answers from the record alone.
 */
final class ToolsHandler {
  private final McpConfig config;
  private final ExecutionGateway gateway;
  private final InFlightRequests inFlight;
  private final ResponseWriter writer;
  private final SseStreams sse;
  private final McpSessions sessions;
  private final TasksHandler tasks;
  private final NotificationHandler notifications;
  private final ReadAnswers reads;
  private final LongWaits waits;

  ToolsHandler(McpConfig config, ExecutionGateway gateway, InFlightRequests inFlight, ResponseWriter writer, SseStreams sse,
      McpSessions sessions, TasksHandler tasks, NotificationHandler notifications, LongWaits waits) {
    this.waits = waits;
    this.config = config;
    this.gateway = gateway;
    this.inFlight = inFlight;
    this.writer = writer;
    this.sse = sse;
    this.sessions = sessions;
    this.tasks = tasks;
    this.notifications = notifications;
    this.reads = new ReadAnswers(sse);
  }

  /** How one call is answered, decided from the request before it reaches the gateway. */
  /**
   * How long a streamed call waits for its answer before its stream opens, when the answer can come
   * in band: most calls then answer on the first event, and a slow one opens its stream after this
   * and is followed as before.
   */
  static final Duration STREAM_FIRST_ANSWER = Duration.ofSeconds(2);

  private record Answering(boolean taskRequested, boolean modernTasks, boolean stream, long waitMillis) {}

  static ToolContract contract(ExecutionGateway gateway, String tool) {
    for (ToolContract c : gateway.tools()) {
      if (c.tool().equals(tool)) {
        return c;
      }
    }
    return null;
  }

  /** The scope request ids are unique in: the session, or the actor in 2026-07-28. */
  static String scope(Exchange ex) {
    return ex.session() == null ? ex.actor() : ex.session().nonce();
  }

  // ---- tools/list -------------------------------------------------------------------------

  Reply list(Exchange ex, Transport.Accepts accepts) {
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
    return Reply.of(ex.answer(r));
  }

  // ---- tools/call -------------------------------------------------------------------------

  Reply call(Exchange ex, Transport.Accepts accepts) {
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
      return Reply.of(ex.answer(statusTool(ex, args)));
    }
    Answering how = answering(ex, p, accepts);
    ToolCall call = toolCall(ex, name, args, how);
    Reply read = readPath(ex, call, how);
    if (read != null) {
      return read; // answered without an execution: nothing in flight to cancel or deliver
    }
    // The session's workflow starts with its first call that takes the durable path, not with
    // initialize (issue 25 item 4: 500 initializes once started 500 workflows); once per session here.
    sessions.recordStart(ex.actor(), call.sessionId(), ex.client().name(), ex.client().version(), ex.protocolVersion(),
        ex.ctx().req().getRemoteAddr());
    InFlightRequests.Entry f = ex.id() != null && !how.taskRequested() ? inFlight.open(scope(ex), ex.id()) : null;
    Reply reply = null;
    try (LongWaits.Lease lease = how.taskRequested() ? null : waits.open(ex.actor(), ex.generation(), ex.ctx().req(), ex.id())) {
      reply = attachAndAnswer(ex, call, f, how, lease);
      return reply;
    } finally {
      Reply r = reply;
      if (r == null || r.deliveries().stream().noneMatch(d -> d.entry() == f)) {
        inFlight.release(f); // no answer of it is pending a write or a grace
      }
    }
  }

  private Answering answering(Exchange ex, JsonNode p, Transport.Accepts accepts) {
    JsonNode meta = ex.meta();
    boolean taskRequested = !ex.modern() && p.path("task").isObject() && Protocol.hasTasks(ex.protocolVersion());
    boolean modernTasks = ex.modern() && meta.path(Protocol.META_CLIENT_CAPABILITIES).path("extensions")
        .has(Protocol.TASKS_EXTENSION);
    boolean stream = !taskRequested && !modernTasks && !ex.inBatch() && accepts.sse()
        && (accepts.prefersSse() && config.sseToolCalls() || !accepts.json());
    long wait = taskRequested ? 0 : !stream ? config.callWait().toMillis()
        : gateway.answersInBand() ? Math.min(config.callWait().toMillis(), STREAM_FIRST_ANSWER.toMillis()) : 0;
    return new Answering(taskRequested, modernTasks, stream, wait);
  }

  /** The gateway's view of the call; records a 2026-07-28 agent session on its first call. */
  private ToolCall toolCall(Exchange ex, String name, JsonNode args, Answering how) {
    JsonNode meta = ex.meta();
    String runId = text(meta.path("onceport/run"), ex.ctx().header("Onceport-Run"));
    String intentKey = intentKey(ex, ex.params(), meta);
    if (ex.session() == null) {
      sessions.admit(ex.actor(), ex.gatewaySession(runId), ex.id()); // a new run or client session counts against the limits
    }
    return new ToolCall(ex.actor(), name, args == null || args.isNull() ? Json.object() : args, runId,
        intentKey, ex.gatewaySession(runId), ex.id() == null ? null : ex.id().asText(), ex.protocolVersion(),
        ex.clientInfo(), ex.ctx().req().getRemoteAddr(), how.waitMillis(), ClientConnection.receivedNanos(ex.ctx().req()));
  }

  /**
   * A read_only call the read path answers without an execution (see {@code DirectReads}); null when
   * it takes the durable path. A task-augmented call always does: a task is an execution.
   */
  private Reply readPath(Exchange ex, ToolCall call, Answering how) {
    ReadPath path = config.readPath();
    if (path == null || how.taskRequested()) {
      return null;
    }
    Optional<ReadPath.Planned> planned;
    try {
      planned = path.plan(call);
    } catch (GatewayException e) {
      if (e.kind() == GatewayException.Kind.INVALID_ARGUMENTS) {
        return Reply.of(ex.answer(ToolResults.refusal(e.getMessage())));
      }
      throw e;
    }
    return planned.map(r -> reads.answer(ex, r, how.stream(), ex.params().path("_meta").get("progressToken"), ex::answer))
        .orElse(null);
  }

  private Reply attachAndAnswer(Exchange ex, ToolCall call, InFlightRequests.Entry f, Answering how, LongWaits.Lease lease) {
    CallResult cr;
    try {
      cr = lease == null ? gateway.attach(call) : lease.interruptible(() -> gateway.attach(call));
    } catch (GatewayException e) {
      if (e.kind() == GatewayException.Kind.INVALID_ARGUMENTS || e.kind() == GatewayException.Kind.INTENT_KEY_MISMATCH) {
        return Reply.of(ex.answer(ToolResults.refusal(e.getMessage())));
      }
      if (e.kind() == GatewayException.Kind.BUSY) {
        return Reply.of(ex.answer(ToolResults.busy(e.executionId(), e.getMessage())));
      }
      throw e;
    } catch (RuntimeException e) {
      if (lease != null && lease.revoked()) {
        return Reply.NONE; // interrupted by the removal of the agent's credential: its connection is closed
      }
      throw e;
    }
    McpSpans.execution(cr.record().executionId(), cr.attached());
    cr = cancelIfCancelledEarly(ex, cr, f);
    ToolContract contract = contract(gateway, call.tool());
    if (how.taskRequested()) {
      ObjectNode r = Json.object();
      r.set("task", tasks.task(cr.record()));
      return Reply.of(Json.response(ex.id(), r));
    }
    if (how.stream()) {
      sse.toolCall(ex, cr, contract, ex.params().path("_meta").get("progressToken"), f, lease);
      return Reply.STREAMED;
    }
    return answerWhenSettled(ex, call, cr, f, how, contract, lease);
  }

  /** A cancellation that arrived before the execution was known cancels it now (it may not be dispatched yet). */
  private CallResult cancelIfCancelledEarly(Exchange ex, CallResult cr, InFlightRequests.Entry f) {
    String pendingCancel = f == null ? null : f.attached(cr.record().executionId(), cr.callId());
    if (pendingCancel == null) {
      return cr;
    }
    ExecutionRecord after = notifications.cancelQuietly(cr.record().executionId(), ex.actor(), pendingCancel);
    f.resolveCancel(after);
    return after == null ? cr : new CallResult(after, cr.callId(), cr.attached());
  }

  private Reply answerWhenSettled(Exchange ex, ToolCall call, CallResult cr, InFlightRequests.Entry f, Answering how,
      ToolContract contract, LongWaits.Lease lease) {
    ExecutionRecord rec = awaitSettled(cr.record(), call.receivedNanos() + Duration.ofMillis(call.waitMillis()).toNanos(), f,
        lease);
    if (lease != null && lease.revoked()) {
      // The agent's credential was removed while it waited: its connection is closed, nothing is answered.
      writer.report(ToolResults.carriesFinalResult(rec) ? List.of(new ResponseWriter.Pending(rec.executionId(), cr.callId(), f))
          : List.of(), false, lease.revocation());
      return Reply.NONE;
    }
    if (f != null && f.cancelled()) {
      ExecutionRecord after = f.awaitCancel(Duration.ofSeconds(10));
      if (after == null || after.state() != ExecutionState.CANCELLED) {
        // Cancelled after dispatch: the execution goes on (a retry attaches and gets its result);
        // this request is not answered, and its result is not delivered to it.
        writer.unanswered(List.of(new ResponseWriter.Pending(rec.executionId(), cr.callId(), f)));
        return Reply.NONE;
      }
      rec = after; // cancelled before dispatch: the answer says so (nothing was sent)
    }
    if (how.modernTasks() && !rec.isSettled()) {
      return Reply.of(ex.answer(tasks.modernTask(rec)));
    }
    ObjectNode res = ToolResults.callResult(rec, cr.attached(), contract);
    List<ResponseWriter.Pending> d = ToolResults.carriesFinalResult(rec)
        ? List.of(new ResponseWriter.Pending(rec.executionId(), cr.callId(), f)) : List.of();
    return new Reply(ex.answer(res), d, false);
  }

  /**
   * Waits until the record settles or waits for an operator (the agent is told that at once), the
   * deadline passes or the request is cancelled.
   */
  private ExecutionRecord awaitSettled(ExecutionRecord rec, long deadlineNanos, InFlightRequests.Entry f, LongWaits.Lease lease) {
    while (!ToolResults.answersNow(rec) && (f == null || !f.cancelled()) && (lease == null || !lease.revoked())) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        break;
      }
      rec = gateway.awaitChange(rec.executionId(), rec.version(),
          Duration.ofNanos(Math.min(left, McpController.CANCEL_CHECK.toNanos())));
    }
    return rec;
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

  // ---- the status tool --------------------------------------------------------------------

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
}
