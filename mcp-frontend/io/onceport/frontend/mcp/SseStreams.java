package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ExecutionRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * SSE responses for {@code tools/call} and their resumption. The stream follows the durable record
 * (priming event, a progress notification per state transition of the record when asked for, then
 * the result), so a {@code GET} with {@code Last-Event-ID} on any front end rebuilds what a broken
 * stream missed. Progress comes from the record's transition list, not from the versions this
 * process happened to observe: a state that came and went between two polls is still reported, and
 * the event id's sequence (transitions reported so far) tells a resumed stream where to go on.
 * A client that goes away is never taken as cancellation: the execution goes on and a retry or a
 * resumption gets its result.
 */
final class SseStreams {
  /** How often the stream looks at its client (gone?) and at cancellations; the execution is watched once for all. */
  private static final long POLL_NANOS = McpController.CANCEL_CHECK.toNanos();
  private final McpConfig config;
  private final ExecutionGateway gateway;
  private final ResponseWriter writer;
  private final InFlightRequests inFlight;

  /** Levels set with {@code logging/setLevel}: only a session that asked for info gets log messages. */
  private final LogLevels logLevels;

  /** True when a session asked for {@code info} messages (its level is debug or info). */
  boolean logsInfo(Session session) {
    return logLevels.logsInfo(session);
  }

  SseStreams(McpConfig config, ExecutionGateway gateway, ResponseWriter writer, InFlightRequests inFlight,
      LogLevels logLevels) {
    this.config = config;
    this.logLevels = logLevels;
    this.gateway = gateway;
    this.writer = writer;
    this.inFlight = inFlight;
  }

  /**
   * Answers a call that already attached (wait 0): priming, progress, result.
   *
   * @param request the request in flight, for cancellations (null: cannot be cancelled)
   */
  void toolCall(Exchange ex, CallResult cr, ToolContract contract, JsonNode progressToken, InFlightRequests.Entry request,
      LongWaits.Lease lease) {
    ExecutionRecord rec = cr.record();
    EventIds ids = new EventIds(rec.executionId(), null, cr.callId(), ex.id(), progressToken);
    Context ctx = ex.ctx();
    open(ctx);
    boolean withIds = !ex.modern();
    try {
      if (withIds) {
        write(ctx, "id: " + ids.id("0") + "\nretry: " + config.sseRetry().toMillis() + "\ndata: \n\n");
      }
    } catch (IOException e) {
      return; // gone before anything happened; the execution goes on
    }
    // Polling (closing the stream before the result) is for clients that negotiated 2025-11-25 in
    // initialize; the session says so even when a request's header names an older revision.
    String version = ex.session() != null ? ex.session().protocolVersion() : ex.protocolVersion();
    follow(ctx, ex.modern(), ids, rec, cr.attached(), contract, version, withIds, 0, !ex.modern() && logsInfo(ex.session()),
        request, lease);
  }

  /** Resumes a stream after {@code Last-Event-ID}; a cancellation of the original request applies to it. */
  void resume(Context ctx, Session session, EventIds ids, ExecutionRecord rec, LongWaits.Lease lease) {
    open(ctx);
    if (ids.resultSent()) {
      return; // the client has everything this stream carried
    }
    InFlightRequests.Entry request = ids.rpcId() == null ? null : inFlight.open(session.nonce(), ids.rpcId());
    try {
      if (request != null) {
        request.attached(rec.executionId(), ids.callId());
      }
      follow(ctx, false, ids, rec, false, contract(rec.tool()), session.protocolVersion(), true, ids.reported(), false, request,
          lease);
    } finally {
      inFlight.release(request);
    }
  }

  /** What following a record up to its answer (or the wait's end) saw. */
  private record Watched(ExecutionRecord rec, boolean gone) {}

  /** @param reported how many of the record's transitions this stream already reported */
  private void follow(Context ctx, boolean modern, EventIds ids, ExecutionRecord rec, boolean attached,
      ToolContract contract, String version, boolean withIds, int reported, boolean logs, InFlightRequests.Entry request,
      LongWaits.Lease lease) {
    Watched w = watch(ctx, ids, rec, withIds, reported, logs, request, lease);
    if (w != null && lease != null && lease.revoked()) {
      // The agent's credential was removed while the stream waited: the stream is closed, nothing more is sent.
      if (ToolResults.carriesFinalResult(w.rec())) {
        writer.report(List.of(new ResponseWriter.Pending(w.rec().executionId(), ids.callId(), request)), false, lease.revocation());
      }
      return;
    }
    if (w != null) {
      answer(ctx, modern, ids, w, attached, contract, version, withIds, request);
    }
  }

  /**
   * Writes progress and log events while the record moves, until it answers now, the wait ends or
   * the request is cancelled; null when the execution layer failed mid-stream (the stream ends,
   * the client resumes or retries).
   */
  private Watched watch(Context ctx, EventIds ids, ExecutionRecord rec, boolean withIds, int reported, boolean logs,
      InFlightRequests.Entry request, LongWaits.Lease lease) {
    long deadline = System.nanoTime() + config.callWait().toNanos();
    boolean progress = ids.progressToken() != null && !ids.progressToken().isNull();
    boolean gone = false;
    int logged = 0;
    try {
      if (logs) {
        logged = logEvents(ctx, rec, logged);
      }
      if (progress) {
        reported = progressEvents(ctx, ids, rec, withIds, reported);
      }
      while (!ToolResults.answersNow(rec) && (request == null || !request.cancelled()) && (lease == null || !lease.revoked())) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        ExecutionRecord next = gateway.awaitChange(rec.executionId(), rec.version(), Duration.ofNanos(Math.min(left, POLL_NANOS)));
        // Not cancellation: the execution goes on; we keep following it so that a result settling
        // within the wait is recorded as not delivered, and a retry or a GET resumes it.
        gone = gone || ClientConnection.isGone(ctx.req());
        if (next.version() > rec.version()) {
          rec = next;
          if (!gone && logs) {
            logged = logEvents(ctx, rec, logged);
          }
          if (!gone && progress) {
            reported = progressEvents(ctx, ids, rec, withIds, reported);
          }
        }
      }
    } catch (IOException e) {
      gone = true;
    } catch (RuntimeException e) {
      return null; // the execution layer failed mid-stream: end the stream, the client resumes or retries
    }
    return new Watched(rec, gone);
  }

  /** The end of the stream: the result event, or nothing for a cancelled request, a gone client or a poll. */
  private void answer(Context ctx, boolean modern, EventIds ids, Watched w, boolean attached, ToolContract contract,
      String version, boolean withIds, InFlightRequests.Entry request) {
    ExecutionRecord rec = w.rec();
    boolean gone = w.gone();
    boolean answerCancellation = false;
    if (request != null && request.cancelled()) {
      ExecutionRecord after = request.awaitCancel(Duration.ofSeconds(10));
      if (after == null || after.state() != io.onceport.workflow.execution.ExecutionState.CANCELLED) {
        // Cancelled after dispatch: the execution goes on; this request gets no answer (nor does a
        // resumption of its stream), and its result is not delivered to it.
        writer.unanswered(List.of(new ResponseWriter.Pending(rec.executionId(), ids.callId(), request)));
        return;
      }
      rec = after; // cancelled before dispatch: the result says so
      answerCancellation = true;
    }
    if (gone && !ToolResults.answersNow(rec)) {
      return;
    }
    if (!ToolResults.answersNow(rec) && Protocol.V2025_11_25.equals(version) && withIds) {
      return; // polling: the client reconnects with Last-Event-ID after the retry interval
    }
    ObjectNode result = ToolResults.callResult(rec, attached, contract);
    JsonNode msg;
    if (modern) {
      result.put("resultType", "complete");
      result.with("_meta").set(Protocol.META_SERVER_INFO,
          Json.object().put("name", config.serverName()).put("version", config.serverVersion()));
    }
    msg = Json.response(ids.rpcId(), result);
    List<ResponseWriter.Pending> d = ToolResults.carriesFinalResult(rec)
        ? List.of(new ResponseWriter.Pending(rec.executionId(), ids.callId(), request)) : List.of();
    if (!d.isEmpty() && (gone || ClientConnection.isGone(ctx.req()))) {
      writer.report(d, false, "client disconnected before the result event was written");
      return;
    }
    if (request != null && !answerCancellation && !request.beginWrite()) {
      writer.unanswered(List.of(new ResponseWriter.Pending(rec.executionId(), ids.callId(), request)));
      return; // cancelled just now
    }
    try {
      write(ctx, (withIds ? "id: " + ids.id(EventIds.RESULT) + "\n" : "") + "data: " + Json.text(msg) + "\n\n");
    } catch (IOException e) {
      writer.report(d, false, "write failed: " + e.getClass().getSimpleName());
      return;
    }
    writer.written(d);
  }

  /**
   * One progress notification per transition not reported yet ({@code progress} = its 1-based
   * position in the record's transition list, so values only increase); the transition into a
   * settled state is left to the result. Returns how many transitions are now reported.
   */
  private int progressEvents(Context ctx, EventIds ids, ExecutionRecord rec, boolean withIds, int reported)
      throws IOException {
    List<ExecutionRecord.Transition> ts = rec.transitions();
    int upTo = rec.isSettled() ? ts.size() - 1 : ts.size();
    for (int i = reported; i < upTo; i++) {
      ExecutionRecord.Transition t = ts.get(i);
      ObjectNode n = Json.object();
      n.put("jsonrpc", "2.0");
      n.put("method", "notifications/progress");
      ObjectNode p = n.putObject("params");
      p.set("progressToken", ids.progressToken());
      p.put("progress", i + 1);
      p.put("message", "execution " + rec.executionId() + " " + t.state()
          + (t.detail() == null || t.detail().isEmpty() ? "" : ": " + t.detail()));
      write(ctx, (withIds ? "id: " + ids.id(Integer.toString(i + 1)) + "\n" : "") + "data: " + Json.text(n) + "\n\n");
    }
    return Math.max(reported, upTo);
  }

  /**
   * One {@code notifications/message} (level info, logger {@code onceport}) per transition not
   * logged yet, the settled one included: what the execution went through, as log lines. They carry
   * no event id; a resumed stream carries progress and the result, not the log.
   */
  private int logEvents(Context ctx, ExecutionRecord rec, int logged) throws IOException {
    List<ExecutionRecord.Transition> ts = rec.transitions();
    for (int i = logged; i < ts.size(); i++) {
      ExecutionRecord.Transition t = ts.get(i);
      ObjectNode n = Json.object();
      n.put("jsonrpc", "2.0");
      n.put("method", "notifications/message");
      ObjectNode p = n.putObject("params");
      p.put("level", "info");
      p.put("logger", "onceport");
      p.putObject("data").put("execution_id", rec.executionId()).put("state", t.state()).put("at", t.at())
          .put("message", t.detail() == null ? "" : t.detail());
      write(ctx, "data: " + Json.text(n) + "\n\n");
    }
    return ts.size();
  }

  private ToolContract contract(String tool) {
    for (ToolContract c : gateway.tools()) {
      if (c.tool().equals(tool)) {
        return c;
      }
    }
    return null;
  }

  private static void open(Context ctx) {
    ctx.status(200);
    ctx.res().setContentType("text/event-stream");
    ctx.res().setCharacterEncoding("UTF-8");
    ctx.res().setHeader("Cache-Control", "no-cache");
    ctx.res().setHeader("X-Accel-Buffering", "no");
  }

  private static void write(Context ctx, String event) throws IOException {
    try {
      OutputStream out = ctx.res().getOutputStream();
      out.write(event.getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (RuntimeException e) {
      throw new IOException(e);
    }
  }
}
