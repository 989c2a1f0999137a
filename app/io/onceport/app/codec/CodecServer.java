package io.onceport.app.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.javalin.router.JavalinDefaultRoutingApi;
import io.onceport.frontend.mcp.HostOriginPolicy;
import io.temporal.api.common.v1.Payload;
import io.temporal.payload.codec.PayloadCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Temporal codec-server HTTP protocol over Onceport's payload codec, so the Temporal UI and CLI
 * show decrypted payloads: {@code POST <prefix>/encode} and {@code POST <prefix>/decode}, body and
 * answer {@code {"payloads":[{"metadata":{"k":"<base64>"},"data":"<base64>"}]}} (proto3 JSON of
 * {@code Payloads}). Whoever can call decode can read every argument and response in history, so
 * every POST needs an operator: a browser signed in with a one-time link ({@code GET
 * <prefix>/sign-in?ticket=…}, which sets the short-lived HttpOnly cookie of {@link CodecSignIn}), or
 * {@code Authorization: Bearer <token>} accepted by the {@link CodecAuthorizer} (the CLI's operator
 * codec token). Reaching the port or sending an allowed {@code Origin} never decodes anything by
 * itself, and a cookie alone authorizes only a JSON request (no form another page could post).
 *
 * <p>The browser calls it from the UI's origin: the routes answer CORS preflights for the configured
 * UI origins, with credentials, and for no other origin. Registered on the front end's listener,
 * the routes get its Host and Origin checks (DNS rebinding), with the UI origins allowed
 * ({@code McpConfig.extraRouteOrigins}).
 */
public final class CodecServer {
  public static final String DEFAULT_PREFIX = "/codec";
  static final String ALLOW_HEADERS = "Content-Type, Authorization, X-Namespace";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger LOG = LoggerFactory.getLogger(CodecServer.class);

  private final PayloadCodec codec;
  private final CodecAuthorizer authorizer;
  private final List<String> uiOrigins;
  private final String prefix;
  private final CodecSignIn signIn;

  /**
   * @param uiOrigins the Temporal UI origins allowed by CORS, e.g. {@code http://127.0.0.1:8080} and
   *     {@code http://localhost:8080} (the browser sends whichever host was typed); empty sends no
   *     CORS grant (CLI callers only)
   * @param prefix path prefix, e.g. {@link #DEFAULT_PREFIX}; the UI's codec endpoint is then
   *     {@code http(s)://<front end><prefix>}
   */
  public CodecServer(PayloadCodec codec, CodecAuthorizer authorizer, List<String> uiOrigins, String prefix) {
    this(codec, authorizer, uiOrigins, prefix, null);
  }

  /** As above, with browser sign-in ({@code signIn}; null: bearer tokens only). */
  public CodecServer(PayloadCodec codec, CodecAuthorizer authorizer, List<String> uiOrigins, String prefix, CodecSignIn signIn) {
    this.signIn = signIn;
    this.codec = Objects.requireNonNull(codec, "codec == null");
    this.authorizer = Objects.requireNonNull(authorizer, "authorizer == null");
    this.uiOrigins = Objects.requireNonNull(uiOrigins, "uiOrigins == null").stream()
        .map(o -> o.replaceAll("/+$", "")).toList();
    Objects.requireNonNull(prefix, "prefix == null");
    if (!prefix.startsWith("/") || prefix.endsWith("/")) {
      throw new IllegalArgumentException("Invalid codec path prefix: " + prefix + " (expected like /codec)");
    }
    this.prefix = prefix;
  }

  /** Registers the routes, e.g. {@code Javalin.create(cfg -> codecServer.register(cfg.routes))}. */
  public void register(JavalinDefaultRoutingApi routes) {
    // "<prefix>/{namespace}/decode" serves the Temporal CLI's --codec-endpoint templating; one key ring serves all namespaces.
    for (String base : List.of(prefix, prefix + "/{namespace}")) {
      routes.post(base + "/encode", ctx -> convert(ctx, codec::encode));
      routes.post(base + "/decode", ctx -> convert(ctx, codec::decode));
      routes.options(base + "/encode", this::preflight);
      routes.options(base + "/decode", this::preflight);
    }
    routes.get(prefix + "/sign-in", this::signIn);
  }

  /**
   * A standalone server for loopback (tests, or a local process without the MCP front end); call
   * {@code start("127.0.0.1", port)}. Host and Origin are checked as on a loopback front end (the
   * UI origins are allowed too); on the front end's listener the front end checks them.
   */
  public Javalin app() {
    HostOriginPolicy policy = HostOriginPolicy.forListener("127.0.0.1", List.of(), List.of(), true);
    return Javalin.create(cfg -> {
      cfg.routes.before(ctx -> {
        String problem = policy.hostProblem(ctx.header("Host"));
        if (problem == null) {
          problem = policy.originProblem(ctx.header("Origin"), uiOrigins);
        }
        if (problem != null) {
          throw new io.javalin.http.ForbiddenResponse(problem);
        }
      });
      register(cfg.routes);
    });
  }

  private void preflight(Context ctx) {
    cors(ctx);
    ctx.status(204);
  }

  private void cors(Context ctx) {
    String origin = ctx.header("Origin");
    if (origin != null && uiOrigins.contains(origin)) {
      ctx.header("Access-Control-Allow-Origin", origin);
      ctx.header("Access-Control-Allow-Methods", "POST, OPTIONS");
      ctx.header("Access-Control-Allow-Headers", ALLOW_HEADERS);
      ctx.header("Access-Control-Allow-Credentials", "true");
      ctx.header("Access-Control-Max-Age", "600");
    }
    ctx.header("Vary", "Origin");
  }

  /**
   * Redeems a one-time sign-in link: sets the session cookie and sends the browser on to {@code
   * next} (a path on this host, e.g. the UI's workflow list when the UI serves this codec server on
   * its own origin) or to a page naming who signed in and until when.
   */
  private void signIn(Context ctx) {
    ctx.header("Cache-Control", "no-store");
    ctx.header("Referrer-Policy", "no-referrer"); // the ticket never leaves in a Referer
    if (signIn == null) {
      error(ctx, 404, "browser sign-in is not enabled on this codec server");
      return;
    }
    CodecSignIn.Who who;
    try {
      who = signIn.redeem(ctx.queryParam("ticket"));
    } catch (CodecSignIn.Refused e) {
      ctx.status(401).contentType("text/plain; charset=utf-8").result("Not signed in: " + e.getMessage() + "\n");
      return;
    }
    boolean secure = "https".equalsIgnoreCase(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"));
    // Over https a Temporal UI on another site (Temporal Cloud) may send it; on http only same-site pages can.
    ctx.header("Set-Cookie", CodecSignIn.COOKIE + "=" + signIn.cookie(who) + "; Path=" + prefix + "; Max-Age="
        + CodecSignIn.SESSION.toSeconds() + "; HttpOnly; " + (secure ? "Secure; SameSite=None" : "SameSite=Strict"));
    LOG.info("codec server: {} signed in until {}", who.subject(), who.until());
    String next = ctx.queryParam("next");
    if (next != null && next.startsWith("/") && !next.startsWith("//") && !next.contains("\\")) {
      ctx.redirect(next, HttpStatus.SEE_OTHER);
      return;
    }
    ctx.contentType("text/plain; charset=utf-8").result("Signed in to Onceport's codec server as " + who.subject() + " until "
        + who.until() + ".\nThe Temporal UI" + (uiOrigins.isEmpty() ? "" : " at " + String.join(", ", uiOrigins))
        + " now shows decoded payloads in this browser.\n");
  }

  private void convert(Context ctx, Function<List<Payload>, List<Payload>> conversion) {
    cors(ctx);
    String authorization = ctx.header("Authorization");
    String token = authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
        ? authorization.substring(7).strip() : "";
    if (!token.isEmpty()) {
      if (!authorizer.allowed(token)) {
        ctx.header("WWW-Authenticate", "Bearer");
        error(ctx, 401, "token not allowed to use the codec server");
        return;
      }
    } else if (signIn == null || signIn.session(ctx.cookie(CodecSignIn.COOKIE)).isEmpty()) {
      ctx.header("WWW-Authenticate", "Bearer");
      error(ctx, 401, "not signed in: open a sign-in link (the one serve prints, or `onceport operator codec-link`) "
          + "or send an operator's codec token (`onceport operator codec-token`)");
      return;
    } else if (!String.valueOf(ctx.contentType()).toLowerCase(Locale.ROOT).startsWith("application/json")) {
      error(ctx, 415, "a signed-in browser's codec request must be application/json");
      return;
    }
    List<Payload> payloads;
    try {
      payloads = parse(ctx.bodyAsBytes());
    } catch (IOException | IllegalArgumentException e) {
      error(ctx, 400, "invalid codec request: " + e.getMessage());
      return;
    }
    List<Payload> converted;
    try {
      converted = conversion.apply(payloads);
    } catch (RuntimeException e) {
      error(ctx, 400, String.valueOf(e.getMessage()));
      return;
    }
    ctx.contentType("application/json").result(render(converted));
  }

  private static void error(Context ctx, int status, String message) {
    ObjectNode body = JSON.createObjectNode().put("error", message);
    ctx.status(status).contentType("application/json").result(body.toString());
  }

  static List<Payload> parse(byte[] body) throws IOException {
    JsonNode root = JSON.readTree(body);
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("expected a JSON object with \"payloads\"");
    }
    JsonNode array = root.path("payloads");
    if (array.isMissingNode() || array.isNull()) {
      return List.of();
    }
    if (!array.isArray()) {
      throw new IllegalArgumentException("\"payloads\" must be an array");
    }
    Base64.Decoder b64 = Base64.getDecoder();
    List<Payload> out = new ArrayList<>();
    for (JsonNode node : array) {
      Payload.Builder payload = Payload.newBuilder();
      JsonNode metadata = node.path("metadata");
      for (Iterator<Map.Entry<String, JsonNode>> it = metadata.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        payload.putMetadata(e.getKey(), ByteString.copyFrom(b64.decode(e.getValue().asText())));
      }
      JsonNode data = node.path("data");
      if (!data.isMissingNode() && !data.isNull()) {
        payload.setData(ByteString.copyFrom(b64.decode(data.asText())));
      }
      out.add(payload.build());
    }
    return out;
  }

  static String render(List<Payload> payloads) {
    Base64.Encoder b64 = Base64.getEncoder();
    ObjectNode root = JSON.createObjectNode();
    ArrayNode array = root.putArray("payloads");
    for (Payload p : payloads) {
      ObjectNode node = array.addObject();
      ObjectNode metadata = node.putObject("metadata");
      p.getMetadataMap().forEach((k, v) -> metadata.put(k, b64.encodeToString(v.toByteArray())));
      node.put("data", b64.encodeToString(p.getData().toByteArray()));
    }
    return root.toString();
  }
}
