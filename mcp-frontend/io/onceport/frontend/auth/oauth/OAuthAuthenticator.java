package io.onceport.frontend.auth.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.BadJWSException;
import com.nimbusds.jwt.EncryptedJWT;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.ExpiredJWTException;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.auth.AuthenticationException;
import io.onceport.frontend.auth.Authenticator;
import io.onceport.frontend.auth.Principal;
import java.net.URI;
import java.net.http.HttpClient;
import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The front end as an OAuth 2.1 resource server (MCP authorization, RFC 9728, RFC 8707): a bearer
 * token is a static agent token ({@code op_…}, when those are on), a JWT validated against its
 * issuer's keys, or — for issuers configured for it, and opaque tokens — introspected at the
 * issuer (RFC 7662). A JWT is accepted only when signed with an allowed asymmetric algorithm by a
 * key of a trusted issuer, its {@code iss} is that issuer, its {@code aud} names this server's
 * audience (the canonical resource URI unless configured otherwise), and it is within {@code nbf}
 * and {@code exp} (± the clock skew). Unsigned ({@code alg: none}) and encrypted tokens are refused
 * before any key is looked at.
 *
 * <p>The actor is the issuer's prefix + the configured claim; the token itself goes nowhere past
 * this class (no token passthrough: Onceport never forwards an agent's token to a target or an
 * upstream, which authenticate with their own credentials from the vault).
 */
public final class OAuthAuthenticator implements Authenticator {
  /** Claim values usable in an actor: printable ASCII without spaces, at most 200 characters. */
  private static final Pattern CLAIM_VALUE = Pattern.compile("[\\x21-\\x7E]{1,200}");

  private final OAuthSettings settings;
  private final Authenticator staticTokens;
  private final Supplier<URI> defaultResource;
  private final IssuerDirectory issuers;
  private final Introspector introspector;
  private final Clock clock;

  /**
   * @param staticTokens the static agent tokens ({@code AgentRegistry::authenticate}), consulted for
   *     {@code op_} tokens when {@link OAuthSettings#staticTokens()} is on
   * @param defaultResource the canonical resource URI when none is configured: the loopback
   *     listener's {@code http://HOST:PORT/mcp}, known once it is bound (read on first use)
   */
  public OAuthAuthenticator(OAuthSettings settings, Authenticator staticTokens, Supplier<URI> defaultResource) {
    this(settings, staticTokens, defaultResource, HttpClient.newBuilder().connectTimeout(IssuerDirectory.HTTP_TIMEOUT)
        .followRedirects(HttpClient.Redirect.NEVER).build(), Clock.systemUTC());
  }

  OAuthAuthenticator(OAuthSettings settings, Authenticator staticTokens, Supplier<URI> defaultResource, HttpClient http,
      Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings == null");
    this.staticTokens = staticTokens;
    this.defaultResource = Objects.requireNonNull(defaultResource, "defaultResource == null");
    this.issuers = new IssuerDirectory(settings.issuers(), this::audience, settings.clockSkew(), http);
    this.introspector = new Introspector(http);
    this.clock = clock;
  }

  /** This server's canonical resource URI (RFC 8707), as advertised in its protected-resource metadata. */
  public URI resource() {
    URI r = settings.resource() != null ? settings.resource() : defaultResource.get();
    return Objects.requireNonNull(r, "no resource URI: the listener is not bound yet");
  }

  /** The audience a token must name: the configured one, else the canonical resource URI. */
  public String audience() {
    return settings.audience() != null ? settings.audience() : resource().toString();
  }

  public OAuthSettings settings() {
    return settings;
  }

  @Override
  public Optional<String> actorFor(String bearerToken) {
    try {
      return Optional.of(authenticate(bearerToken).actor());
    } catch (AuthenticationException e) {
      return Optional.empty();
    }
  }

  @Override
  public Principal authenticate(String token) {
    if (token == null || token.isBlank()) {
      throw AuthenticationException.invalidToken("empty token");
    }
    if (token.startsWith(AgentRegistry.TOKEN_PREFIX)) {
      if (!settings.staticTokens() || staticTokens == null) {
        throw AuthenticationException.invalidToken("static agent tokens are turned off here (auth static-tokens: off); "
            + "use an access token from the authorization server");
      }
      return staticTokens.authenticate(token);
    }
    JWT jwt;
    try {
      jwt = JWTParser.parse(token);
    } catch (ParseException e) {
      return opaque(token);
    }
    if (jwt instanceof PlainJWT) {
      throw AuthenticationException.invalidToken("unsigned tokens (alg none) are refused");
    }
    if (jwt instanceof EncryptedJWT || !(jwt instanceof SignedJWT signed)) {
      throw AuthenticationException.invalidToken("encrypted tokens are not accepted; send a signed access token");
    }
    String iss;
    try {
      iss = signed.getJWTClaimsSet().getIssuer();
    } catch (ParseException e) {
      throw AuthenticationException.invalidToken("the token's claims are not a JSON object");
    }
    TrustedIssuer issuer = issuers.trusted(iss);
    if (issuer == null) {
      throw AuthenticationException.invalidToken("the token's issuer is not trusted here");
    }
    IssuerDirectory.Resolved r = issuers.resolved(issuer);
    return issuer.introspection() != null ? fromIntrospection(r, token) : fromJwt(r, signed);
  }

  private Principal fromJwt(IssuerDirectory.Resolved r, SignedJWT signed) {
    TrustedIssuer issuer = r.issuer();
    JWTClaimsSet claims;
    try {
      claims = r.jwt().process(signed, null);
    } catch (ExpiredJWTException e) {
      throw AuthenticationException.invalidToken("the token has expired");
    } catch (BadJWSException e) {
      throw AuthenticationException.invalidToken("the token's signature does not verify with the issuer's keys");
    } catch (BadJWTException e) {
      throw AuthenticationException.invalidToken(claimProblem(e.getMessage(), issuer));
    } catch (BadJOSEException e) {
      throw AuthenticationException.invalidToken(joseProblem(e.getMessage(), issuer));
    } catch (KeySourceException e) {
      throw AuthenticationException.unavailable("the keys of " + issuer.issuer() + " cannot be fetched: " + e.getMessage());
    } catch (JOSEException e) {
      throw AuthenticationException.invalidToken("the token's signature cannot be checked: " + e.getMessage());
    }
    Object actor = claims.getClaim(issuer.actorClaim());
    Set<String> scopes = new LinkedHashSet<>();
    addScopes(scopes, claims.getClaim("scope"));
    addScopes(scopes, claims.getClaim("scp"));
    return principal(issuer, actor, scopes, claims.getExpirationTime() == null ? null : claims.getExpirationTime().toInstant());
  }

  private Principal opaque(String token) {
    for (TrustedIssuer t : issuers.all()) {
      if (t.introspection() != null) {
        // Only the first issuer configured for introspection takes opaque tokens: sending a token to every
        // issuer's endpoint would hand one IdP's tokens to another.
        return fromIntrospection(issuers.resolved(t), token);
      }
    }
    throw AuthenticationException.invalidToken("the token is not a JWT, and no issuer is configured for introspection");
  }

  private Principal fromIntrospection(IssuerDirectory.Resolved r, String token) {
    TrustedIssuer issuer = r.issuer();
    JsonNode body = introspector.introspect(r.introspectionEndpoint(), issuer.introspection(), token);
    String iss = body.path("iss").asText(null);
    if (iss != null && !iss.equals(issuer.issuer())) {
      throw AuthenticationException.invalidToken("the token's issuer is not the issuer that introspected it");
    }
    if (!audiences(body.get("aud")).contains(audience())) {
      throw AuthenticationException.invalidToken("the token's audience is not this resource (" + audience() + ")");
    }
    long now = clock.instant().getEpochSecond();
    long skew = settings.clockSkew().toSeconds();
    if (body.hasNonNull("exp") && body.get("exp").asLong() + skew < now) {
      throw AuthenticationException.invalidToken("the token has expired");
    }
    if (body.hasNonNull("nbf") && body.get("nbf").asLong() - skew > now) {
      throw AuthenticationException.invalidToken("the token is not valid yet (nbf)");
    }
    Set<String> scopes = new LinkedHashSet<>();
    addScopes(scopes, body.path("scope").asText(null));
    JsonNode actor = body.get(issuer.actorClaim());
    return principal(issuer, actor == null || !actor.isTextual() ? null : actor.asText(),
        scopes, body.hasNonNull("exp") ? Instant.ofEpochSecond(body.get("exp").asLong()) : null);
  }

  private static Principal principal(TrustedIssuer issuer, Object actorClaim, Set<String> scopes, Instant expiresAt) {
    if (!(actorClaim instanceof String value) || value.isEmpty()) {
      throw AuthenticationException.invalidToken("the token has no " + issuer.actorClaim() + " claim to name its actor");
    }
    if (!CLAIM_VALUE.matcher(value).matches()) {
      throw AuthenticationException.invalidToken("the token's " + issuer.actorClaim() + " claim is not usable as an actor "
          + "(1-200 printable ASCII characters without spaces)");
    }
    return new Principal(issuer.actorPrefix() + value, scopes, true, expiresAt);
  }

  private static List<String> audiences(JsonNode aud) {
    if (aud == null || aud.isNull()) {
      return List.of();
    }
    if (aud.isTextual()) {
      return List.of(aud.asText());
    }
    List<String> out = new java.util.ArrayList<>();
    aud.forEach(a -> out.add(a.asText()));
    return out;
  }

  /** {@code scope} (RFC 8693/9068: space-separated) or {@code scp} (Okta, Entra: a list or a string). */
  private static void addScopes(Set<String> into, Object claim) {
    if (claim instanceof String s) {
      for (String part : s.trim().split("\\s+")) {
        if (!part.isEmpty()) {
          into.add(part);
        }
      }
    } else if (claim instanceof Collection<?> list) {
      list.forEach(v -> addScopes(into, v));
    }
  }

  /** Nimbus's claim-check messages, reworded for the client (they may quote claim values; never the token). */
  private String claimProblem(String message, TrustedIssuer issuer) {
    String m = message == null ? "" : message;
    if (m.contains("before use time")) {
      return "the token is not valid yet (nbf)";
    }
    if (m.contains(" aud ")) { // "JWT aud claim rejected", "JWT missing required aud claim"
      return "the token's audience is not this resource (" + audience() + ")";
    }
    if (m.contains(" iss ")) { // "JWT iss claim value rejected"
      return "the token's issuer is not " + issuer.issuer();
    }
    if (m.contains("missing required claims")) {
      return "the token lacks a required claim (exp and " + issuer.actorClaim() + ")";
    }
    return "the token's claims are not accepted";
  }

  private static String joseProblem(String message, TrustedIssuer issuer) {
    String m = message == null ? "" : message;
    if (m.contains("typ")) {
      return "the token's type (typ) is not an access token";
    }
    if (m.contains("no matching key") || m.contains("algorithm")) {
      return "no key of the issuer matches the token's key id and algorithm (allowed: " + String.join(", ", issuer.algorithms())
          + ")";
    }
    return "the token is not accepted";
  }

  @Override
  public String resourceMetadataUrl() {
    return ProtectedResourceMetadata.metadataUrl(resource());
  }

  @Override
  public String missingScope(Principal principal, String tool, String replayClass) {
    return principal.scoped() ? settings.scopes().missing(principal.scopes(), tool, replayClass) : null;
  }
}
