package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import io.onceport.frontend.auth.AuthenticationException;
import io.onceport.frontend.auth.Authenticator;
import io.onceport.frontend.auth.Principal;
import io.onceport.frontend.fingerprint.IntentKeys;
import java.util.List;
import java.util.Locale;

/**
 * HTTP-level checks every request passes before any JSON-RPC is read: Host and Origin (DNS
 * rebinding), bearer authentication, Accept and Content-Type; and the intent key a
 * {@code tools/call} names. Refusals are {@link McpException}s with the HTTP status.
 */
final class Transport {
  static final String ANONYMOUS = "anonymous";
  private final McpConfig config;
  private final Authenticator authenticator;
  private final HostOriginPolicy policy;

  /** @throws IllegalArgumentException when listening off loopback without allowed hosts */
  Transport(McpConfig config, Authenticator authenticator) {
    this.config = config;
    this.authenticator = authenticator;
    this.policy = HostOriginPolicy.forListener(config.listenHost(), config.allowedHosts(), config.allowedOrigins(),
        config.allowLoopbackOrigins());
  }

  /** Host (DNS rebinding) and Origin checks of {@code /mcp}: HTTP 403 when either names a site we do not serve. */
  void checkOrigin(Context ctx) {
    check(ctx, List.of());
  }

  /**
   * The same checks for every other route on the listener ({@code /metrics}, {@code /readyz},
   * {@code /healthz}, {@code /codec/*}, unknown paths), where the extra routes' origins (the
   * Temporal UI calling the codec server) are allowed too.
   */
  void checkRoute(Context ctx) {
    check(ctx, ctx.path().equals("/mcp") ? List.of() : config.extraRouteOrigins());
  }

  private void check(Context ctx, List<String> alsoAllowed) {
    String problem = policy.hostProblem(ctx.header("Host"));
    if (problem == null) {
      problem = policy.originProblem(ctx.header("Origin"), alsoAllowed);
    }
    if (problem != null) {
      throw McpException.http(403, McpException.TRANSPORT, problem, null);
    }
  }

  /**
   * The authenticated principal, or 401 with a {@code WWW-Authenticate: Bearer} challenge naming
   * the protected-resource metadata when the server takes OAuth tokens (MCP authorization) and, for
   * a presented token, {@code error="invalid_token"} with why (RFC 6750 §3). 503 when the token's
   * issuer cannot be reached to check it.
   */
  Principal authenticate(Context ctx) {
    String h = ctx.header("Authorization");
    if (h == null || h.isBlank()) {
      if (config.allowAnonymous()) {
        return Principal.unscoped(ANONYMOUS);
      }
      throw unauthorized(ctx, null, "Unauthorized: an Authorization: Bearer token is required");
    }
    if (!h.regionMatches(true, 0, "Bearer ", 0, 7) || h.substring(7).isBlank()) {
      throw unauthorized(ctx, AuthenticationException.invalidToken("the Authorization header must be 'Bearer <token>'"),
          "Unauthorized: the Authorization header must be 'Bearer <token>'");
    }
    try {
      return authenticator.authenticate(h.substring(7).trim());
    } catch (AuthenticationException e) {
      if (AuthenticationException.UNAVAILABLE.equals(e.error())) {
        throw McpException.http(503, McpException.TRANSPORT, "Service Unavailable: the token cannot be checked now: "
            + e.getMessage(), null);
      }
      throw unauthorized(ctx, e, "Unauthorized: " + e.getMessage());
    }
  }

  private McpException unauthorized(Context ctx, AuthenticationException problem, String message) {
    ctx.header("WWW-Authenticate", BearerChallenge.of(problem == null ? null : problem.error(),
        problem == null ? null : problem.getMessage(), null, authenticator.resourceMetadataUrl()));
    return McpException.http(401, McpException.TRANSPORT, message, null);
  }

  /**
   * A {@code tools/call} the principal's scopes do not allow: HTTP 403 with {@code WWW-Authenticate:
   * Bearer error="insufficient_scope", scope="…"} naming the one scope that would (MCP step-up
   * authorization), before anything reaches the gateway.
   */
  void checkScope(Context ctx, Principal principal, String tool, String replayClass, JsonNode id) {
    String missing = authenticator.missingScope(principal, tool, replayClass);
    if (missing == null) {
      return;
    }
    String why = missing.isEmpty() ? "no scope allows tool " + tool : "tool " + tool + " needs scope " + missing;
    ctx.header("WWW-Authenticate", BearerChallenge.of("insufficient_scope", why, missing.isEmpty() ? null : missing,
        authenticator.resourceMetadataUrl()));
    throw McpException.http(403, McpException.TRANSPORT, "Forbidden: insufficient scope: " + why, id);
  }

  /**
   * POST bodies must be declared JSON: {@code application/json} (or an {@code application/*+json}
   * type), charset UTF-8 when one is named; any other declared type is HTTP 415. A browser can
   * send {@code text/plain} or a form to any origin without a preflight; refusing them keeps such a
   * page from driving the endpoint. A request that declares no type at all is read as JSON: a
   * browser always declares one for a cross-origin body, and scripted clients that forget the
   * header (the official SDKs send it) should not be turned away.
   */
  static void checkContentType(Context ctx) {
    String header = ctx.header("Content-Type");
    if (header == null || header.isBlank()) {
      return;
    }
    String[] parts = header == null ? new String[] {""} : header.split(";");
    String type = parts[0].trim().toLowerCase(Locale.ROOT);
    boolean json = type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
    String charset = null;
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].trim();
      if (p.regionMatches(true, 0, "charset=", 0, 8)) {
        charset = p.substring(8).replace("\"", "").trim();
      }
    }
    if (json && (charset == null || charset.equalsIgnoreCase("utf-8"))) {
      return;
    }
    ctx.header("Accept-Post", "application/json");
    throw McpException.http(415, McpException.TRANSPORT, "Unsupported Media Type: POST needs Content-Type: application/json"
        + " (UTF-8), not " + header.trim(), null);
  }

  /**
   * The explicit intent key of a {@code tools/call} — header {@code Idempotency-Key} (HTTP 400) or
   * {@code _meta["onceport/intent"]} (JSON-RPC error) — must be 1-255 printable characters; a
   * {@code _meta} value must be a string. Both answer {@code -32602} naming the limit.
   */
  static void checkIntentKey(Context ctx, String method, JsonNode params, JsonNode id) {
    if (!"tools/call".equals(method)) {
      return;
    }
    String header = ctx.header("Idempotency-Key");
    if (header != null && !header.isBlank()) {
      String problem = IntentKeys.problem(header);
      if (problem != null) {
        throw McpException.http(400, McpException.INVALID_PARAMS, "Invalid params: the Idempotency-Key header is not a usable "
            + "intent key: " + problem + " (1-" + IntentKeys.MAX_LENGTH + " printable characters)", id);
      }
    }
    JsonNode meta = params == null ? null : params.path("_meta").get("onceport/intent");
    if (meta == null || meta.isNull()) {
      return;
    }
    if (!meta.isTextual()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: _meta onceport/intent must be a string", id);
    }
    String problem = meta.asText().isBlank() ? null : IntentKeys.problem(meta.asText());
    if (problem != null) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: _meta onceport/intent is not a usable intent key: "
          + problem + " (1-" + IntentKeys.MAX_LENGTH + " printable characters)", id);
    }
  }

  /** What the client's Accept header allows. A missing header accepts anything. */
  record Accepts(boolean json, boolean sse, double jsonQ, double sseQ, boolean sseNamed) {
    /** SSE only when the client names text/event-stream and does not rank JSON higher. */
    boolean prefersSse() {
      return sseNamed && sse && (!json || sseQ >= jsonQ);
    }
  }

  static Accepts accepts(Context ctx) {
    String h = ctx.header("Accept");
    if (h == null || h.isBlank()) {
      return new Accepts(true, true, 1, 1, false);
    }
    double json = 0;
    double sse = 0;
    boolean named = false;
    for (String part : h.split(",")) {
      String[] p = part.trim().split(";");
      String type = p[0].trim().toLowerCase(Locale.ROOT);
      double q = 1;
      for (int i = 1; i < p.length; i++) {
        String kv = p[i].trim();
        if (kv.startsWith("q=")) {
          try {
            q = Double.parseDouble(kv.substring(2));
          } catch (NumberFormatException e) {
            q = 0;
          }
        }
      }
      switch (type) {
        case "application/json" -> json = Math.max(json, q);
        case "text/event-stream" -> {
          sse = Math.max(sse, q);
          named = q > 0;
        }
        case "application/*" -> json = Math.max(json, q);
        case "text/*" -> sse = Math.max(sse, q);
        case "*/*" -> {
          json = Math.max(json, q);
          sse = Math.max(sse, q);
        }
        default -> { }
      }
    }
    return new Accepts(json > 0, sse > 0, json, sse, named);
  }
}
