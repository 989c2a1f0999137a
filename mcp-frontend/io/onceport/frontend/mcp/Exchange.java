package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import io.onceport.frontend.auth.SessionIds;

/**
 * One JSON-RPC request as the MCP layer sees it after transport checks: who sent it, in which
 * revision, on which session (legacy revisions) and with which per-request metadata (2026-07-28).
 *
 * @param session null for 2026-07-28 requests and for {@code initialize}
 * @param revision the revision family whose rules admitted it and which shapes its answers
 * @param id null for notifications
 */
record Exchange(
    Context ctx,
    String actor,
    Session session,
    String protocolVersion,
    Revision revision,
    JsonNode id,
    String method,
    JsonNode params,
    ClientInfo client,
    boolean inBatch) {

  /** True for the per-request-metadata revision (2026-07-28). */
  boolean modern() {
    return revision.modern();
  }

  /** The result as this revision answers it (a JSON-RPC response). */
  JsonNode answer(com.fasterxml.jackson.databind.node.ObjectNode result) {
    return revision.answer(this, result);
  }

  JsonNode meta() {
    return params == null ? Json.MAPPER.missingNode() : params.path("_meta");
  }

  /** The agent session of a call ({@link SessionIds}): the MCP session, else the run, else the client. */
  String gatewaySession(String runId) {
    return SessionIds.forCall(actor, generation(), session != null ? session.nonce() : null, runId, client.name(), client.version());
  }

  /** The generation of the credential this request came with (sessions are bound to it), or null. */
  String generation() {
    return StreamableHttp.generation(ctx);
  }

  /** {@code name/version} of the client, or null: evidence on the record. */
  String clientInfo() {
    return client.display();
  }
}
