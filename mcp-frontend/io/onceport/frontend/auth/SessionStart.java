package io.onceport.frontend.auth;

import java.time.Instant;
import java.util.Objects;

/**
 * An agent session as the MCP layer sees it begin ({@code initialize}, or the first call of a run).
 *
 * @param sessionId from {@link SessionIds#forCall}
 * @param clientName {@code clientInfo.name}, or null
 * @param clientVersion {@code clientInfo.version}, or null
 * @param protocolVersion the negotiated MCP protocol version, or null
 * @param remoteAddress the peer address, or null
 */
public record SessionStart(
    String actor,
    String sessionId,
    String clientName,
    String clientVersion,
    String protocolVersion,
    String remoteAddress,
    Instant at) {
  public SessionStart {
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(sessionId, "sessionId == null");
    Objects.requireNonNull(at, "at == null");
  }
}
