package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * The behaviour of one family of protocol revisions, as a strategy: how a call is admitted (the
 * transport rules of the revision), which methods it has and how its results are shaped. The
 * session-based revisions 2025-03-26 to 2025-11-25 ({@link SessionRevision}) negotiate once in
 * {@code initialize} and carry a signed session; 2026-07-28 ({@link MetadataRevision}) carries the
 * version and client in every request's {@code _meta} and mirrors them in headers. Everything
 * that differs between the two lives behind this interface, so a handler asks the exchange's
 * revision instead of testing version strings.
 */
sealed interface Revision permits SessionRevision, MetadataRevision {

  /** True for the per-request-metadata revision. */
  boolean modern();

  /**
   * Checks the revision's transport rules for one call and builds its exchange.
   *
   * @return the exchange to answer, or empty when the call was a notification (already handled)
   */
  Optional<Exchange> admit(Context ctx, String actor, JsonRpcMessage.Call call, boolean inBatch);

  /** Runs the method the exchange names (a JSON-RPC error for one this revision does not have). */
  McpController.Reply dispatch(Exchange ex, Transport.Accepts accepts);

  /** The JSON-RPC response carrying {@code result}, shaped as this revision answers. */
  JsonNode answer(Exchange ex, ObjectNode result);

  /** The client named in {@code _meta} ({@link ClientInfo#NONE} when none is). */
  static ClientInfo clientInfoFromMeta(JsonNode meta) {
    JsonNode ci = meta.path(Protocol.META_CLIENT_INFO);
    if (ci.isObject() && ci.path("name").isTextual()) {
      return new ClientInfo(ci.get("name").asText(), ci.path("version").isTextual() ? ci.get("version").asText() : null);
    }
    JsonNode own = meta.path("onceport/client");
    return own.isTextual() ? new ClientInfo(own.asText(), null) : ClientInfo.NONE;
  }
}
