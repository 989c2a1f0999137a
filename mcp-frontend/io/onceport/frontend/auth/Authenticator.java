package io.onceport.frontend.auth;

import java.util.Optional;

/**
 * Maps a bearer token to the actor it was issued to (e.g. {@code agent:deployer}). The actor is part
 * of every fingerprint, so two agents never share an execution; the MCP layer calls this on every
 * request because sessions are not trusted to carry identity on their own — which is also why an
 * expired or revoked token stops the next request at once.
 *
 * <p>Implementations compare in constant time and never log the token.
 */
@FunctionalInterface
public interface Authenticator {
  /** The actor for this token, or empty when the token is unknown or revoked. */
  Optional<String> actorFor(String bearerToken);

  /**
   * The principal for this token. The default wraps {@link #actorFor}: a static token's actor,
   * unlimited by scopes.
   *
   * @throws AuthenticationException when the token is not accepted, saying why
   */
  default Principal authenticate(String bearerToken) {
    return actorFor(bearerToken).map(Principal::unscoped)
        .orElseThrow(() -> AuthenticationException.invalidToken("unknown or revoked token"));
  }

  /**
   * The absolute URL of this resource server's OAuth protected-resource metadata (RFC 9728), named
   * in every {@code WWW-Authenticate} challenge so MCP clients can discover the authorization
   * server; null when the server does not take OAuth tokens.
   */
  default String resourceMetadataUrl() {
    return null;
  }

  /**
   * The scope {@code principal} lacks to call {@code tool} (of replay class {@code replayClass},
   * e.g. {@code read_only}), or null when it may. Answered with HTTP 403 {@code insufficient_scope}
   * before anything is dispatched.
   */
  default String missingScope(Principal principal, String tool, String replayClass) {
    return null;
  }
}
