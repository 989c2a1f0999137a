package io.onceport.workflow.session;

import io.onceport.workflow.ids.AgentSessionId;
import io.onceport.workflow.ids.IdParts;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The workflow id of a session's {@link AgentSessionWorkflow}, derived from the actor <em>and</em>
 * the session id. Keyed: {@code onceport-session-} followed by 32 hex characters of an HMAC (the
 * deployment's fingerprint key) of the length-prefixed tuple (actor, session id) ({@link
 * IdParts#tuple}), so an agent that knows its own {@code Mcp-Session-Id} or run id cannot compute
 * the workflow that holds its authorization, and two actors never share one — even were their
 * session ids equal, which {@link AgentSessionId} already rules out. Every front end, worker and
 * operator CLI of one deployment shares the key ({@code data/keys/fingerprint.key}) and so derives
 * the same id; the session id itself stays readable in records and journals.
 *
 * <p>{@link #unkeyed()} is the id without a key ({@code onceport-session-<escaped actor>/<session
 * id>}): for tests. {@link #earlier} lists the ids sessions had before (a keyed derivation of the
 * session id alone, and {@code onceport-session-<session id>}), so that {@code sessions show|
 * authorize|deny} still find a session started before the change.
 */
public final class SessionWorkflowIds {
  static final String DERIVATION = "onceport/session-workflow-id/v2\n";
  /** The derivation before the actor was part of it: the session id alone. */
  static final String DERIVATION_V1 = "onceport/session-workflow-id\n";
  private final UnaryOperator<String> hmac;

  private SessionWorkflowIds(UnaryOperator<String> hmac) {
    this.hmac = hmac;
  }

  /**
   * @param hmac the fingerprint key's HMAC of a text, e.g. {@code FingerprintKey::hmac}
   *     ({@code hmac-sha256:<hex>} or plain hex)
   */
  public static SessionWorkflowIds keyed(UnaryOperator<String> hmac) {
    return new SessionWorkflowIds(Objects.requireNonNull(hmac, "hmac == null"));
  }

  /** Without a key: readable ids an agent could compute. For tests only. */
  public static SessionWorkflowIds unkeyed() {
    return new SessionWorkflowIds(null);
  }

  public boolean isKeyed() {
    return hmac != null;
  }

  /** The workflow id of {@code actor}'s session {@code sessionId}. */
  public String workflowId(String actor, String sessionId) {
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(sessionId, "sessionId == null");
    if (hmac == null) {
      return AgentSessionWorkflow.WORKFLOW_ID_PREFIX + IdParts.escape(actor) + "/" + sessionId;
    }
    return AgentSessionWorkflow.WORKFLOW_ID_PREFIX + hex32(hmac.apply(DERIVATION + IdParts.tuple(actor, sessionId)));
  }

  /**
   * The workflow id of a session named only by its id (the operator's CLI): the actor is read from
   * the id ({@link AgentSessionId#parse}); empty for an id of the form used before.
   */
  public Optional<String> workflowId(String sessionId) {
    return AgentSessionId.parse(sessionId).map(s -> workflowId(s.actor(), sessionId));
  }

  /**
   * The workflow ids a session with this id could have: the current derivation (when the id names
   * its actor), then those used before the actor was part of it — the keyed derivation of the
   * session id alone and the unkeyed {@code onceport-session-<session id>}. For finding a session;
   * never for starting one.
   */
  public List<String> candidates(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId == null");
    LinkedHashSet<String> ids = new LinkedHashSet<>();
    workflowId(sessionId).ifPresent(ids::add);
    ids.addAll(earlier(sessionId));
    return new ArrayList<>(ids);
  }

  /** The ids of sessions started before the actor was part of the derivation. */
  public List<String> earlier(String sessionId) {
    List<String> ids = new ArrayList<>(2);
    if (hmac != null) {
      ids.add(AgentSessionWorkflow.WORKFLOW_ID_PREFIX + hex32(hmac.apply(DERIVATION_V1 + sessionId)));
    }
    ids.add(AgentSessionWorkflow.workflowId(sessionId));
    return ids;
  }

  private static String hex32(String mac) {
    String hex = mac.substring(mac.indexOf(':') + 1);
    if (!hex.matches("[0-9a-f]{32,}")) {
      throw new IllegalStateException("the session workflow id HMAC is not hex: " + mac);
    }
    return hex.substring(0, 32);
  }
}
