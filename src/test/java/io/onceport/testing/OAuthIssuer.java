package io.onceport.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.http.NettyWrapper;
import no.nav.security.mock.oauth2.http.OAuth2HttpRequest;
import no.nav.security.mock.oauth2.http.OAuth2HttpResponse;
import no.nav.security.mock.oauth2.http.Route;
import no.nav.security.mock.oauth2.token.OAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;
import no.nav.security.mock.oauth2.token.RequestMapping;
import no.nav.security.mock.oauth2.token.RequestMappingTokenCallback;
import okhttp3.Headers;

/**
 * A real OAuth 2.1 / OpenID provider on loopback for the resource-server tests: NAV's
 * mock-oauth2-server (discovery, JWKS, token endpoint with client credentials and authorization
 * code + PKCE), one issuer per path ({@code http://localhost:PORT/corp}, …).
 *
 * <p>Three things 2.1.10 lacks are served here as extra routes on the same server, where the
 * issuer's own would be: (1) its token endpoint ignores the RFC 8707 {@code resource} parameter,
 * so each issuer's tokens take {@code aud} from it (a request mapping, the server's own feature);
 * (2) it signs with one key per issuer forever, so {@link #rotate} publishes a second key in the
 * issuer's JWKS and {@link #signWithRotatedKey} signs with it, as an IdP does mid-rotation; (3) its
 * introspection endpoint renders {@code aud} as one bracketed string and knows no revocation, so
 * {@code /ISSUER/introspect} is answered here (RFC 7662, signatures checked by the server's own
 * token provider) with {@link #revoke} and {@link #opaqueToken}.
 */
public final class OAuthIssuer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final MockOAuth2Server server;
  private final Set<String> revoked = ConcurrentHashMap.newKeySet();
  private final Map<String, JWTClaimsSet> opaque = new ConcurrentHashMap<>();
  private final Map<String, RSAKey> rotated = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> jwksFetches = new ConcurrentHashMap<>();
  private final AtomicInteger introspections = new AtomicInteger();

  private OAuthIssuer(List<String> issuerIds, Duration tokenLifetime) {
    Set<OAuth2TokenCallback> callbacks = new java.util.HashSet<>();
    for (String id : issuerIds) {
      // Client credentials and authorization code alike: sub and client_id = the client, aud = the RFC 8707 resource.
      callbacks.add(new RequestMappingTokenCallback(id, List.of(new RequestMapping("resource", "*", Map.of(
          "sub", "${clientId}", "client_id", "${clientId}", "aud", "${resource}", "scope", "${scope}"), "JWT")),
          tokenLifetime.toSeconds()));
    }
    OAuth2Config config = new OAuth2Config(false, null, null, false, new OAuth2TokenProvider(), callbacks, new NettyWrapper());
    this.server = new MockOAuth2Server(config, new Route[] {jwksRoute(), introspectRoute()});
  }

  /** Starts the provider on 127.0.0.1 (issuer URLs name {@code localhost}) with the given issuers. */
  public static OAuthIssuer start(Duration tokenLifetime, String... issuerIds) throws Exception {
    OAuthIssuer i = new OAuthIssuer(List.of(issuerIds), tokenLifetime);
    i.server.start(InetAddress.getByName("127.0.0.1"), 0);
    return i;
  }

  /** The issuer identifier of {@code id}, e.g. {@code http://localhost:PORT/corp}. */
  public String issuer(String id) {
    return server.issuerUrl(id).toString().replaceAll("/$", "");
  }

  public String tokenEndpoint(String id) {
    return server.tokenEndpointUrl(id).toString();
  }

  public MockOAuth2Server server() {
    return server;
  }

  /** A token the issuer signs with its current key. */
  public String token(String id, String subject, String audience, String scope, Duration lifetime) {
    Map<String, Object> claims = scope == null ? Map.of() : Map.of("scope", scope);
    return server.issueToken(id, subject, audience, claims, lifetime.toSeconds()).serialize();
  }

  /** Publishes a second signing key in {@code id}'s JWKS (the old key stays, as during a real rotation). */
  public void rotate(String id) throws JOSEException {
    rotated.put(id, new RSAKeyGenerator(2048).keyID(id + "-rotated-" + System.nanoTime()).generate());
  }

  /** A token signed with the key {@link #rotate} published. */
  public String signWithRotatedKey(String id, String subject, String audience, String scope, Duration lifetime) throws JOSEException {
    return sign(rotated.get(id), claims(id, subject, audience, scope, lifetime));
  }

  /** A token with the issuer's key id but signed by another key: its signature cannot verify. */
  public String forgedToken(String id, String subject, String audience, String scope) throws JOSEException {
    return sign(new RSAKeyGenerator(2048).keyID(id).generate(), claims(id, subject, audience, scope, Duration.ofMinutes(5)));
  }

  public JWTClaimsSet claims(String id, String subject, String audience, String scope, Duration lifetime) {
    Instant now = Instant.now();
    JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().issuer(issuer(id)).subject(subject).audience(audience)
        .issueTime(Date.from(now)).notBeforeTime(Date.from(now)).expirationTime(Date.from(now.plus(lifetime)));
    if (scope != null) {
      b.claim("scope", scope);
    }
    return b.build();
  }

  private static String sign(RSAKey key, JWTClaimsSet claims) throws JOSEException {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(),
        claims);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  /** The issuer no longer considers {@code token} active (its introspection says so from now on). */
  public void revoke(String token) {
    revoked.add(token);
  }

  /** An opaque (non-JWT) token that {@code /ID/introspect} knows, with these claims. */
  public String opaqueToken(String id, String subject, String audience, String scope, Duration lifetime) {
    String token = "opq_" + java.util.UUID.randomUUID();
    opaque.put(token, claims(id, subject, audience, scope, lifetime));
    return token;
  }

  /** How many times {@code id}'s JWKS was fetched. */
  public int jwksFetches(String id) {
    return jwksFetches.computeIfAbsent(id, k -> new AtomicInteger()).get();
  }

  public int introspections() {
    return introspections.get();
  }

  private Route jwksRoute() {
    return new Route() {
      @Override
      public boolean match(OAuth2HttpRequest r) {
        return r.getMethod().equals("GET") && r.getUrl().encodedPath().endsWith("/jwks");
      }

      @Override
      public OAuth2HttpResponse invoke(OAuth2HttpRequest r) {
        String id = issuerId(r, "/jwks");
        jwksFetches.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        List<JWK> keys = new ArrayList<>(server.getConfig().getTokenProvider().publicJwkSet(id).getKeys());
        RSAKey next = rotated.get(id);
        if (next != null) {
          keys.add(next.toPublicJWK());
        }
        return json(200, new JWKSet(keys).toString(true));
      }
    };
  }

  private Route introspectRoute() {
    return new Route() {
      @Override
      public boolean match(OAuth2HttpRequest r) {
        return r.getMethod().equals("POST") && r.getUrl().encodedPath().endsWith("/introspect");
      }

      @Override
      public OAuth2HttpResponse invoke(OAuth2HttpRequest r) {
        introspections.incrementAndGet();
        String auth = r.getHeaders().get("Authorization");
        if (auth == null || !auth.startsWith("Basic ")) {
          return json(401, "{\"error\":\"invalid_client\"}");
        }
        String id = issuerId(r, "/introspect");
        String token = r.getFormParameters().get("token");
        ObjectNode body = JSON.createObjectNode();
        JWTClaimsSet claims = null;
        if (token != null && !revoked.contains(token)) {
          claims = opaque.get(token);
          if (claims == null) {
            try {
              claims = server.getConfig().getTokenProvider().verify(server.issuerUrl(id), token);
            } catch (Exception e) { // Kotlin throws the checked ParseException of a token that is not a JWT
              claims = null;
            }
          }
        }
        if (claims == null || claims.getExpirationTime() == null || claims.getExpirationTime().before(new Date())) {
          return json(200, body.put("active", false).toString());
        }
        body.put("active", true).put("iss", claims.getIssuer()).put("sub", claims.getSubject())
            .put("exp", claims.getExpirationTime().getTime() / 1000).put("token_type", "Bearer");
        claims.getAudience().forEach(body.putArray("aud")::add);
        Object scope = claims.getClaim("scope");
        if (scope != null) {
          body.put("scope", scope.toString());
        }
        return json(200, body.toString());
      }
    };
  }

  private static String issuerId(OAuth2HttpRequest r, String suffix) {
    String path = r.getUrl().encodedPath();
    return path.substring(1, path.length() - suffix.length());
  }

  private static OAuth2HttpResponse json(int status, String body) {
    return new OAuth2HttpResponse(Headers.of("Content-Type", "application/json"), status, body, null);
  }

  @Override
  public void close() {
    server.shutdown();
  }
}
