package io.onceport.frontend.auth.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.ConfigurableJWTProcessor;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.onceport.frontend.auth.AuthenticationException;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * What this server knows of each trusted issuer: its metadata (RFC 8414, else OpenID discovery),
 * and for JWT validation a Nimbus processor over the issuer's JWKS.
 *
 * <p>Why cached: without it every request would cost one or two round trips to the IdP before the
 * gateway even reads the call. Metadata is kept {@link #METADATA_TTL} (Caffeine; a failed fetch is
 * not kept, so the next request tries again). Keys are Nimbus's own JWKS cache
 * ({@link JWKSourceBuilder}): kept {@link #KEYS_TTL}, and fetched again at once when a token names
 * a key id the cache lacks — that is how a key rotated at the issuer is picked up — at most twice
 * per {@link #KEYS_REFETCH_INTERVAL} (Nimbus's rate limit), so tokens with made-up key ids cannot
 * turn the gateway into a load on the IdP.
 */
final class IssuerDirectory {
  static final Duration METADATA_TTL = Duration.ofHours(1);
  static final Duration KEYS_TTL = Duration.ofMinutes(15);
  static final Duration KEYS_REFETCH_INTERVAL = Duration.ofSeconds(30);
  /** How long a metadata, JWKS or introspection exchange with the IdP may take. */
  static final Duration HTTP_TIMEOUT = Duration.ofSeconds(5);
  /** JWKS documents larger than this are refused (Nimbus's default is 50 KB; Entra's is ~10 KB). */
  static final int JWKS_SIZE_LIMIT = 256 * 1024;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** An issuer as resolved: its processor (JWT validation) or its introspection endpoint. */
  record Resolved(TrustedIssuer issuer, ConfigurableJWTProcessor<SecurityContext> jwt, URI introspectionEndpoint) {}

  private final Map<String, TrustedIssuer> issuers = new LinkedHashMap<>();
  private final Supplier<String> audience;
  private final Duration clockSkew;
  private final HttpClient http;
  private final LoadingCache<String, Resolved> resolved;

  IssuerDirectory(List<TrustedIssuer> trusted, Supplier<String> audience, Duration clockSkew, HttpClient http) {
    trusted.forEach(t -> issuers.put(t.issuer(), t));
    this.audience = audience;
    this.clockSkew = clockSkew;
    this.http = http;
    this.resolved = Caffeine.newBuilder().expireAfterWrite(METADATA_TTL).build(this::resolve);
  }

  /** The trusted issuer whose identifier is exactly {@code iss}, or null. */
  TrustedIssuer trusted(String iss) {
    return iss == null ? null : issuers.get(iss);
  }

  List<TrustedIssuer> all() {
    return List.copyOf(issuers.values());
  }

  /**
   * @throws AuthenticationException (unavailable) when the issuer's metadata cannot be had
   */
  Resolved resolved(TrustedIssuer issuer) {
    try {
      return resolved.get(issuer.issuer());
    } catch (AuthenticationException e) {
      throw e;
    } catch (RuntimeException e) {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      throw AuthenticationException.unavailable("the authorization server " + issuer.issuer() + " cannot be reached: "
          + cause.getMessage());
    }
  }

  private Resolved resolve(String id) {
    TrustedIssuer t = issuers.get(id);
    boolean introspect = t.introspection() != null;
    boolean needMetadata = introspect ? t.introspection().endpoint() == null : t.jwksUri() == null;
    JsonNode metadata = needMetadata ? metadata(t.issuer()) : null;
    if (introspect) {
      URI endpoint = t.introspection().endpoint() != null ? t.introspection().endpoint()
          : uri(metadata, "introspection_endpoint", t.issuer());
      return new Resolved(t, null, endpoint);
    }
    URI jwks = t.jwksUri() != null ? t.jwksUri() : uri(metadata, "jwks_uri", t.issuer());
    return new Resolved(t, processor(t, jwks), null);
  }

  private ConfigurableJWTProcessor<SecurityContext> processor(TrustedIssuer t, URI jwks) {
    JWKSource<SecurityContext> keys;
    try {
      keys = JWKSourceBuilder.<SecurityContext>create(jwks.toURL(), new DefaultResourceRetriever(
              (int) HTTP_TIMEOUT.toMillis(), (int) HTTP_TIMEOUT.toMillis(), JWKS_SIZE_LIMIT))
          .cache(KEYS_TTL.toMillis(), HTTP_TIMEOUT.toMillis())
          .rateLimited(KEYS_REFETCH_INTERVAL.toMillis())
          .refreshAheadCache(false)
          .retrying(false)
          .build();
    } catch (MalformedURLException e) {
      throw new IllegalStateException("jwks_uri " + jwks + " is not a URL");
    }
    Set<JWSAlgorithm> algs = new HashSet<>();
    t.algorithms().forEach(a -> algs.add(JWSAlgorithm.parse(a)));
    DefaultJWTProcessor<SecurityContext> p = new DefaultJWTProcessor<>();
    // RFC 9068 access tokens are typed at+jwt; most IdPs still send JWT or nothing.
    p.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT, new JOSEObjectType("at+jwt"),
        new JOSEObjectType("application/at+jwt"), null));
    p.setJWSKeySelector(new JWSVerificationKeySelector<>(algs, keys));
    DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(Set.of(audience.get()),
        new JWTClaimsSet.Builder().issuer(t.issuer()).build(), Set.of("exp", t.actorClaim()), null);
    claims.setMaxClockSkew((int) clockSkew.toSeconds());
    p.setJWTClaimsSetVerifier(claims);
    return p;
  }

  /** RFC 8414 §3 (well-known path inserted before the issuer's path), then OpenID Connect Discovery §4. */
  private JsonNode metadata(String issuer) {
    URI iss = URI.create(issuer);
    String path = iss.getRawPath() == null || iss.getRawPath().equals("/") ? "" : iss.getRawPath();
    String origin = iss.getScheme() + "://" + iss.getRawAuthority();
    List<URI> candidates = List.of(URI.create(origin + "/.well-known/oauth-authorization-server" + path),
        URI.create(issuer.replaceAll("/$", "") + "/.well-known/openid-configuration"));
    String problem = null;
    for (URI u : candidates) {
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(u).timeout(HTTP_TIMEOUT).header("Accept", "application/json")
            .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
          problem = u + " answered " + r.statusCode();
          continue;
        }
        JsonNode md = JSON.readTree(r.body());
        if (!issuer.equals(md.path("issuer").asText(null))) {
          // RFC 8414 §3.3: metadata naming another issuer must not be used (an impersonation attempt, a misconfiguration,
          // or a server that answers every well-known path with its root issuer's document).
          problem = u + " names issuer " + md.path("issuer").asText("(none)") + ", not " + issuer;
          continue;
        }
        return md;
      } catch (IOException e) {
        problem = u + ": " + e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while fetching " + u);
      }
    }
    throw new IllegalStateException("no authorization server metadata (" + problem + ")");
  }

  private static URI uri(JsonNode metadata, String field, String issuer) {
    String v = metadata.path(field).asText(null);
    if (v == null) {
      throw new IllegalStateException("the metadata of " + issuer + " has no " + field);
    }
    return URI.create(v);
  }
}
