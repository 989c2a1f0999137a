package io.onceport.frontend.auth;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * Who a request comes from, as the authenticator established it: the actor that goes into every
 * fingerprint, session and record, and what the credential allows. The credential itself is not
 * here: only its identity travels past the transport, so no token can reach a record, a journal or
 * a log through this object.
 *
 * @param actor the actor, e.g. {@code agent:deployer} (a static token) or {@code oauth:corp/alice}
 *     (an OAuth access token: the issuer's actor prefix + the actor claim)
 * @param scopes the OAuth scopes the token carries; empty for a static token
 * @param scoped true when {@link #scopes} limit what the actor may call (OAuth); false for static
 *     tokens and anonymous access, which the scope map does not apply to
 * @param expiresAt when the credential stops being accepted, or null when it does not expire
 * @param generation the credential's generation ({@link AgentRegistry#generation}: new with every
 *     static token), or null when the credential has none (OAuth: the issuer's subject is the
 *     identity). Sessions are bound to it ({@link SessionIds}): a session opened with one token
 *     never serves another, so a removed and re-added agent starts with no sessions.
 */
public record Principal(String actor, Set<String> scopes, boolean scoped, Instant expiresAt, String generation) {
  public Principal {
    Objects.requireNonNull(actor, "actor == null");
    if (actor.isBlank()) {
      throw new IllegalArgumentException("actor is blank");
    }
    scopes = Set.copyOf(Objects.requireNonNull(scopes, "scopes == null"));
    if (generation != null && generation.isBlank()) {
      generation = null;
    }
  }

  /** A principal whose credential has no generation. */
  public Principal(String actor, Set<String> scopes, boolean scoped, Instant expiresAt) {
    this(actor, scopes, scoped, expiresAt, null);
  }

  /** A static-token (or anonymous) actor: not limited by scopes, never expires on its own. */
  public static Principal unscoped(String actor) {
    return new Principal(actor, Set.of(), false, null, null);
  }

  /** A static token's actor and the token's generation. */
  public static Principal unscoped(String actor, String generation) {
    return new Principal(actor, Set.of(), false, null, generation);
  }
}
