package io.onceport.frontend.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small releases API the demo contracts point at, and a target for tests. It keeps a ledger of
 * every request it <em>acted</em> on, so a demo can show that a lost response and a retry still
 * produced exactly one action.
 *
 * <ul>
 *   <li>{@code POST /v1/releases {service, version, region}} creates {@code rel_<n>} (201). With an
 *       {@code Idempotency-Key}: the same key and an equal body replay the original response
 *       (same status, header {@code Idempotent-Replayed: true}, no new action); the same key with
 *       a different body is 422. Without a key it acts every time.
 *   <li>{@code GET /v1/releases/by-key/{key}}: 200 with the release created under that key, or 404.
 *   <li>{@code GET /v1/releases}, {@code GET /v1/releases/{id}}: read-only.
 *   <li>{@code POST /v1/notifications}: no idempotency, acts every time (201, {@code ntf_<n>}).
 *   <li>{@code GET /ledger}: every action, oldest first: method, path, key, body, time.
 *   <li>Faults on the two POST endpoints, by header {@code X-Demo-Fault} or armed with
 *       {@code POST /admin/faults {"next": "drop-after-accept" | "delay=MS", "count": 1}}:
 *       {@code drop-after-accept} acts (and records the action) then closes the connection without
 *       a response; {@code delay=MS} waits before handling.
 * </ul>
 *
 * <p>Built on the JDK's HTTP server because dropping a connection after acting needs the raw
 * exchange: closing an exchange before sending response headers closes its socket.
 */
public final class DemoTarget implements AutoCloseable {
  /** One action the target performed. {@code body} is the request body as received. */
  public record LedgerEntry(String method, String path, String key, String body, Instant time) {
    public LedgerEntry {
      Objects.requireNonNull(method, "method == null");
      Objects.requireNonNull(path, "path == null");
      Objects.requireNonNull(body, "body == null");
      Objects.requireNonNull(time, "time == null");
    }
  }

  public static final String FAULT_HEADER = "X-Demo-Fault";
  public static final String DROP_AFTER_ACCEPT = "drop-after-accept";
  private static final String DEFAULT_REGION = "us-east-1";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor;

  // All state below is guarded by this.
  private final Map<String, ObjectNode> releases = new LinkedHashMap<>();
  private final Map<String, ObjectNode> releasesByKey = new HashMap<>();
  private final Map<String, Stored> responsesByKey = new HashMap<>();
  private final List<LedgerEntry> ledger = new ArrayList<>();
  private int actionsReceived;
  private int releaseSeq;
  private int notificationSeq;
  private String armedFault;
  private int armedCount;

  private record Stored(JsonNode request, int status, String body, String location) {}

  private record Reply(int status, String body, String location, boolean replayed) {}

  private DemoTarget(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /** Starts listening on {@code host:port} ({@code port} 0 picks a free port). */
  public static DemoTarget start(String host, int port) throws IOException {
    Objects.requireNonNull(host, "host == null");
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 50);
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "demo-target-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    DemoTarget target = new DemoTarget(server, executor);
    server.setExecutor(executor);
    server.createContext("/", target::handle);
    server.start();
    return target;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public String host() {
    return server.getAddress().getHostString();
  }

  /** Base URL, e.g. {@code http://127.0.0.1:8766}. */
  public String url() {
    return "http://" + host() + ":" + port();
  }

  /** Every action so far, oldest first. */
  public synchronized List<LedgerEntry> ledger() {
    return List.copyOf(ledger);
  }

  /**
   * Action requests (POST /v1/releases, /v1/notifications) that have arrived, counted before any
   * delay fault holds them: a test can wait until a request is at the target instead of sleeping.
   */
  public synchronized int actionsReceived() {
    return actionsReceived;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getPath();
      String body = readBody(exchange.getRequestBody());
      boolean action = method.equals("POST")
          && (path.equals("/v1/releases") || path.equals("/v1/notifications"));
      if (action) {
        synchronized (this) {
          actionsReceived++;
        }
      }
      String fault = action ? takeFault(exchange.getRequestHeaders().getFirst(FAULT_HEADER)) : null;
      if (fault != null && fault.startsWith("delay=")) {
        sleep(fault);
      }
      Reply reply = route(exchange, method, path, body);
      if (DROP_AFTER_ACCEPT.equals(fault)) {
        // Closing the exchange before any response header closes the socket: the client sees a
        // dropped connection after the action happened.
        return;
      }
      send(exchange, reply);
    } catch (RuntimeException e) {
      send(exchange, error(500, "internal error: " + e));
    } finally {
      exchange.close();
    }
  }

  private Reply route(HttpExchange exchange, String method, String path, String body) {
    String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
    if (path.equals("/v1/releases")) {
      return switch (method) {
        case "POST" -> createRelease(path, key, body);
        case "GET" -> listReleases();
        default -> error(405, "method " + method + " not allowed on " + path);
      };
    }
    if (path.equals("/v1/notifications")) {
      return method.equals("POST") ? notify(path, key, body) : error(405, "method " + method + " not allowed on " + path);
    }
    if (path.startsWith("/v1/releases/by-key/") && method.equals("GET")) {
      return releaseByKey(path.substring("/v1/releases/by-key/".length()));
    }
    if (path.startsWith("/v1/releases/") && method.equals("GET")) {
      return releaseById(path.substring("/v1/releases/".length()));
    }
    if (path.equals("/ledger") && method.equals("GET")) {
      return ledgerReply();
    }
    if (path.equals("/admin/faults") && method.equals("POST")) {
      return armFault(body);
    }
    return error(404, "no route for " + method + " " + path);
  }

  private synchronized Reply createRelease(String path, String key, String body) {
    JsonNode request = parseObject(body);
    if (request == null) {
      return error(400, "body must be a JSON object");
    }
    if (!request.path("service").isTextual() || !request.path("version").isTextual()) {
      return error(400, "service and version are required strings");
    }
    if (request.has("region") && !request.get("region").isTextual()) {
      return error(400, "region must be a string");
    }
    if (key != null) {
      Stored stored = responsesByKey.get(key);
      if (stored != null) {
        if (!stored.request().equals(request)) {
          return error(422, "Idempotency-Key " + key + " was used with a different request body");
        }
        return new Reply(stored.status(), stored.body(), stored.location(), true);
      }
    }
    String id = "rel_" + (++releaseSeq);
    ObjectNode release = JSON.createObjectNode();
    release.put("id", id);
    release.put("service", request.get("service").textValue());
    release.put("version", request.get("version").textValue());
    release.put("region", request.path("region").asText(DEFAULT_REGION));
    release.put("key", key);
    releases.put(id, release);
    ledger.add(new LedgerEntry("POST", path, key, body, Instant.now()));
    String location = "/v1/releases/" + id;
    if (key != null) {
      releasesByKey.put(key, release);
      responsesByKey.put(key, new Stored(request, 201, release.toString(), location));
    }
    return new Reply(201, release.toString(), location, false);
  }

  private synchronized Reply notify(String path, String key, String body) {
    JsonNode request = parseObject(body);
    if (request == null) {
      return error(400, "body must be a JSON object");
    }
    ObjectNode notification = JSON.createObjectNode();
    notification.put("id", "ntf_" + (++notificationSeq));
    notification.setAll((ObjectNode) request);
    ledger.add(new LedgerEntry("POST", path, key, body, Instant.now()));
    return new Reply(201, notification.toString(), null, false);
  }

  private synchronized Reply listReleases() {
    ArrayNode list = JSON.createArrayNode();
    releases.values().forEach(list::add);
    return new Reply(200, list.toString(), null, false);
  }

  private synchronized Reply releaseByKey(String key) {
    ObjectNode release = releasesByKey.get(key);
    return release == null ? error(404, "no release with key " + key) : new Reply(200, release.toString(), null, false);
  }

  private synchronized Reply releaseById(String id) {
    ObjectNode release = releases.get(id);
    return release == null ? error(404, "no release " + id) : new Reply(200, release.toString(), null, false);
  }

  private synchronized Reply ledgerReply() {
    ArrayNode list = JSON.createArrayNode();
    for (LedgerEntry e : ledger) {
      ObjectNode entry = list.addObject();
      entry.put("method", e.method());
      entry.put("path", e.path());
      entry.put("key", e.key());
      JsonNode parsed = parseObject(e.body());
      if (parsed != null) {
        entry.set("body", parsed);
      } else {
        entry.put("body", e.body());
      }
      entry.put("time", e.time().toString());
    }
    return new Reply(200, list.toString(), null, false);
  }

  private synchronized Reply armFault(String body) {
    JsonNode request = parseObject(body);
    String next = request == null ? null : request.path("next").asText(null);
    int count = request == null ? 0 : request.path("count").asInt(1);
    if (next == null || !(next.equals(DROP_AFTER_ACCEPT) || next.matches("delay=\\d{1,7}"))) {
      return error(400, "next must be \"drop-after-accept\" or \"delay=MS\"");
    }
    if (count < 1) {
      return error(400, "count must be at least 1");
    }
    armedFault = next;
    armedCount = count;
    ObjectNode armed = JSON.createObjectNode();
    armed.put("next", next);
    armed.put("count", count);
    return new Reply(200, armed.toString(), null, false);
  }

  /** The header's fault if present, else one use of the armed fault. */
  private synchronized String takeFault(String header) {
    if (header != null) {
      return header.trim();
    }
    if (armedFault == null) {
      return null;
    }
    String fault = armedFault;
    if (--armedCount == 0) {
      armedFault = null;
    }
    return fault;
  }

  private static void sleep(String fault) {
    try {
      Thread.sleep(Long.parseLong(fault.substring("delay=".length()).trim()));
    } catch (NumberFormatException e) {
      // an unparseable delay is ignored
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static JsonNode parseObject(String body) {
    try {
      JsonNode node = JSON.readTree(body);
      return node != null && node.isObject() ? node : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private static Reply error(int status, String message) {
    ObjectNode error = JSON.createObjectNode();
    error.put("error", message);
    return new Reply(status, error.toString(), null, false);
  }

  private static String readBody(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
  }

  private static void send(HttpExchange exchange, Reply reply) throws IOException {
    byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    if (reply.location() != null) {
      exchange.getResponseHeaders().set("Location", reply.location());
    }
    if (reply.replayed()) {
      exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
    }
    exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
    exchange.getResponseBody().write(bytes);
  }
}
