package io.onceport.frontend.mcp;

/**
 * Remembers ended sessions. Session ids are self-contained signed tokens, so validity needs no
 * store; only an explicit DELETE does. The default ({@link InMemorySessionRevocations}) is per front
 * end process: a session deleted on one process stays usable on another until it expires. Plug a
 * shared store here when several front ends serve the same clients.
 */
public interface SessionRevocations {
  /** Marks the session (its random id) ended until {@code expiresAtEpochSecond}. */
  void revoke(String sessionNonce, long expiresAtEpochSecond);

  boolean isRevoked(String sessionNonce);
}
