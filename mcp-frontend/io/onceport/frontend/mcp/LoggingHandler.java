package io.onceport.frontend.mcp;

import io.onceport.frontend.mcp.McpController.Reply;

/** {@code logging/setLevel} (session-based revisions): remembers the session's level in {@link LogLevels}. */
final class LoggingHandler {
  private final LogLevels levels;

  LoggingHandler(LogLevels levels) {
    this.levels = levels;
  }

  Reply setLevel(Exchange ex, Transport.Accepts accepts) {
    String level = ex.params() == null ? null : ex.params().path("level").asText(null);
    if (!LogLevels.isLevel(level)) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: level must be one of " + LogLevels.NAMES, ex.id());
    }
    if (ex.session() != null) {
      levels.set(ex.session(), level);
    }
    return Reply.of(ex.answer(Json.object()));
  }
}
