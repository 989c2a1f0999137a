package io.onceport.frontend.auth.oauth;

import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One authorization server whose access tokens this resource server accepts, and how its tokens
 * name an actor. Built with {@link #newBuilder(String)}; setters fail fast.
 *
 * <p>The actor of a token is {@link #actorPrefix()} + the value of {@link #actorClaim()}: the prefix
 * keeps two issuers (or an issuer and the static agent tokens, {@code agent:…}) from ever naming
 * the same actor, because the actor is part of every fingerprint and two actors must never share an
 * execution.
 */
public final class TrustedIssuer {
  /** Claims that may name the actor: the subject, or the OAuth client (machine-to-machine agents). */
  public static final Set<String> ACTOR_CLAIMS = Set.of("sub", "client_id", "azp", "appid", "oid", "preferred_username",
      "email", "username");
  /**
   * Signature algorithms accepted by default: RSA and EC, what Okta, Entra ID, Keycloak, Auth0 and
   * Google sign access tokens with. Symmetric (HS*) algorithms are never accepted — a shared secret
   * would let this server mint tokens — nor {@code none}.
   */
  public static final List<String> DEFAULT_ALGORITHMS = List.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
      "ES256", "ES384", "ES512");

  private final String issuer;
  private final String actorClaim;
  private final String actorPrefix;
  private final List<String> algorithms;
  private final URI jwksUri;
  private final Introspection introspection;

  /**
   * RFC 7662 introspection of this issuer's tokens: each request asks the issuer whether the token
   * is still active, so a token revoked at the issuer stops the next call.
   *
   * @param endpoint the introspection endpoint, or null to take {@code introspection_endpoint} from
   *     the issuer's metadata
   * @param clientId this resource server's client id at the issuer
   * @param clientSecret its secret (read from a file, never from the command line); never logged
   */
  public record Introspection(URI endpoint, String clientId, String clientSecret) {
    public Introspection {
      Objects.requireNonNull(clientId, "clientId == null");
      Objects.requireNonNull(clientSecret, "clientSecret == null");
      if (clientId.isBlank()) {
        throw new IllegalArgumentException("introspection client id is blank");
      }
      if (clientSecret.isEmpty()) {
        throw new IllegalArgumentException("introspection client secret is empty");
      }
    }

    @Override
    public String toString() {
      return "Introspection[endpoint=" + endpoint + ", clientId=" + clientId + ", clientSecret=<redacted>]";
    }
  }

  private TrustedIssuer(Builder b) {
    this.issuer = b.issuer;
    this.actorClaim = b.actorClaim;
    this.actorPrefix = b.actorPrefix;
    this.algorithms = List.copyOf(b.algorithms);
    this.jwksUri = b.jwksUri;
    this.introspection = b.introspection;
  }

  public static Builder newBuilder(String issuer) {
    return new Builder(issuer);
  }

  /** The issuer identifier, exactly as the tokens' {@code iss} claim and the issuer's metadata state it. */
  public String issuer() {
    return issuer;
  }

  public String actorClaim() {
    return actorClaim;
  }

  public String actorPrefix() {
    return actorPrefix;
  }

  public List<String> algorithms() {
    return algorithms;
  }

  /** The JWKS location, or null to take {@code jwks_uri} from the issuer's metadata. */
  public URI jwksUri() {
    return jwksUri;
  }

  /** Introspection settings, or null when tokens are validated locally as JWTs. */
  public Introspection introspection() {
    return introspection;
  }

  @Override
  public String toString() {
    return "TrustedIssuer[" + issuer + ", actor " + actorPrefix + "<" + actorClaim + ">"
        + (introspection != null ? ", introspection" : ", jwt") + "]";
  }

  public static final class Builder {
    private final String issuer;
    private String actorClaim = "sub";
    private String actorPrefix = "oauth:";
    private List<String> algorithms = DEFAULT_ALGORITHMS;
    private URI jwksUri;
    private Introspection introspection;

    private Builder(String issuer) {
      Objects.requireNonNull(issuer, "issuer == null");
      URI u;
      try {
        u = URI.create(issuer);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Invalid issuer: " + issuer + " is not a URL");
      }
      if (!"https".equals(u.getScheme()) && !("http".equals(u.getScheme()) && isLoopback(u.getHost()))) {
        throw new IllegalArgumentException("Invalid issuer: " + issuer + " must be an https URL (http only on loopback)");
      }
      if (u.getRawQuery() != null || u.getRawFragment() != null) {
        throw new IllegalArgumentException("Invalid issuer: " + issuer + " must have no query or fragment (RFC 8414)");
      }
      this.issuer = issuer;
    }

    public Builder actorClaim(String claim) {
      if (claim == null || !ACTOR_CLAIMS.contains(claim)) {
        throw new IllegalArgumentException("Invalid actor claim: " + claim + " (one of " + String.join(", ",
            ACTOR_CLAIMS.stream().sorted().toList()) + ")");
      }
      this.actorClaim = claim;
      return this;
    }

    /** e.g. {@code oauth:corp/}; lowercase, 1-32 of a-z 0-9 : . _ - / */
    public Builder actorPrefix(String prefix) {
      if (prefix == null || !prefix.matches("[a-z][a-z0-9:._/-]{0,31}") || !prefix.contains(":")) {
        throw new IllegalArgumentException("Invalid actor prefix: '" + prefix + "' (1-32 of a-z 0-9 : . _ - /, starting with "
            + "a letter and containing ':', e.g. oauth:corp/)");
      }
      if (prefix.startsWith("agent:") || prefix.startsWith("operator:") || prefix.equals("anonymous")) {
        throw new IllegalArgumentException("Invalid actor prefix: '" + prefix + "' would name static agents or operators");
      }
      this.actorPrefix = prefix;
      return this;
    }

    public Builder algorithms(List<String> algs) {
      Objects.requireNonNull(algs, "algorithms == null");
      if (algs.isEmpty()) {
        throw new IllegalArgumentException("Invalid algorithms: none given");
      }
      for (String a : algs) {
        if (!DEFAULT_ALGORITHMS.contains(a)) {
          throw new IllegalArgumentException("Invalid algorithm: " + a + " (one of " + String.join(", ", DEFAULT_ALGORITHMS)
              + "; symmetric algorithms and none are never accepted)");
        }
      }
      this.algorithms = List.copyOf(algs);
      return this;
    }

    public Builder jwksUri(URI uri) {
      this.jwksUri = uri;
      return this;
    }

    public Builder introspection(Introspection introspection) {
      this.introspection = introspection;
      return this;
    }

    public TrustedIssuer build() {
      return new TrustedIssuer(this);
    }
  }

  static boolean isLoopback(String host) {
    return host != null && (host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]") || host.equals("::1"));
  }
}
