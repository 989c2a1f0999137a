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
