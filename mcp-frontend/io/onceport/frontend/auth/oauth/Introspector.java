package io.onceport.frontend.auth.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.auth.AuthenticationException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * RFC 7662 token introspection: asks the issuer whether a token is active and what it says. Used
 * for opaque tokens, and for every token of an issuer configured for it, because it is the one way
 * a resource server learns of a revocation before the token expires.
 *
 * <p>Not cached, on purpose: a revoked token must stop the next call (issue 30), so each request
 * costs one round trip to the issuer (bounded by {@link IssuerDirectory#HTTP_TIMEOUT}). The token is
 * sent only to the endpoint of the issuer it belongs to (or, for an opaque token, to the one issuer
 * configured to take them) — never to a target or an upstream.
 */
final class Introspector {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http;

  Introspector(HttpClient http) {
    this.http = http;
  }

  /**
   * The introspection response of an active token.
   *
   * @throws AuthenticationException invalid_token when the issuer says the token is not active;
   *     unavailable when the issuer cannot be asked
   */
  JsonNode introspect(URI endpoint, TrustedIssuer.Introspection client, String token) {
    String form = "token=" + URLEncoder.encode(token, StandardCharsets.UTF_8) + "&token_type_hint=access_token";
    // RFC 6749 §2.3.1: client id and secret are form-urlencoded before the Basic encoding.
    String basic = Base64.getEncoder().encodeToString((URLEncoder.encode(client.clientId(), StandardCharsets.UTF_8) + ":"
        + URLEncoder.encode(client.clientSecret(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
    HttpRequest request = HttpRequest.newBuilder(endpoint).timeout(IssuerDirectory.HTTP_TIMEOUT)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Accept", "application/json")
        .header("Authorization", "Basic " + basic)
        .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    HttpResponse<String> r;
    try {
      r = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw AuthenticationException.unavailable("the introspection endpoint " + endpoint + " cannot be reached: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw AuthenticationException.unavailable("interrupted while introspecting the token");
    }
    if (r.statusCode() != 200) {
      throw AuthenticationException.unavailable("the introspection endpoint " + endpoint + " answered HTTP " + r.statusCode());
    }
    JsonNode body;
    try {
      body = JSON.readTree(r.body());
    } catch (IOException e) {
      throw AuthenticationException.unavailable("the introspection endpoint " + endpoint + " answered something other than JSON");
    }
    if (!body.path("active").asBoolean(false)) {
      throw AuthenticationException.invalidToken("the token is not active at its issuer (expired or revoked)");
    }
    return body;
  }
}
