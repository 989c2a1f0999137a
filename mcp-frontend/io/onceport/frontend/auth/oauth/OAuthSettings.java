package io.onceport.frontend.auth.oauth;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How the front end acts as an OAuth 2.1 resource server (MCP authorization; docs/auth.md): the
 * issuers it trusts, the audience their tokens must name, and which scopes allow which tools.
 * Built with {@link #newBuilder()}; setters and {@link Builder#build()} fail fast with the setting's
 * name.
 */
public final class OAuthSettings {
  /** Clock difference tolerated on {@code exp} and {@code nbf}: Nimbus's default, what IdP SDKs use. */
  public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(60);

  private final URI resource;
  private final String audience;
  private final List<TrustedIssuer> issuers;
  private final ScopeMap scopes;
  private final boolean staticTokens;
  private final Duration clockSkew;

  private OAuthSettings(Builder b) {
    this.resource = b.resource;
    this.audience = b.audience;
    this.issuers = List.copyOf(b.issuers);
    this.scopes = b.scopes;
    this.staticTokens = b.staticTokens;
    this.clockSkew = b.clockSkew;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * This server's canonical resource URI (RFC 8707, e.g. {@code https://mcp.example.com/mcp}), or
   * null to use {@code http://HOST:PORT/mcp} of a loopback listener.
   */
  public URI resource() {
    return resource;
  }

  /** The audience tokens must name, or null for {@link #resource()} (the MCP default). */
  public String audience() {
    return audience;
  }

  public List<TrustedIssuer> issuers() {
    return issuers;
  }

  public ScopeMap scopes() {
    return scopes;
  }

  /** Whether static agent tokens ({@code onceport agent add}) are accepted beside OAuth tokens. */
  public boolean staticTokens() {
    return staticTokens;
  }

  public Duration clockSkew() {
    return clockSkew;
  }

  public static final class Builder {
    private URI resource;
    private String audience;
    private final List<TrustedIssuer> issuers = new ArrayList<>();
    private ScopeMap scopes = ScopeMap.NONE;
    private boolean staticTokens = true;
    private Duration clockSkew = DEFAULT_CLOCK_SKEW;

    private Builder() {}

    public Builder resource(URI uri) {
      if (uri != null) {
        checkResource(uri);
      }
      this.resource = uri;
      return this;
    }

    public Builder audience(String aud) {
      if (aud != null && aud.isBlank()) {
        throw new IllegalArgumentException("Invalid audience: blank");
      }
      this.audience = aud;
      return this;
    }

    public Builder addIssuer(TrustedIssuer issuer) {
      issuers.add(Objects.requireNonNull(issuer, "issuer == null"));
      return this;
    }

    public Builder scopes(ScopeMap map) {
      this.scopes = Objects.requireNonNull(map, "scopes == null");
      return this;
    }

    public Builder staticTokens(boolean on) {
      this.staticTokens = on;
      return this;
    }

    public Builder clockSkew(Duration skew) {
      Objects.requireNonNull(skew, "clockSkew == null");
      if (skew.isNegative() || skew.compareTo(Duration.ofMinutes(5)) > 0) {
        throw new IllegalArgumentException("Invalid clock skew: " + skew + " (PT0S..PT5M)");
      }
      this.clockSkew = skew;
      return this;
    }

    /**
     * @throws IllegalArgumentException without issuers; when two issuers are the same or share an
     *     actor prefix (their actors could collide)
     */
    public OAuthSettings build() {
      if (issuers.isEmpty()) {
        throw new IllegalArgumentException("OAuth needs at least one trusted issuer (auth.issuers / --auth-issuer)");
      }
      Set<String> ids = new HashSet<>();
      Set<String> prefixes = new HashSet<>();
      for (TrustedIssuer i : issuers) {
        if (!ids.add(i.issuer())) {
          throw new IllegalArgumentException("Issuer " + i.issuer() + " is configured twice");
        }
        if (!prefixes.add(i.actorPrefix())) {
          throw new IllegalArgumentException("Issuers share the actor prefix " + i.actorPrefix() + ": give each issuer its own "
              + "(auth.issuers[].actor-prefix), or the same subject at two issuers would be one actor");
        }
      }
      return new OAuthSettings(this);
    }
  }

  /** RFC 8707 §2: an absolute URI without fragment; https, or http on loopback. */
  static void checkResource(URI uri) {
    if (!uri.isAbsolute() || uri.getRawFragment() != null || uri.getHost() == null) {
      throw new IllegalArgumentException("Invalid resource: " + uri + " (an absolute URL without fragment, e.g. "
          + "https://mcp.example.com/mcp)");
    }
    if (!"https".equals(uri.getScheme()) && !("http".equals(uri.getScheme()) && TrustedIssuer.isLoopback(uri.getHost()))) {
      throw new IllegalArgumentException("Invalid resource: " + uri + " must be an https URL (http only on loopback)");
    }
  }
}
