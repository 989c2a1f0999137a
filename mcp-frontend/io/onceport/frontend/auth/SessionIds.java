package io.onceport.frontend.auth;

import java.util.Objects;

/**
 * Which agent session a call belongs to — the unit an operator authorizes (rung 4 of the ladder)
 * and the sessions journal records. See docs/sessions.md.
 *
 * <ol>
 *   <li>MCP 2025 revisions: the protocol session ({@code Mcp-Session-Id}) → {@code mcp:<id>}
 *   <li>MCP 2026-07-28 has no protocol sessions: the agent run, {@code _meta["onceport/run"]} or
 *       header {@code Onceport-Run} → {@code run:<actor>:<run id>} (scoped by actor, so another
 *       actor naming the same run is a different session)
 *   <li>failing that, the actor and the client it uses → {@code client:<actor>:<name>/<version>}
 *       ({@code client:<actor>:unknown} when the client sent no name)
 * </ol>
 *
 * Pure and deterministic: every front end computes the same id for the same call.
 */
public final class SessionIds {
  private SessionIds() {}

  /**
   * @param actor the authenticated actor (never null)
   * @param mcpSessionId the {@code Mcp-Session-Id} of a 2025-revision session, or null
   * @param runId the run id from {@code _meta["onceport/run"]} or {@code Onceport-Run}, or null
   * @param clientName {@code clientInfo.name} from {@code initialize} (or {@code _meta}), or null
   * @param clientVersion {@code clientInfo.version}, or null
   */
  public static String forCall(String actor, String mcpSessionId, String runId, String clientName, String clientVersion) {
    Objects.requireNonNull(actor, "actor == null");
    if (present(mcpSessionId)) {
      return "mcp:" + mcpSessionId.strip();
    }
    if (present(runId)) {
      return "run:" + actor + ":" + runId.strip();
    }
    String client = present(clientName) ? clientName.strip() + (present(clientVersion) ? "/" + clientVersion.strip() : "") : "unknown";
    return "client:" + actor + ":" + client;
  }

  /**
   * The same rule for a front end that keeps client info as one {@code name/version} string (as
   * the MCP layer's sessions do): {@code client:<actor>:<clientInfo>}, {@code unknown} when null.
   */
  public static String forCall(String actor, String mcpSessionId, String runId, String clientInfo) {
    if (!present(mcpSessionId) && !present(runId) && present(clientInfo)) {
      Objects.requireNonNull(actor, "actor == null");
      String ci = clientInfo.strip();
      return "client:" + actor + ":" + (ci.endsWith("/") ? ci.substring(0, ci.length() - 1) : ci);
    }
    return forCall(actor, mcpSessionId, runId, null, null);
  }

  private static boolean present(String s) {
    return s != null && !s.isBlank();
  }
}
