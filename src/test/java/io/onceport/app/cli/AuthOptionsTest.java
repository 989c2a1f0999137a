package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.onceport.frontend.auth.oauth.OAuthSettings;
import io.onceport.frontend.auth.oauth.TrustedIssuer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class AuthOptionsTest {
  @TempDir Path dir;

  private static JsonNode yaml(String text) throws Exception {
    return new ObjectMapper(new YAMLFactory()).readTree(text).get("auth");
  }

  @Test
  void theAuthSectionNamesIssuersPrefixesScopesInOrderAndTurnsStaticTokensOff() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "s3cret\n");
    OAuthSettings s = new AuthOptions().settings(yaml("""
        auth:
          resource: https://mcp.example.com/mcp
          static-tokens: off
          issuers:
            - issuer: https://login.example.com/oauth2/default
              actor-prefix: "oauth:corp/"
              actor-claim: client_id
            - issuer: https://sso.example.com/realms/agents
              actor-prefix: "oauth:kc/"
              introspection: {client-id: onceport, client-secret-file: %s}
          scopes:
            tools:read: [class:read_only]
            tools:act: "*"
        """.formatted(secret)));
    assertEquals(URI.create("https://mcp.example.com/mcp"), s.resource());
    assertFalse(s.staticTokens());
    List<TrustedIssuer> issuers = s.issuers();
    assertEquals("oauth:corp/", issuers.get(0).actorPrefix());
    assertEquals("client_id", issuers.get(0).actorClaim());
    assertNull(issuers.get(0).introspection());
    assertEquals("s3cret", issuers.get(1).introspection().clientSecret());
    assertEquals(Map.of("tools:read", List.of("class:read_only"), "tools:act", List.of("*")), s.scopes().grants());
    assertEquals(List.of("tools:read", "tools:act"), s.scopes().scopes());
  }

  @Test
  void flagsWinOverTheFileAndWithoutAnIssuerOnlyStaticTokensAreAccepted() throws Exception {
    AuthOptions flags = new AuthOptions();
    flags.issuers = List.of("https://flag.example.com");
    flags.scopes = List.of("deploy=create_release,create_release_keyed");
    OAuthSettings s = flags.settings(yaml("auth: {issuers: [{issuer: https://file.example.com}]}"));
    assertEquals(List.of("https://flag.example.com"), s.issuers().stream().map(TrustedIssuer::issuer).toList());
    assertEquals(Map.of("deploy", List.of("create_release", "create_release_keyed")), s.scopes().grants());
    assertEquals("oauth:", s.issuers().get(0).actorPrefix());
    assertNull(new AuthOptions().settings(null));
  }

  @Test
  void mistakesAreOneLineNamingTheSetting() throws Exception {
    assertEquals("config file: unknown key auth.issuers[].actor_prefix (known: actor-claim, actor-prefix, algorithms, introspection, "
        + "issuer, jwks-uri)", assertThrows(CliException.class, () -> new AuthOptions().settings(yaml(
            "auth: {issuers: [{issuer: https://a.example.com, actor_prefix: 'x:'}]}"))).getMessage());
    assertEquals("auth: Issuers share the actor prefix oauth:: give each issuer its own (auth.issuers[].actor-prefix), or the "
        + "same subject at two issuers would be one actor", assertThrows(CliException.class, () -> new AuthOptions().settings(yaml(
            "auth: {issuers: [{issuer: https://a.example.com}, {issuer: https://b.example.com}]}"))).getMessage());
    assertEquals("--auth-static-tokens off needs an OAuth issuer (--auth-issuer or auth.issuers): otherwise no token would be "
        + "accepted", assertThrows(CliException.class, () -> new AuthOptions().settings(yaml("auth: {static-tokens: off}")))
        .getMessage());
    assertEquals("auth: Invalid issuer: http://idp.example.com must be an https URL (http only on loopback)",
        assertThrows(CliException.class, () -> new AuthOptions().settings(yaml("auth: {issuers: [{issuer: 'http://idp.example.com'}]}")))
            .getMessage());
    assertEquals("auth: Invalid scope tools:read: unknown replay class in class:readonly (one of read_only, idempotency_key, "
        + "status_query, irreversible)", assertThrows(CliException.class, () -> new AuthOptions().settings(yaml(
            "auth: {issuers: [{issuer: https://a.example.com}], scopes: {'tools:read': [class:readonly]}}"))).getMessage());
  }
}
