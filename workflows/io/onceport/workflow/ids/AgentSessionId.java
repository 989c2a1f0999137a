package io.onceport.workflow.ids;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An agent session id as operators see it in {@code sessions list/show/authorize}, the ladder and
 * the journals: the kind, the actor it belongs to (with its credential generation, when its
 * credential has one), then the kind's parts, each {@link IdParts#escape escaped}:
 *
 * <pre>
 *   mcp:agent:deployer~4be1f0a2/Zx8QmT2v…          an MCP session (its random nonce)
 *   run:agent:ci~4be1f0a2/prod:nightly             a run (_meta "onceport/run" or header Onceport-Run)
 *   client:agent:ci~4be1f0a2/claude-code/1.4       the actor's client (name, then version)
 *   client:agent:ci~4be1f0a2                       the actor, no client named
 *   actor:oauth:corp%2F00u1abc                     the actor's own session (no session id at all)
 *   grant:agent:deployer~4be1f0a2                  an operator's grant to the actor for a period
 *   grant:agent:deployer~4be1f0a2/2026-12-13T17:00:00Z   the same grant as signed: it names its end
 * </pre>
 *
 * An escaped part holds neither {@code /} nor {@code ~}, the kind ends at the first {@code :}, and
 * a part is never empty, so one id is one (kind, actor, generation, parts) and {@link #parse}
 * gives it back: {@code agent:ci} in run {@code prod:nightly} ({@code run:agent:ci/prod:nightly})
 * is not {@code agent:ci:prod} in run {@code nightly} ({@code run:agent:ci:prod/nightly}). Ids
 * stay readable: {@code :}, {@code .}, {@code -}, {@code @} and the rest of printable ASCII are
 * kept; space, controls, ANSI escapes and non-ASCII become {@code %XX}, so an id pastes and never
 * steers a terminal.
 *
 * @param generation the actor's credential generation ({@code AgentRegistry}: a new one with every
 *     new token), or null for an identity whose credential has none (e.g. an OAuth subject)
 * @param parts the run id (run), the nonce (mcp), the client name and version (client, 0 to 2), none (actor)
 */
public record AgentSessionId(Kind kind, String actor, String generation, List<String> parts) {
  /** What the session is; the word before the first {@code :}. */
  public enum Kind {
    MCP("mcp", 1, 1),
    RUN("run", 1, 1),
    CLIENT("client", 0, 2),
    ACTOR("actor", 0, 0),
    /**
     * {@code onceport sessions authorize --agent ACTOR --for P7D}: every session of the actor (and
     * credential generation) is authorized until the grant ends. The signed statement names the
     * end as the one part, so the period is signed; the grant's session workflow has none.
     */
    GRANT("grant", 0, 1);

    final String word;
    final int minParts;
    final int maxParts;

    Kind(String word, int minParts, int maxParts) {
      this.word = word;
      this.minParts = minParts;
      this.maxParts = maxParts;
    }

    public String word() {
      return word;
    }
  }

  public AgentSessionId {
    Objects.requireNonNull(kind, "kind == null");
    Objects.requireNonNull(actor, "actor == null");
    parts = List.copyOf(Objects.requireNonNull(parts, "parts == null"));
    if (actor.isEmpty()) {
      throw new IllegalArgumentException("Invalid session: empty actor");
    }
    if (generation != null && generation.isEmpty()) {
      throw new IllegalArgumentException("Invalid session: empty credential generation (null when there is none)");
    }
    if (parts.size() < kind.minParts || parts.size() > kind.maxParts) {
      throw new IllegalArgumentException("Invalid " + kind.word + " session: " + parts.size() + " parts (expected "
          + kind.minParts + (kind.maxParts == kind.minParts ? "" : " to " + kind.maxParts) + ")");
    }
    for (String p : parts) {
      if (p.isEmpty()) {
        throw new IllegalArgumentException("Invalid " + kind.word + " session: an empty part");
      }
    }
  }

  public static AgentSessionId mcp(String actor, String generation, String nonce) {
    return new AgentSessionId(Kind.MCP, actor, generation, List.of(nonce));
  }

  public static AgentSessionId run(String actor, String generation, String runId) {
    return new AgentSessionId(Kind.RUN, actor, generation, List.of(runId));
  }

  /** @param name the client's name, or null; @param version its version, or null (ignored without a name) */
  public static AgentSessionId client(String actor, String generation, String name, String version) {
    List<String> parts = new ArrayList<>(2);
    if (name != null) {
      parts.add(name);
      if (version != null) {
        parts.add(version);
      }
    }
    return new AgentSessionId(Kind.CLIENT, actor, generation, parts);
  }

  /** The grant of {@code actor} (credential {@code generation}, null for none): the id of its session workflow. */
  public static AgentSessionId grant(String actor, String generation) {
    return new AgentSessionId(Kind.GRANT, actor, generation, List.of());
  }

  /** What a grant's statement signs: the grant and its end (ISO-8601 instant). */
  public static AgentSessionId grantUntil(String actor, String generation, String until) {
    return new AgentSessionId(Kind.GRANT, actor, generation, List.of(until));
  }

  /** The grant that covers this session: the same actor and credential generation. */
  public AgentSessionId grantOfActor() {
    return grant(actor, generation);
  }

  /** The actor's own session: a call that names no session at all. */
  public static AgentSessionId actor(String actor, String generation) {
    return new AgentSessionId(Kind.ACTOR, actor, generation, List.of());
  }

  /** The id, as shown and typed. */
  public String id() {
    StringBuilder b = new StringBuilder(kind.word).append(':').append(IdParts.escape(actor));
    if (generation != null) {
      b.append('~').append(IdParts.escape(generation));
    }
    for (String p : parts) {
      b.append('/').append(IdParts.escape(p));
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return id();
  }

  /**
   * The session an id names, or empty when {@code id} is not one (an id of the form used before
   * ids were unambiguous, such as {@code mcp:<nonce>} or {@code run:<actor>:<run>}, or any text).
   */
  public static Optional<AgentSessionId> parse(String id) {
    if (id == null) {
      return Optional.empty();
    }
    int colon = id.indexOf(':');
    if (colon < 0) {
      return Optional.empty();
    }
    Kind kind = null;
    for (Kind k : Kind.values()) {
      if (k.word.equals(id.substring(0, colon))) {
        kind = k;
      }
    }
    if (kind == null) {
      return Optional.empty();
    }
    String[] segments = id.substring(colon + 1).split("/", -1);
    try {
      String head = segments[0];
      int tilde = head.indexOf('~');
      if (tilde != head.lastIndexOf('~')) {
        return Optional.empty();
      }
      String actor = IdParts.unescape(tilde < 0 ? head : head.substring(0, tilde));
      String generation = tilde < 0 ? null : IdParts.unescape(head.substring(tilde + 1));
      List<String> parts = new ArrayList<>();
      for (int i = 1; i < segments.length; i++) {
        parts.add(IdParts.unescape(segments[i]));
      }
      AgentSessionId parsed = new AgentSessionId(kind, actor, generation, parts);
      return parsed.id().equals(id) ? Optional.of(parsed) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
