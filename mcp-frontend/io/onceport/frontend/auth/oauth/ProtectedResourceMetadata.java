package io.onceport.frontend.auth.oauth;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * RFC 9728 OAuth 2.0 Protected Resource Metadata, which MCP clients read to find the authorization
 * server: {@code GET /.well-known/oauth-protected-resource/mcp} (the form inserted before the
 * endpoint's path, which MCP clients try first and every {@code WWW-Authenticate} challenge names)
 * and {@code GET /.well-known/oauth-protected-resource} (the root form, their fallback). Served
 * without authentication; it holds nothing secret.
 */
public final class ProtectedResourceMetadata {
  public static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OAuthAuthenticator authenticator;

  public ProtectedResourceMetadata(OAuthAuthenticator authenticator) {
    this.authenticator = Objects.requireNonNull(authenticator, "authenticator == null");
  }

  /** The metadata URL of {@code resource}: the well-known path inserted between host and path (RFC 9728 §3.1). */
  public static String metadataUrl(URI resource) {
    String path = resource.getRawPath() == null || resource.getRawPath().equals("/") ? "" : resource.getRawPath();
    return resource.getScheme() + "://" + resource.getRawAuthority() + WELL_KNOWN + path;
  }

  /** Registers the root form, {@code /mcp}'s form, and the configured resource's path form when it differs. */
  public void register(JavalinDefaultRoutingApi routes) {
    Set<String> paths = new LinkedHashSet<>();
    paths.add(WELL_KNOWN);
    paths.add(WELL_KNOWN + "/mcp");
    URI configured = authenticator.settings().resource();
    if (configured != null && configured.getRawPath() != null && !configured.getRawPath().isEmpty()
        && !configured.getRawPath().equals("/")) {
      paths.add(WELL_KNOWN + configured.getRawPath());
    }
    paths.forEach(p -> routes.get(p, this::serve));
  }

  private void serve(Context ctx) {
    ctx.header("Cache-Control", "max-age=3600");
    ctx.contentType("application/json").result(document().toString());
  }

  /** The metadata document: resource, authorization servers, scopes, bearer methods. */
  public ObjectNode document() {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("resource", authenticator.resource().toString());
    ArrayNode servers = doc.putArray("authorization_servers");
    authenticator.settings().issuers().forEach(i -> servers.add(i.issuer()));
    if (!authenticator.settings().scopes().isEmpty()) {
      ArrayNode scopes = doc.putArray("scopes_supported");
      authenticator.settings().scopes().scopes().forEach(scopes::add);
    }
    doc.putArray("bearer_methods_supported").add("header");
    doc.put("resource_name", "Onceport");
    return doc;
  }
}
