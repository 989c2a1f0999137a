package io.onceport.frontend.auth;

/**
 * What the MCP layer tells about agent sessions, so each is recorded once in the sessions journal
 * and can be authorized by an operator. Calls are cheap and safe to repeat: a second {@link
 * #started} of the same session (another front end, a reconnect) changes nothing.
 */
public interface SessionRegistry {
  /** A session began. */
  void started(SessionStart session);

  /** {@code actor}'s session ended (deleted by the client, expired, or the server shut down); unknown ids are ignored. */
  void ended(String actor, String sessionId, String reason);

  /**
   * {@code actor}'s session ended because the credential it was opened with was removed: nothing
   * waiting on it may be authorized any more. The default records a plain end.
   */
  default void credentialRemoved(String actor, String sessionId, String reason) {
    ended(actor, sessionId, reason);
  }

  /** Records nothing; for tests and for a front end without sessions. */
  static SessionRegistry none() {
    return new SessionRegistry() {
      @Override
      public void started(SessionStart session) {}

      @Override
      public void ended(String actor, String sessionId, String reason) {}
    };
  }
}
