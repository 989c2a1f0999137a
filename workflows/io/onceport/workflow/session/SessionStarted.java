package io.onceport.workflow.session;

import java.util.Objects;

/**
 * The session as the MCP layer saw it begin. Evidence only: client name and version come from
 * {@code initialize} and are whatever the client claims.
 *
 * @param at ISO-8601 time the front end saw the session start
 */
public record SessionStarted(
    String sessionId,
    String actor,
    String clientName,
    String clientVersion,
    String protocolVersion,
    String remoteAddress,
    String at) {
  public SessionStarted {
    Objects.requireNonNull(sessionId, "sessionId == null");
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(at, "at == null");
  }

  /** {@code name/version}, or null when the client sent no name. */
  public String clientInfo() {
    if (clientName == null) {
      return null;
    }
    return clientVersion == null ? clientName : clientName + "/" + clientVersion;
  }
}
