package io.onceport.frontend.mcp;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.List;

/**
 * Log levels set with {@code logging/setLevel}, by session nonce. Best effort and per front end
 * (sessions are stateless tokens): only a session that asked for {@code debug} or {@code info}
 * gets the execution's transitions as log messages; one that set nothing gets none.
 */
final class LogLevels {
  /** The MCP (syslog) levels, most verbose first. */
  static final List<String> NAMES = List.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");
  /** Sessions whose log level is remembered (each for a day after its last use). */
  static final int MAX_LOG_LEVELS = 10_000;
  private final Cache<String, String> levels = Caffeine.newBuilder().maximumSize(MAX_LOG_LEVELS).expireAfterAccess(Duration.ofHours(24)).build();

  static boolean isLevel(String level) {
    return level != null && NAMES.contains(level);
  }

  /** @throws IllegalArgumentException for a name not in {@link #NAMES} */
  void set(Session session, String level) {
    if (!isLevel(level)) {
      throw new IllegalArgumentException("not a log level: " + level);
    }
    levels.put(session.nonce(), level);
  }

  /** True when a session asked for {@code info} messages (its level is debug or info). */
  boolean logsInfo(Session session) {
    String level = session == null ? null : levels.getIfPresent(session.nonce());
    return level != null && NAMES.indexOf(level) <= NAMES.indexOf("info");
  }
}
