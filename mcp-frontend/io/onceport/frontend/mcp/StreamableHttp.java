package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.onceport.frontend.auth.Principal;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.mcp.McpController.Reply;
import io.onceport.workflow.execution.ExecutionRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The Streamable HTTP transport of {@code /mcp}: POST carries JSON-RPC (one message, or a batch in
 * 2025-03-26) and is answered with JSON, an SSE stream or 202; GET with {@code Last-Event-ID}
 * resumes a {@code tools/call} stream; DELETE ends a session. {@link #before} runs first for each
 * of the three — Origin, authentication, the revision's method rules, Accept and Content-Type —
 * so no route handler repeats a check, and the handlers find the actor on the context.
 */
final class StreamableHttp {
  /** Context attribute holding the authenticated actor, set by {@link #before}. */
  static final String ACTOR = "onceport.actor";
  /** Context attribute holding the authenticated {@link Principal} (actor and scopes), set by {@link #before}. */
  static final String PRINCIPAL = "onceport.principal";
  private static final Transport.Accepts JSON_ONLY = new Transport.Accepts(true, false, 1, 0, false);

  /** Answers one JSON-RPC message of a POST body. */
  @FunctionalInterface
  interface Receiver {
    Reply receive(Context ctx, String actor, JsonNode message, boolean inBatch, Transport.Accepts accepts);
  }

  private final Transport transport;
  private final McpSessions sessions;
  private final ExecutionGateway gateway;
  private final InFlightRequests inFlight;
  private final ResponseWriter writer;
  private final SseStreams sse;
  private final Receiver receiver;
  private final LongWaits waits;

  StreamableHttp(Transport transport, McpSessions sessions, ExecutionGateway gateway, InFlightRequests inFlight,
      ResponseWriter writer, SseStreams sse, Receiver receiver, LongWaits waits) {
    this.waits = waits;
    this.transport = transport;
    this.sessions = sessions;
    this.gateway = gateway;
    this.inFlight = inFlight;
    this.writer = writer;
    this.sse = sse;
    this.receiver = receiver;
  }

  /**
   * The HTTP checks of a matched {@code /mcp} route, in the order clients see their refusals: Host
   * and Origin (403), the bearer token (401), then per method — POST: Accept (406) and Content-Type
   * (415); GET: no stream in 2026-07-28 (405), Accept (406); DELETE: no sessions in 2026-07-28 (405).
   */
  void before(Context ctx) {
    transport.checkOrigin(ctx);
    Principal principal = transport.authenticate(ctx);
    ctx.attribute(PRINCIPAL, principal);
    ctx.attribute(ACTOR, principal.actor());
    HandlerType method = ctx.method();
    if (method.equals(HandlerType.POST)) {
      Transport.Accepts accepts = Transport.accepts(ctx);
      if (!accepts.json() && !accepts.sse()) {
        throw McpException.http(406, McpException.TRANSPORT,
            "Not Acceptable: the client must accept application/json or text/event-stream", null);
      }
      Transport.checkContentType(ctx);
    } else if (method.equals(HandlerType.GET)) {
      refuseModern(ctx, "has no GET stream");
      if (!Transport.accepts(ctx).sse()) {
        throw McpException.http(406, McpException.TRANSPORT, "Not Acceptable: GET needs Accept: text/event-stream", null);
      }
    } else if (method.equals(HandlerType.DELETE)) {
      refuseModern(ctx, "has no sessions");
    }
  }

  private static void refuseModern(Context ctx, String lacks) {
    String version = ctx.header("MCP-Protocol-Version");
    if (Protocol.looksModern(version)) {
      throw McpException.http(405, McpException.TRANSPORT, "Method Not Allowed: protocol version " + version + " " + lacks, null);
    }
  }

  /** The credential generation of the request's principal, or null (none, or no principal yet). */
  static String generation(Context ctx) {
    Principal principal = ctx.attribute(PRINCIPAL);
    return principal == null ? null : principal.generation();
  }

  private static String actor(Context ctx) {
    String actor = ctx.attribute(ACTOR);
    if (actor == null) {
      throw new IllegalStateException("/mcp route without its before step");
    }
    return actor;
  }

  // ---- POST -------------------------------------------------------------------------------

  void post(Context ctx) {
    String actor = actor(ctx);
    JsonNode msg = Json.parseRequest(ctx.bodyAsBytes());
    if (msg.isArray()) {
      postBatch(ctx, actor, (ArrayNode) msg);
      return;
    }
    Reply reply = receiver.receive(ctx, actor, msg, false, Transport.accepts(ctx));
    if (reply.streamed()) {
      return;
    }
    if (reply.body() == null) {
      ctx.status(202);
      return;
    }
    writer.writeJson(ctx, 200, Json.bytes(reply.body()), reply.deliveries());
  }

  /** A 2025-03-26 batch: answered as one JSON array (never streamed), 202 when nothing in it needs an answer. */
  private void postBatch(Context ctx, String actor, ArrayNode batch) {
    checkBatchAllowed(ctx, actor);
    if (batch.isEmpty()) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: empty batch", null);
    }
    ArrayNode out = Json.MAPPER.createArrayNode();
    List<ResponseWriter.Pending> deliveries = new ArrayList<>();
    for (JsonNode m : batch) {
      try {
        Reply r = receiver.receive(ctx, actor, m, true, JSON_ONLY);
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

  private void checkBatchAllowed(Context ctx, String actor) {
    String sid = ctx.header("Mcp-Session-Id");
    if (sid == null || Protocol.looksModern(ctx.header("MCP-Protocol-Version"))) {
      String v = sid == null ? "without a session" : ctx.header("MCP-Protocol-Version");
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: batches are not supported in "
          + (sid == null ? "requests " + v : "protocol version " + v) + "; send one JSON-RPC message per POST", null);
    }
    Session session = sessions.require(ctx, actor, null);
    String version = sessions.version(ctx, session, null);
    if (!Protocol.allowsBatch(version)) {
      throw McpException.http(400, McpException.INVALID_REQUEST, "Invalid Request: batches are not supported in "
          + "protocol version " + version + "; send one JSON-RPC message per POST", null);
    }
  }

  // ---- GET / DELETE -----------------------------------------------------------------------

  /** Resumes the {@code tools/call} stream named by {@code Last-Event-ID}; there is no standalone stream. */
  void get(Context ctx) {
    String actor = actor(ctx);
    String last = ctx.header("Last-Event-ID");
    if (last == null) {
      ctx.header("Allow", "POST, DELETE");
      throw McpException.http(405, McpException.TRANSPORT,
          "Method Not Allowed: no standalone stream; GET with Last-Event-ID resumes a tools/call stream", null);
    }
    Session session = sessions.require(ctx, actor, null);
    sessions.version(ctx, session, null);
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
    try (LongWaits.Lease lease = waits.open(actor, generation(ctx), ctx.req(), null)) {
      sse.resume(ctx, session, ids, rec, lease);
    }
  }

  void delete(Context ctx) {
    String actor = actor(ctx);
    sessions.end(actor, sessions.require(ctx, actor, null));
    ctx.status(204);
  }
}
