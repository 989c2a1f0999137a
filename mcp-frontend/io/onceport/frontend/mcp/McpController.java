package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import io.onceport.frontend.auth.Principal;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.workflow.contract.ToolContract;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The MCP layer of {@code /mcp}, wired along the seams the official MCP SDKs use: the Streamable
 * HTTP transport ({@link StreamableHttp}: HTTP checks as one before step, sessions, SSE), typed
 * JSON-RPC messages ({@link JsonRpcMessage}), per-revision behaviour as strategies
 * ({@link Revision}) and, per revision, a method → handler map over one handler class per method
 * family ({@link LifecycleHandler}, {@link ToolsHandler}, {@link TasksHandler},
 * {@link LoggingHandler}, {@link NotificationHandler}). This class builds them and routes one
 * message through them.
 */
final class McpController {
  /** How often a waiting answer looks for a cancellation of its request. */
  static final Duration CANCEL_CHECK = Duration.ofMillis(250);
  private final McpConfig config;
  private final ScheduledExecutorService graceTimer;
  private final StreamableHttp http;
  private final SessionRevision sessionRevision;
  private final MetadataRevision metadataRevision;
  private final LongWaits waits;
  private final McpSessions sessions;
  private final ExecutionGateway gateway;
  private final Transport transport;

  McpController(McpConfig config, ExecutionGateway gateway, Transport transport) {
    this.config = config;
    this.gateway = gateway;
    this.transport = transport;
    this.graceTimer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "onceport-delivery-grace");
      t.setDaemon(true);
      return t;
    });
    // Requests in flight on this process, for notifications/cancelled and the delivery grace.
    InFlightRequests inFlight = new InFlightRequests();
    McpSessions sessions = new McpSessions(config);
    this.waits = new LongWaits(config.agentLimits().longWaits(),
        config.maxRequestThreads() - AgentLimits.reservedThreads(config.maxRequestThreads()));
    LogLevels logLevels = new LogLevels();
    ResponseWriter writer = new ResponseWriter(gateway, config.clock(), config.deliveryGrace(), graceTimer, inFlight);
    SseStreams sse = new SseStreams(config, gateway, writer, inFlight, logLevels);
    NotificationHandler notifications = new NotificationHandler(gateway, inFlight);
    LifecycleHandler lifecycle = new LifecycleHandler(config, sessions);
    TasksHandler tasks = new TasksHandler(config, gateway, inFlight, waits);
    ToolsHandler tools = new ToolsHandler(config, gateway, inFlight, writer, sse, sessions, tasks, notifications, waits);
    this.sessionRevision = new SessionRevision(sessions, notifications, lifecycle, tools, new LoggingHandler(logLevels), tasks);
    this.metadataRevision = new MetadataRevision(config, notifications, lifecycle, tools, tasks);
    this.http = new StreamableHttp(transport, sessions, gateway, inFlight, writer, sse, this::receive, waits);
    this.sessions = sessions;
  }

  /** What handling one message produced. */
  record Reply(JsonNode body, List<ResponseWriter.Pending> deliveries, boolean streamed) {
    static Reply of(JsonNode body) {
      return new Reply(body, List.of(), false);
    }

    static final Reply NONE = new Reply(null, List.of(), false);
    static final Reply STREAMED = new Reply(null, List.of(), true);
  }

  /** The transport whose routes {@link McpServer} registers. */
  StreamableHttp http() {
    return http;
  }

  /**
   * One JSON-RPC message of a POST: classified, checked for a usable intent key, admitted by its
   * revision and answered by that revision's handler for the method. {@link Reply#NONE} for a
   * response or a notification.
   */
  Reply receive(Context ctx, String actor, JsonNode message, boolean inBatch, Transport.Accepts accepts) {
    if (!(JsonRpcMessage.parse(message) instanceof JsonRpcMessage.Call call)) {
      return Reply.NONE; // a response to nothing we asked: accepted, 202
    }
    if (!config.tracing().enabled()) {
      return handle(ctx, actor, call, inBatch, accepts);
    }
    Span span = McpSpans.start(config.tracing(), ctx, call);
    try (Scope ignored = span.makeCurrent()) {
      return handle(ctx, actor, call, inBatch, accepts);
    } catch (RuntimeException e) {
      McpSpans.failed(span, e);
      throw e;
    } finally {
      span.end();
    }
  }

  private Reply handle(Context ctx, String actor, JsonRpcMessage.Call call, boolean inBatch, Transport.Accepts accepts) {
    Transport.checkIntentKey(ctx, call.method(), call.params(), call.id());
    checkScope(ctx, call);
    Revision revision = MetadataRevision.claims(ctx, call, inBatch) ? metadataRevision : sessionRevision;
    Optional<Exchange> ex = revision.admit(ctx, actor, call, inBatch);
    return ex.isEmpty() ? Reply.NONE : revision.dispatch(ex.get(), accepts);
  }

  /** A {@code tools/call} of a contract tool needs a scope that allows it (OAuth tokens only; 403 otherwise). */
  private void checkScope(Context ctx, JsonRpcMessage.Call call) {
    Principal principal = ctx.attribute(StreamableHttp.PRINCIPAL);
    if (principal == null || !principal.scoped() || !"tools/call".equals(call.method()) || call.params() == null) {
      return;
    }
    ToolContract contract = ToolsHandler.contract(gateway, call.params().path("name").asText(""));
    if (contract != null) { // unknown tools and the built-in status tool are answered by the handler as before
      transport.checkScope(ctx, principal, contract.tool(), contract.replayClass().wireName(), call.id());
    }
  }

  /**
   * An agent's credential was removed or replaced: every wait and stream of it on this front end
   * ends now, and the agent sessions it opened here are ended in their session workflows. Returns
   * how many waits ended; throws (after ending what it could) when a session could not be ended,
   * so that the caller tries again.
   */
  int credentialRemoved(String actor, String generation, String reason) {
    int ended = waits.revoke(actor, generation, reason);
    sessions.endAll(actor, generation, reason);
    return ended;
  }

  int longWaits(String actor) {
    return waits.active(actor);
  }

  /** Decides the deliveries still in their grace now, then stops the timer. */
  void close() {
    graceTimer.shutdown();
    try {
      graceTimer.awaitTermination(config.deliveryGrace().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
