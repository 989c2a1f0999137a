package io.onceport.activity.auth;

import io.temporal.client.WorkflowClient;
import java.util.Objects;

/** The session authority for {@code --session-authorization operator|auto}. */
public final class SessionAuthorities {
  public static final String OPERATOR = "operator";
  public static final String AUTO = "auto";

  private SessionAuthorities() {}

  /**
   * @param policy {@code operator} (the default: an operator authorizes each new agent session with
   *     {@code onceport sessions authorize}) or {@code auto} (every session is authorized)
   * @param client used by {@code operator} to reach the session workflows; may be null for {@code auto}
   * @param taskQueue where the session workflows run (the workers' task queue)
   */
  public static SessionAuthority forPolicy(String policy, WorkflowClient client, String taskQueue) {
    return forPolicy(policy, client, taskQueue, io.onceport.workflow.session.SessionWorkflowIds.unkeyed());
  }

  /** @param ids how session ids map to session workflow ids (keyed in a deployment) */
  public static SessionAuthority forPolicy(String policy, WorkflowClient client, String taskQueue,
      io.onceport.workflow.session.SessionWorkflowIds ids) {
    Objects.requireNonNull(policy, "policy == null");
    return switch (policy) {
      case AUTO -> SessionAuthority.auto();
      case OPERATOR -> new OperatorSessionAuthority(
          Objects.requireNonNull(client, "client == null"), Objects.requireNonNull(taskQueue, "taskQueue == null"), ids);
      default -> throw new IllegalArgumentException(
          "Invalid session authorization policy: " + policy + " (expected operator or auto)");
    };
  }
}
