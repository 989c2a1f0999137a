package io.onceport.activity.auth;

/**
 * Rung 4 of the authorization ladder: has an operator authorized this agent session? The policy
 * {@code auto} says yes to every session (the demo walkthrough uses it and says so); the policy
 * {@code operator} asks the session's record, which an operator changes with {@code onceport
 * sessions authorize} (phase 2: backed by a Temporal session workflow). Implementations must be
 * fast and side-effect free: the ladder may ask again on every call.
 */
public interface SessionAuthority {
  /**
   * @param sessionId the agent session (MCP session or run id); may be null when the caller has none
   * @param actor the authenticated actor
   */
  boolean isAuthorized(String sessionId, String actor);

  /**
   * The ladder made an execution wait for this session's authorization: remember it, so the
   * operator's decision reaches it (the execution's {@code sessionAuthorization} signal). Called once
   * per waiting execution (again only if the deciding activity is retried, so it must be idempotent).
   * A decision already made must still reach the execution. The default remembers nothing: an
   * authority that never says no never makes anything wait.
   *
   * @param executionWorkflowId the waiting execution's workflow id, or null when unknown
   */
  default void awaitAuthorization(String sessionId, String actor, String executionWorkflowId) {}

  /**
   * An operator's standing denial of this session (not ended, same actor), if there is one: the
   * ladder then rejects at once ({@code session_denied}) instead of waiting for a decision that was
   * already made. Read from the session's own record, which only a verified operator statement
   * changes. The default knows of none.
   */
  default java.util.Optional<Denial> denial(String sessionId, String actor) {
    return java.util.Optional.empty();
  }

  /** Who denied the session and why, as the session records it. */
  record Denial(String by, String reason) {}

  /** Every session is authorized; policy {@code --session-authorization auto}. */
  static SessionAuthority auto() {
    return new SessionAuthority() {
      @Override
      public boolean isAuthorized(String sessionId, String actor) {
        return true;
      }

      @Override
      public String toString() {
        return "SessionAuthority[auto]";
      }
    };
  }
}
