package io.onceport.frontend.mcp;

/**
 * What one agent (actor) may hold on one front end at a time, so that no agent can starve the
 * others (issue 25 item 4: 2,050 held {@code tasks/result} waits of one agent took all 2,000
 * request threads and another agent's {@code tools/list} timed out; 500 {@code initialize}s slowed
 * everyone's calls 25×). Over a limit the request is refused before anything starts — HTTP 429
 * with {@code Retry-After} — so sending it again later is always safe.
 *
 * <p>Besides these per-agent limits, long waits of all agents together never take more than the
 * request threads minus a reserve ({@link #reservedThreads}), so short requests ({@code
 * tools/list}, {@code tasks/get}, the status tool, {@code initialize}) always find a thread.
 *
 * @param longWaits concurrent long waits per agent: {@code tools/call}s waiting for an outcome or
 *     streaming it, {@code tasks/result}s, resumed SSE streams ({@code --agent-max-waits}; default
 *     {@value #DEFAULT_LONG_WAITS}: an SDK client holds one per call in flight, and a fleet of 64
 *     parallel calls of one agent is already a batch job; 30 such agents still leave the reserve)
 * @param openSessions sessions per agent used within the last {@link SessionLimits#IDLE}: MCP
 *     sessions ({@code initialize}) and run/client sessions of MCP 2026-07-28
 *     ({@code --agent-max-sessions}; default {@value #DEFAULT_OPEN_SESSIONS})
 * @param sessionsPerMinute new sessions per agent per minute ({@code --agent-sessions-per-minute};
 *     default {@value #DEFAULT_SESSIONS_PER_MINUTE}: a script that reconnects once a second)
 */
public record AgentLimits(int longWaits, int openSessions, int sessionsPerMinute) {
  public static final int DEFAULT_LONG_WAITS = 64;
  public static final int DEFAULT_OPEN_SESSIONS = 256;
  public static final int DEFAULT_SESSIONS_PER_MINUTE = 60;
  public static final AgentLimits DEFAULTS = new AgentLimits(DEFAULT_LONG_WAITS, DEFAULT_OPEN_SESSIONS, DEFAULT_SESSIONS_PER_MINUTE);

  public AgentLimits {
    if (longWaits < 1) {
      throw new IllegalArgumentException("the long waits per agent must be at least 1 (--agent-max-waits), not " + longWaits);
    }
    if (openSessions < 1) {
      throw new IllegalArgumentException("the open sessions per agent must be at least 1 (--agent-max-sessions), not " + openSessions);
    }
    if (sessionsPerMinute < 1) {
      throw new IllegalArgumentException(
          "the new sessions per agent per minute must be at least 1 (--agent-sessions-per-minute), not " + sessionsPerMinute);
    }
  }

  /**
   * Request threads no long wait may take: a tenth of them, at least 16 — with the default 2,000
   * threads, 200 serve short requests however many waits are held.
   */
  public static int reservedThreads(int maxRequestThreads) {
    return Math.min(maxRequestThreads - 1, Math.max(16, maxRequestThreads / 10));
  }
}
