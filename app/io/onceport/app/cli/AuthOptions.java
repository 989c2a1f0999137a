package io.onceport.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.frontend.auth.oauth.OAuthSettings;
import io.onceport.frontend.auth.oauth.ScopeMap;
import io.onceport.frontend.auth.oauth.TrustedIssuer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * The front end as an OAuth 2.1 resource server (docs/auth.md): the {@code auth:} section of the
 * config file, and {@code --auth-*} flags, which win over it. Without an issuer in either, only
 * static agent tokens are accepted, as before.
 *
 * <pre>
 * auth:
 *   resource: https://mcp.example.com/mcp
 *   static-tokens: on
 *   issuers:
 *     - issuer: https://login.example.com/oauth2/default
 *       actor-claim: sub
 *       actor-prefix: "oauth:corp/"
 *   scopes:
 *     tools:read: [class:read_only]
 *     tools:act: ["*"]
 * </pre>
 */
final class AuthOptions {
  private static final Set<String> AUTH_KEYS = Set.of("resource", "audience", "static-tokens", "clock-skew", "issuers", "scopes");
  private static final Set<String> ISSUER_KEYS = Set.of("issuer", "actor-claim", "actor-prefix", "algorithms", "jwks-uri",
      "introspection");
  private static final Set<String> INTROSPECTION_KEYS = Set.of("endpoint", "client-id", "client-secret-file");

  @Option(names = "--auth-issuer", paramLabel = "URL",
      description = "Accept OAuth access tokens from this authorization server (its issuer identifier; repeatable). "
          + "Its keys come from its RFC 8414 / OpenID metadata. Several issuers with different settings: auth.issuers in the "
          + "config file (docs/auth.md).")
  List<String> issuers = new ArrayList<>();

  @Option(names = "--auth-resource", paramLabel = "URL",
      description = "This server's canonical resource URI, as clients reach it (RFC 8707), e.g. https://mcp.example.com/mcp; "
          + "tokens must name it as audience. Default on a loopback listener: http://HOST:PORT/mcp.")
  String resource;

  @Option(names = "--auth-audience", paramLabel = "AUD",
      description = "The audience tokens must name when the IdP cannot use the resource URI (e.g. api://onceport); default: the resource URI.")
  String audience;

  @Option(names = "--auth-actor-claim", paramLabel = "CLAIM",
      description = "The token claim naming the actor: sub (default), client_id, azp, appid, oid, preferred_username, email or username.")
  String actorClaim;

  @Option(names = "--auth-actor-prefix", paramLabel = "PREFIX",
      description = "Prefix of the actors of --auth-issuer tokens, e.g. oauth:corp/ (default: oauth:).")
  String actorPrefix;

  @Option(names = "--auth-scope", paramLabel = "SCOPE=TOOLS",
      description = "A scope and what it allows: * (every tool), class:<replay class> or tool names, comma-separated "
          + "(repeatable; e.g. --auth-scope tools:read=class:read_only --auth-scope 'tools:act=*'). None: any valid token calls any tool.")
  List<String> scopes = new ArrayList<>();

  @Option(names = "--auth-static-tokens", paramLabel = "on|off",
      description = "Accept static agent tokens (onceport agent add) beside OAuth tokens (default: on).")
  String staticTokens;

  @Option(names = "--auth-introspection-client-id", paramLabel = "ID",
      description = "Check --auth-issuer tokens by RFC 7662 introspection (revocation takes effect at once; opaque tokens) "
          + "as this client of the issuer.")
  String introspectionClientId;

  @Option(names = "--auth-introspection-secret-file", paramLabel = "FILE",
      description = "File holding the introspection client's secret (never on the command line).")
  Path introspectionSecretFile;

  @Option(names = "--auth-introspection-endpoint", paramLabel = "URL",
      description = "Introspection endpoint (default: introspection_endpoint from the issuer's metadata).")
  String introspectionEndpoint;

  /** The OAuth settings, or null when neither the flags nor {@code auth} (may be null) name an issuer. */
  OAuthSettings settings(JsonNode auth) {
    if (auth != null && !auth.isNull() && !auth.isObject()) {
      throw new CliException("config file: auth must be a mapping (docs/auth.md)");
    }
    JsonNode section = auth == null || auth.isNull() ? null : auth;
    if (section != null) {
      checkKeys(section, AUTH_KEYS, "auth");
    }
    try {
      OAuthSettings.Builder b = OAuthSettings.newBuilder();
      boolean any = addIssuers(b, section);
      String statics = staticTokens != null ? staticTokens : text(section, "static-tokens");
      boolean staticOn = onOff(statics);
      if (!any) {
        if (!staticOn) {
          throw new CliException("--auth-static-tokens off needs an OAuth issuer (--auth-issuer or auth.issuers): "
              + "otherwise no token would be accepted");
        }
        if (resource != null || audience != null || !scopes.isEmpty() || (section != null && section.size() > 0
            && !(section.size() == 1 && section.has("static-tokens")))) {
          throw new CliException("OAuth settings without an issuer: name the authorization server with --auth-issuer URL "
              + "or auth.issuers");
        }
        return null;
      }
      b.staticTokens(staticOn);
      String res = resource != null ? resource : text(section, "resource");
      if (res != null) {
        b.resource(URI.create(res));
      }
      b.audience(audience != null ? audience : text(section, "audience"));
      String skew = text(section, "clock-skew");
      if (skew != null) {
        try {
          b.clockSkew(Duration.parse(skew));
        } catch (DateTimeParseException e) {
          throw new CliException("config file: auth.clock-skew must be an ISO-8601 duration like PT60S, not " + skew);
        }
      }
      b.scopes(scopeMap(section));
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new CliException("auth: " + e.getMessage());
    }
  }

  /** The issuers of the flags, else of {@code auth.issuers}; false when neither names one. */
  private boolean addIssuers(OAuthSettings.Builder b, JsonNode section) {
    if (!issuers.isEmpty()) {
      for (String i : issuers) {
        b.addIssuer(flagIssuer(i));
      }
      return true;
    }
    if (section == null || !section.has("issuers")) {
      return false;
    }
    JsonNode list = section.get("issuers");
    if (!list.isArray() || list.isEmpty()) {
      throw new CliException("config file: auth.issuers must be a list of issuers (each with issuer: URL)");
    }
    for (JsonNode i : list) {
      b.addIssuer(fileIssuer(i));
    }
    return true;
  }

  private TrustedIssuer flagIssuer(String issuer) {
    TrustedIssuer.Builder b = TrustedIssuer.newBuilder(issuer);
    if (actorClaim != null) {
      b.actorClaim(actorClaim);
    }
    if (actorPrefix != null) {
      b.actorPrefix(actorPrefix);
    }
    if (introspectionClientId != null) {
      b.introspection(new TrustedIssuer.Introspection(introspectionEndpoint == null ? null : URI.create(introspectionEndpoint),
          introspectionClientId, secret(introspectionSecretFile, "--auth-introspection-secret-file")));
    } else if (introspectionSecretFile != null || introspectionEndpoint != null) {
      throw new CliException("--auth-introspection-* needs --auth-introspection-client-id");
    }
    return b.build();
  }

  private static TrustedIssuer fileIssuer(JsonNode i) {
    if (!i.isObject() || !i.path("issuer").isTextual()) {
      throw new CliException("config file: each auth.issuers entry needs issuer: URL");
    }
    checkKeys(i, ISSUER_KEYS, "auth.issuers[]");
    TrustedIssuer.Builder b = TrustedIssuer.newBuilder(i.get("issuer").asText());
    if (i.has("actor-claim")) {
      b.actorClaim(i.get("actor-claim").asText());
    }
    if (i.has("actor-prefix")) {
      b.actorPrefix(i.get("actor-prefix").asText());
    }
    if (i.has("algorithms")) {
      b.algorithms(strings(i.get("algorithms")));
    }
    if (i.has("jwks-uri")) {
      b.jwksUri(URI.create(i.get("jwks-uri").asText()));
    }
    JsonNode in = i.get("introspection");
    if (in != null && !in.isNull()) {
      checkKeys(in, INTROSPECTION_KEYS, "auth.issuers[].introspection");
      if (!in.path("client-id").isTextual() || !in.path("client-secret-file").isTextual()) {
        throw new CliException("config file: auth.issuers[].introspection needs client-id and client-secret-file");
      }
      b.introspection(new TrustedIssuer.Introspection(in.has("endpoint") ? URI.create(in.get("endpoint").asText()) : null,
          in.get("client-id").asText(), secret(Path.of(in.get("client-secret-file").asText()), "client-secret-file")));
    }
    return b.build();
  }

  private ScopeMap scopeMap(JsonNode section) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    if (!scopes.isEmpty()) {
      for (String s : scopes) {
        int eq = s.indexOf('=');
        if (eq <= 0 || eq == s.length() - 1) {
          throw new CliException("--auth-scope takes SCOPE=TOOLS (e.g. tools:read=class:read_only), not '" + s + "'");
        }
        map.put(s.substring(0, eq), List.of(s.substring(eq + 1).split(",")));
      }
    } else if (section != null && section.has("scopes")) {
      JsonNode node = section.get("scopes");
      if (!node.isObject()) {
        throw new CliException("config file: auth.scopes must map each scope to tools (*, class:read_only or tool names)");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        map.put(e.getKey(), strings(e.getValue()));
      }
    }
    return ScopeMap.of(map);
  }

  private static List<String> strings(JsonNode node) {
    List<String> out = new ArrayList<>();
    if (node.isArray()) {
      node.forEach(n -> out.add(n.asText()));
    } else if (node.isValueNode()) {
      for (String part : node.asText().split(",")) {
        out.add(part.strip());
      }
    }
    return out;
  }

  private static String secret(Path file, String what) {
    if (file == null) {
      throw new CliException("introspection needs the client secret in a file (" + what + ")");
    }
    try {
      String s = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (s.isEmpty()) {
        throw new CliException(what + " " + file + " is empty");
      }
      return s;
    } catch (IOException e) {
      throw new CliException("cannot read " + what + " " + file + ": " + e.getMessage());
    }
  }

  private static boolean onOff(String v) {
    if (v == null || v.equals("on") || v.equals("true")) {
      return true;
    }
    if (v.equals("off") || v.equals("false")) {
      return false;
    }
    throw new CliException("--auth-static-tokens (auth.static-tokens) must be 'on' or 'off', not '" + v + "'");
  }

  private static String text(JsonNode section, String key) {
    JsonNode v = section == null ? null : section.get(key);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static void checkKeys(JsonNode node, Set<String> allowed, String where) {
    if (!node.isObject()) {
      throw new CliException("config file: " + where + " must be a mapping");
    }
    node.fieldNames().forEachRemaining(k -> {
      if (!allowed.contains(k)) {
        throw new CliException("config file: unknown key " + where + "." + k + " (known: " + String.join(", ",
            allowed.stream().sorted().toList()) + ")");
      }
    });
  }
}
