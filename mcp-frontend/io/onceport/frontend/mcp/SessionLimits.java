package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The session limits of {@link AgentLimits}, per actor on this front end: how many sessions an
 * agent has open (used within {@link #IDLE}) and how many it opened in the current minute. A
 * session over either limit is refused with HTTP 429 and {@code Retry-After} before it exists: no
 * signed session id, no session workflow, nothing recorded.
 *
 * <p>Both are Caffeine caches (bounded, expiring) rather than hand-written maps: the minute is a
 * window that opens with an agent's first new session and closes a minute later
 * (expire-after-write); an open session is forgotten after {@link #IDLE} without a request
 * (expire-after-access). A fixed window admits at most twice the rate across a window boundary,
 * which is enough to stop a flood; no token bucket library is among the dependencies.
 */
final class SessionLimits {
  /** A session without a request for this long no longer counts as open (it may still be used). */
  static final Duration IDLE = Duration.ofMinutes(10);
  private static final Duration WINDOW = Duration.ofMinutes(1);
  /** Agents tracked at once; an agent forgotten beyond this only gets a fresh count. */
  private static final int MAX_AGENTS = 10_000;

  private final AgentLimits limits;
  private final Cache<String, Cache<String, Boolean>> open;
  private final Cache<String, Window> windows;

  /** The current minute of one agent: when it opened (nanoTime) and how many sessions it created. */
  private static final class Window {
    final long openedNanos = System.nanoTime();
    int created;
  }

  SessionLimits(AgentLimits limits) {
    this.limits = Objects.requireNonNull(limits, "limits == null");
    this.open = Caffeine.newBuilder().maximumSize(MAX_AGENTS).expireAfterAccess(IDLE).build();
    this.windows = Caffeine.newBuilder().maximumSize(MAX_AGENTS).expireAfterWrite(WINDOW).build();
  }

  private Cache<String, Boolean> sessionsOf(String actor) {
    return open.get(actor, a -> Caffeine.newBuilder().maximumSize(limits.openSessions() + 1L).expireAfterAccess(IDLE).build());
  }

  /**
   * Admits session {@code key} of {@code actor}: a session already open is only touched; a new one
   * counts against both limits, or is refused with HTTP 429.
   */
  void admit(String actor, String key, JsonNode id) {
    Cache<String, Boolean> sessions = sessionsOf(actor);
    if (sessions.getIfPresent(key) != null) {
      return;
    }
    synchronized (sessions) {
      if (sessions.getIfPresent(key) != null) {
        return;
      }
      sessions.cleanUp();
      if (sessions.estimatedSize() >= limits.openSessions()) {
        throw McpException.busy("Busy: agent " + actor + " has " + limits.openSessions() + " open sessions, its limit on "
            + "this server (--agent-max-sessions); end one (HTTP DELETE) or reuse it, or wait until one has been idle for "
            + IDLE.toMinutes() + " minutes", id, 60);
      }
      Window w = windows.get(actor, a -> new Window());
      synchronized (w) {
        if (w.created >= limits.sessionsPerMinute()) {
          long left = WINDOW.toNanos() - (System.nanoTime() - w.openedNanos);
          throw McpException.busy("Busy: agent " + actor + " opened " + limits.sessionsPerMinute() + " sessions this minute, "
              + "its limit on this server (--agent-sessions-per-minute); reuse a session, or retry after the Retry-After "
              + "seconds", id, TimeUnit.NANOSECONDS.toSeconds(Math.max(0, left)) + 1);
        }
        w.created++;
      }
      sessions.put(key, Boolean.TRUE);
    }
  }

  /** A request of an open session: it stays open. */
  void touch(String actor, String key) {
    Cache<String, Boolean> sessions = open.getIfPresent(actor);
    if (sessions != null) {
      sessions.getIfPresent(key);
    }
  }

  /** The session ended (HTTP DELETE): it no longer counts. */
  void close(String actor, String key) {
    Cache<String, Boolean> sessions = open.getIfPresent(actor);
    if (sessions != null) {
      sessions.invalidate(key);
    }
  }
}
