package io.onceport.frontend.auth;

import io.onceport.workflow.ids.AgentSessionId;
import java.util.Objects;

/**
 * Which agent session a call belongs to — the unit an operator authorizes (rung 4 of the ladder)
 * and the sessions journal records. See docs/sessions.md. First match wins:
 *
 * <ol>
 *   <li>MCP 2025 revisions: the protocol session ({@code Mcp-Session-Id}) → {@code
 *       mcp:<actor>~<generation>/<nonce>}
 *   <li>MCP 2026-07-28 has no protocol sessions: the agent run, {@code _meta["onceport/run"]} or
 *       header {@code Onceport-Run} → {@code run:<actor>~<generation>/<run id>}
 *   <li>failing that, the actor and the client it uses → {@code
 *       client:<actor>~<generation>/<name>/<version>} ({@code client:<actor>~<generation>} when the
 *       client sent no name)
 * </ol>
 *
 * Each part is escaped ({@link AgentSessionId}), so the id is unambiguous whatever an actor, run
 * id or client name contains: {@code agent:ci} in run {@code prod:nightly} and {@code agent:ci:prod}
 * in run {@code nightly} are two sessions. The actor and its credential generation are in every
 * id: a session never outlives the token it was opened with, and never belongs to two actors.
 * Parts are stripped of surrounding white space; a blank part counts as absent.
 *
 * <p>Pure and deterministic: every front end computes the same id for the same call.
 */
public final class SessionIds {
  private SessionIds() {}

  /** As {@link #forCall(String, String, String, String, String, String)} for an identity without a credential generation. */
  public static String forCall(String actor, String mcpSessionId, String runId, String clientName, String clientVersion) {
    return forCall(actor, null, mcpSessionId, runId, clientName, clientVersion);
  }

  /**
   * @param actor the authenticated actor (never null)
   * @param generation the actor's credential generation ({@link AgentRegistry}), or null when its
   *     credential has none
   * @param mcpSessionId the nonce of a 2025-revision session ({@code Mcp-Session-Id}), or null
   * @param runId the run id from {@code _meta["onceport/run"]} or {@code Onceport-Run}, or null
   * @param clientName {@code clientInfo.name} from {@code initialize} (or {@code _meta}), or null
   * @param clientVersion {@code clientInfo.version}, or null
   */
  public static String forCall(String actor, String generation, String mcpSessionId, String runId, String clientName,
      String clientVersion) {
    Objects.requireNonNull(actor, "actor == null");
    String gen = present(generation) ? generation : null;
    if (present(mcpSessionId)) {
      return AgentSessionId.mcp(actor, gen, mcpSessionId.strip()).id();
    }
    if (present(runId)) {
      return AgentSessionId.run(actor, gen, runId.strip()).id();
    }
    String name = present(clientName) ? clientName.strip() : null;
    String version = name != null && present(clientVersion) ? clientVersion.strip() : null;
    return AgentSessionId.client(actor, gen, name, version).id();
  }

  /** The actor's own session, for a call that names none. */
  public static String forActor(String actor, String generation) {
    return AgentSessionId.actor(Objects.requireNonNull(actor, "actor == null"), present(generation) ? generation : null).id();
  }

  private static boolean present(String s) {
    return s != null && !s.isBlank();
  }
}
