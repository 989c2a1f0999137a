package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.javalin.http.Context;
import io.onceport.frontend.auth.SessionIds;
import io.onceport.frontend.auth.SessionStart;
import io.onceport.workflow.ids.AgentSessionId;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's sessions: the signed {@code Mcp-Session-Id} of the session-based revisions (issued
 * by {@code initialize}, required on every later request, ended by DELETE) and the record of agent
 * sessions in the session journal. Recording is best effort: a failure to record never fails the
 * request itself.
 */
final class McpSessions {
  private static final Logger log = LoggerFactory.getLogger(McpSessions.class);
  /** Sessions whose start this front end already recorded; see {@link #recordStart}. */
  static final int MAX_RECORDED_SESSIONS = 10_000;
  private final McpConfig config;
  private final SessionTokens tokens;
  private final SessionLimits limits;
  /**
   * Sessions this front end saw, true once their start was recorded ({@value #MAX_RECORDED_SESSIONS},
   * each forgotten an hour after its last call): a run's every call must not signal its session
   * again. Forgetting is safe: a repeated start is ignored by the session record.
   */
  private final Cache<String, Boolean> recorded = Caffeine.newBuilder().maximumSize(MAX_RECORDED_SESSIONS).expireAfterAccess(Duration.ofHours(1)).build();

  McpSessions(McpConfig config) {
    this.config = config;
    this.limits = new SessionLimits(config.agentLimits());
    this.tokens = new SessionTokens(config.sessionKey(), config.sessionTtl().toSeconds(), config.sessionRevocations());
  }

  /** The request's session: 400 without {@code Mcp-Session-Id}, 404 when it ended, expired or is another actor's. */
  Session require(Context ctx, String actor, JsonNode id) {
    String sid = ctx.header("Mcp-Session-Id");
    if (sid == null || sid.isBlank()) {
      throw McpException.http(400, McpException.TRANSPORT,
          "Bad Request: the Mcp-Session-Id header is required (call initialize first)", id);
    }
    Optional<Session> s = tokens.verify(sid.trim(), now());
    // A session serves the credential it was opened with: after the agent's token was replaced
    // (remove, then add) its old sessions are gone, and their authorizations with them.
    if (s.isEmpty() || !s.get().actor().equals(actor) || !Objects.equals(s.get().generation(), StreamableHttp.generation(ctx))) {
      throw McpException.http(404, McpException.SESSION_NOT_FOUND,
          "Session not found: it was ended or has expired; initialize a new session", id);
    }
    limits.touch(actor, s.get().nonce());
    return s.get();
  }

  /** The revision of a session request: its {@code MCP-Protocol-Version} header, else the negotiated one. */
  String version(Context ctx, Session session, JsonNode id) {
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

  /** A new MCP session, or HTTP 429 when {@code actor} is over its session limits ({@link SessionLimits}). */
  Session issue(String actor, String generation, String version, ClientInfo client, JsonNode id) {
    Session s = tokens.issue(actor, generation, version, client, now());
    limits.admit(actor, s.nonce(), id); // refused: the id was never handed out, nothing was stored
    return s;
  }

  /** A 2026-07-28 call's session ({@code run:}/{@code client:}): counted against the agent's session limits, or HTTP 429. */
  void admit(String actor, String sessionId, JsonNode id) {
    limits.admit(actor, sessionId, id);
  }

  /** DELETE: the session is revoked on every front end sharing the revocations, and its end recorded. */
  void end(String actor, Session session) {
    tokens.revoke(session);
    limits.close(actor, session.nonce());
    try {
      config.sessionRegistry().ended(actor, sessionId(session), "deleted by the client");
    } catch (RuntimeException e) {
      log.warn("could not record the end of a session: {}", e.getMessage());
    }
  }

  /**
   * Ends, in their session workflows, the sessions of {@code actor}'s credential {@code generation}
   * this front end recorded (every one of the actor's when {@code generation} is null): its
   * credential was removed. Their ids name actor and generation ({@link AgentSessionId}), so a
   * re-added agent's sessions are other sessions and start undecided.
   *
   * @throws IllegalStateException when one of them could not be ended (it stays recorded, and the
   *     others were ended): call again
   */
  void endAll(String actor, String generation, String reason) {
    RuntimeException failed = null;
    for (String sessionId : List.copyOf(recorded.asMap().keySet())) {
      AgentSessionId s = AgentSessionId.parse(sessionId).orElse(null);
      if (s == null || !s.actor().equals(actor) || (generation != null && !generation.equals(s.generation()))) {
        continue;
      }
      try {
        config.sessionRegistry().credentialRemoved(actor, sessionId, reason);
        recorded.asMap().remove(sessionId);
      } catch (RuntimeException e) {
        // Kept: the caller (CredentialWatcher) calls again until every one of them is ended.
        failed = failed != null ? failed : new IllegalStateException("could not record the end of session " + sessionId, e);
        log.warn("could not record the end of session {}: {}", sessionId, e.getMessage());
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /** The agent session id of an MCP session ({@link SessionIds}: its actor, credential generation and nonce). */
  static String sessionId(Session session) {
    return SessionIds.forCall(session.actor(), session.generation(), session.nonce(), null, null, null);
  }

  /**
   * Records an agent session's start, once per session on this front end. A start that could not
   * be recorded is tried again with the session's next call, and the session stays known here
   * meanwhile: the worker may start its workflow anyway (an execution waiting for its decision), and
   * {@link #endAll} must still end it.
   */
  void recordStart(String actor, String sessionId, String clientName, String clientVersion, String version, String remote) {
    boolean[] first = {false};
    recorded.asMap().compute(sessionId, (k, started) -> {
      first[0] = started == null || !started;
      return Boolean.TRUE;
    });
    if (!first[0]) {
      return;
    }
    try {
      config.sessionRegistry().started(new SessionStart(
          actor, sessionId, clientName, clientVersion, version, remote, config.clock().instant()));
    } catch (RuntimeException e) {
      recorded.asMap().put(sessionId, Boolean.FALSE);
      log.warn("could not record session {}: {}", sessionId, e.getMessage());
    }
  }

  private long now() {
    return config.clock().instant().getEpochSecond();
  }
}
