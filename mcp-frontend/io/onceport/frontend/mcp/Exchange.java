package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;

/**
 * One JSON-RPC request as the MCP layer sees it after transport checks: who sent it, in which
 * revision, on which session (legacy revisions) and with which per-request metadata (2026-07-28).
 *
 * @param session null for 2026-07-28 requests and for {@code initialize}
 * @param id null for notifications
 */
record Exchange(
    Context ctx,
    String actor,
    Session session,
    String protocolVersion,
    boolean modern,
    JsonNode id,
    String method,
    JsonNode params,
    String clientInfo,
    boolean inBatch) {

  JsonNode meta() {
    return params == null ? Json.MAPPER.missingNode() : params.path("_meta");
  }

  /** The session id handed to the gateway: the session's nonce, or the run id in 2026-07-28. */
  String gatewaySession(String runId) {
    return io.onceport.frontend.auth.SessionIds.forCall(actor, session != null ? session.nonce() : null, runId, clientInfo);
  }
}
