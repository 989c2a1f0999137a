package io.onceport.workflow.session;

import io.onceport.workflow.session.AgentSessionWorkflow;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The workflow id of a session's {@link AgentSessionWorkflow}. Keyed: {@code onceport-session-}
 * followed by 32 hex characters of an HMAC (the deployment's fingerprint key) of the session id, so
 * an agent that knows its own {@code Mcp-Session-Id} or run id cannot compute the workflow that
 * holds its authorization and address it. Every front end, worker and operator CLI of one
 * deployment shares the key ({@code data/keys/fingerprint.key}) and so derives the same id; the
 * session id itself ({@code mcp:…}, {@code run:…}) stays readable in records and journals.
 *
 * <p>{@link #legacy()} is the id used before ({@code onceport-session-<session id>}): for tests,
 * and for finding sessions started before the change.
 */
public final class SessionWorkflowIds {
  static final String DERIVATION = "onceport/session-workflow-id\n";
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

  public static SessionWorkflowIds legacy() {
    return new SessionWorkflowIds(null);
  }

  public boolean isKeyed() {
    return hmac != null;
  }

  public String workflowId(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId == null");
    if (hmac == null) {
      return AgentSessionWorkflow.workflowId(sessionId);
    }
    String mac = hmac.apply(DERIVATION + sessionId);
    String hex = mac.substring(mac.indexOf(':') + 1);
    if (!hex.matches("[0-9a-f]{32,}")) {
      throw new IllegalStateException("the session workflow id HMAC is not hex: " + mac);
    }
    return AgentSessionWorkflow.WORKFLOW_ID_PREFIX + hex.substring(0, 32);
  }
}
