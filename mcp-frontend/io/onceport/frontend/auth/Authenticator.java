package io.onceport.frontend.auth;

import java.util.Optional;

/**
 * Maps a bearer token to the actor it was issued to (e.g. {@code agent:deployer}). The actor is part
 * of every fingerprint, so two agents never share an execution; the MCP layer calls this on every
 * request because sessions are not trusted to carry identity on their own.
 *
 * <p>Implementations compare in constant time and never log the token.
 */
public interface Authenticator {
  /** The actor for this token, or empty when the token is unknown or revoked. */
  Optional<String> actorFor(String bearerToken);
}
