package io.onceport.app.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.onceport.shared.net.JdkHttpServers;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small releases API the demo contracts point at, and a recording target for tests. Its ledger
 * lists <em>every request it received</em> on the API — repeated Idempotency-Keys, replays,
 * rejections and dropped connections included — with what it did about each, so a test can count
 * both what was sent (requests received) and what happened (actions taken).
 *
 * <ul>
 *   <li>{@code POST /v1/releases {service, version, region}} creates {@code rel_<n>} (201). With an
 *       {@code Idempotency-Key}: the same key and an equal body replay the original response (same
 *       status, header {@code Idempotent-Replayed: true}, no new action); the same key with a
 *       different body is 422; the same key while a request with it is still being handled is 409.
 *       Without a key it acts every time.
 *   <li>{@code GET /v1/releases/by-key/{key}} (the status endpoint): 200 with the release created
 *       under that key; 202 {@code {"state":"processing"}} while a request with that key is still
 *       being handled (e.g. slowed by {@code delay}) — never 404 while the action may still happen;
 *       404 when nothing was done under that key.
 *   <li>{@code GET /v1/releases}, {@code GET /v1/releases/{id}}: read-only.
 *   <li>{@code POST /v1/notifications}: no idempotency, acts every time (201, {@code ntf_<n>}).
 *   <li>{@code POST /v1/credentials/{service}/rotate}, {@code GET /v1/credentials/{service}/active}
 *       and {@code GET /v1/credentials/{service}/rotations/by-key/{key}}: the credential API of the
 *       rotation example ({@link Credentials}).
 *   <li>{@code GET /ledger}: every request received on the API, oldest first: {@code seq, method,
 *       path, key} (the Idempotency-Key header), {@code body}, {@code time} (received), {@code
 *       finished}, {@code handling} ({@code acted | replayed | rejected | read | dropped |
 *       processing}), {@code status} (the status answered; null when the connection was dropped or
 *       the request is still being handled) and {@code fault}. Requests to {@code /ledger} and
 *       {@code /admin/faults} themselves are not listed.
 * </ul>
 *
 * <p>Faults, on the POST endpoints only, by header {@code X-Demo-Fault: FAULT} or armed for
 * the next {@code count} such requests with {@code POST /admin/faults {"next": "FAULT", "count":
 * 1}}:
 *
 * <ul>
 *   <li>{@code drop-after-accept}: acts (ledger {@code acted}), then closes the connection without
 *       a response — the client sees a lost answer after the action happened;
 *   <li>{@code drop-without-acting}: closes the connection without acting or answering (ledger
 *       {@code dropped}) — the same lost answer, but nothing happened;
 *   <li>{@code delay=MS}: waits MS milliseconds, then handles the request as usual: it acts at the
 *       end even when the client has given up by then; meanwhile the status endpoint answers 202
 *       for its key;
 *   <li>{@code status=CODE} (400–599), optionally {@code status=CODE,retry-after=SECONDS}: answers
 *       CODE with {@code {"error": …}} (and {@code Retry-After}) without acting (ledger {@code
 *       rejected}) — e.g. {@code status=503,retry-after=0}, which some HTTP clients silently re-send;
 *   <li>{@code apply-late=MS}, {@code apply-never} (a rotation only; other actions pass an armed
 *       one by): the rotation is answered at once but takes effect MS later, or never.
 * </ul>
 *
 * <p>Built on the JDK's HTTP server (HTTP/1.1, keep-alive) because dropping a connection needs the
 * raw exchange: closing an exchange before sending response headers closes its socket. This class
 * is the HTTP side and applies faults per request; the API's state is {@link Releases} and {@link Credentials}, the ledger
 * {@link Ledger}, the armed fault {@link ArmedFaults}, each guarded by its own lock.
 */
public final class DemoTarget implements AutoCloseable {
  /** What the target did with one request. */
  public enum Handling {
    /** Still being handled (e.g. slowed by {@code delay}). */
    PROCESSING,
    /** Performed the action: a release, a notification or a rotation exists because of this request. */
    ACTED,
    /** Answered with the stored response of an earlier request with the same Idempotency-Key. */
    REPLAYED,
    /** Refused without acting: invalid, conflicting, unknown route or a {@code status=} fault. */
    REJECTED,
    /** A read-only request. */
    READ,
    /** The connection was closed without acting or answering ({@code drop-without-acting}). */
    DROPPED;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One request the target received.
   *
   * @param seq position in the ledger, from 1
   * @param key the request's Idempotency-Key header, or null
   * @param body the request body as received ("" when it had none)
   * @param time when it was received
   * @param finished when the target finished with it, or null while {@link Handling#PROCESSING}
   * @param status the status answered, or null (dropped, or still being handled)
   * @param fault the fault applied to it, or null
   */
  public record LedgerEntry(
      long seq, String method, String path, String key, String body, Instant time, Instant finished,
      Handling handling, Integer status, String fault) {
    public LedgerEntry {
      Objects.requireNonNull(method, "method == null");
      Objects.requireNonNull(path, "path == null");
      Objects.requireNonNull(body, "body == null");
      Objects.requireNonNull(time, "time == null");
      Objects.requireNonNull(handling, "handling == null");
    }

    /** True when this request made the target act. */
    public boolean acted() {
      return handling == Handling.ACTED;
    }
  }

  public static final String FAULT_HEADER = "X-Demo-Fault";
  public static final String DROP_AFTER_ACCEPT = "drop-after-accept";
  public static final String DROP_WITHOUT_ACTING = "drop-without-acting";
  /** Prefix of {@code delay=MS}. */
  public static final String DELAY = "delay=";
  /** Prefix of {@code status=CODE[,retry-after=SECONDS]}. */
  public static final String STATUS = "status=";
  /** The fault grammar, as named in error messages and {@code demo-target --help}. */
  public static final String FAULTS =
      "drop-after-accept | drop-without-acting | delay=MS | status=CODE[,retry-after=SECONDS] | apply-late=MS | apply-never";
  /** Prefix of {@code apply-late=MS}: a rotation answered now takes effect MS later. */
  public static final String APPLY_LATE = "apply-late=";
  /** A rotation answered but never taking effect: the old key stays active. */
  public static final String APPLY_NEVER = "apply-never";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor;
  private final Releases releases = new Releases();
  private final Ledger ledger = new Ledger();
  private final ArmedFaults faults = new ArmedFaults();
  private final Credentials credentials;

  private DemoTarget(HttpServer server, ExecutorService executor, LongSupplier clock) {
    this.server = server;
    this.executor = executor;
    this.credentials = new Credentials(clock);
  }

  /** Starts listening on {@code host:port} ({@code port} 0 picks a free port). */
  public static DemoTarget start(String host, int port) throws IOException {
    return start(host, port, System::currentTimeMillis);
  }

  /**
   * As {@link #start(String, int)}, with the clock the credential API applies late rotations by
   * ({@code apply-late=MS}): a test on a time-skipping engine passes the engine's clock, so a
   * rotation applied days late lands in skipped time.
   */
  public static DemoTarget start(String host, int port, LongSupplier clock) throws IOException {
    Objects.requireNonNull(host, "host == null");
    Objects.requireNonNull(clock, "clock == null");
    JdkHttpServers.noDelay(); // in effect when this is the JVM's first JDK HTTP server (Main and the bench's child set it first)
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 50);
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "demo-target-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    DemoTarget target = new DemoTarget(server, executor, clock);
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

  /** Every request received on the API so far, oldest first. */
  public List<LedgerEntry> ledger() {
    return ledger.entries();
  }

  /** Requests received with this Idempotency-Key, whatever the target did with them: what was sent. */
  public long received(String key) {
    return ledger.received(key);
  }

  /** Requests with this Idempotency-Key that made the target act: what happened. */
  public long acted(String key) {
    return ledger.acted(key);
  }

  /**
   * Arms {@code fault} for the next {@code count} POST action requests, as {@code POST
   * /admin/faults} does.
   *
   * @throws IllegalArgumentException for a fault outside {@link #FAULTS} or a count below 1
   */
  public void armFault(String fault, int count) {
    faults.armFault(fault, count);
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
      if (path.equals("/ledger") || path.startsWith("/admin/")) {
        send(exchange, observerRoute(method, path, body));
        return;
      }
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      int entry = ledger.receive(method, path, key, body);
      Reply reply = act(exchange, entry, method, path, key, body);
      if (reply != null) {
        send(exchange, reply);
      }
      // A null reply: the connection is dropped. Closing the exchange before any response header
      // closes the socket, so the client sees a dropped connection.
    } finally {
      exchange.close();
    }
  }

  /** Handles an API request and records what was done; null when the connection is to be dropped. */
  private Reply act(HttpExchange exchange, int entry, String method, String path, String key, String body) {
    Fault fault = null;
    try {
      boolean rotation = Credentials.isRotate(method, path);
      boolean action = rotation || method.equals("POST") && (path.equals("/v1/releases") || path.equals("/v1/notifications"));
      if (action) {
        String header = exchange.getRequestHeaders().getFirst(FAULT_HEADER);
        fault = header != null ? Fault.parse(header) : faults.takeArmedFault(rotation);
        Reply refused = refusedFault(header, fault, rotation);
        if (refused != null) {
          return finish(entry, refused, null);
        }
      }
      if (fault != null && fault.is(DROP_WITHOUT_ACTING)) {
        ledger.finish(entry, Handling.DROPPED, null, fault);
        return null;
      }
      if (fault != null && fault.status() > 0) {
        return finish(entry, new Reply(fault.status(), errorBody("fault " + fault.spec() + ": nothing was done"), null,
            false, Handling.REJECTED, fault.retryAfter()), fault);
      }
      String processing = key != null && (rotation || action && path.equals("/v1/releases")) ? key : null;
      if (processing != null && !(rotation ? credentials.beginProcessing(processing) : releases.beginProcessing(processing))) {
        return finish(entry, error(409, "a request with Idempotency-Key " + key + " is still being processed"), fault);
      }
      Reply reply;
      try {
        if (fault != null && fault.delayMillis() > 0) {
          sleep(fault.delayMillis());
        }
        reply = path.startsWith(Credentials.PREFIX) ? credentials.route(method, path, key, body, fault)
            : releases.route(method, path, key, body);
      } finally {
        if (processing != null && rotation) {
          credentials.endProcessing(processing);
        } else if (processing != null) {
          releases.endProcessing(processing);
        }
      }
      if (fault != null && fault.is(DROP_AFTER_ACCEPT)) {
        ledger.finish(entry, reply.handling(), null, fault);
        return null;
      }
      return finish(entry, reply, fault);
    } catch (RuntimeException e) {
      return finish(entry, error(500, "internal error: " + e), fault);
    }
  }

  /** A 400 for an {@code X-Demo-Fault} header that names no fault, or a rotation's fault on another action; else null. */
  private static Reply refusedFault(String header, Fault fault, boolean rotation) {
    if (header != null && fault == null) {
      return error(400, FAULT_HEADER + " must be " + FAULTS);
    }
    if (fault != null && fault.rotationOnly() && !rotation) {
      return error(400, FAULT_HEADER + " " + fault.spec() + " applies only to POST /v1/credentials/{service}/rotate");
    }
    return null;
  }

  private Reply observerRoute(String method, String path, String body) {
    if (path.equals("/ledger") && method.equals("GET")) {
      return ledger.ledgerReply();
    }
    if (path.equals("/admin/faults") && method.equals("POST")) {
      return faults.armFault(body);
    }
    return error(404, "no route for " + method + " " + path);
  }

  private Reply finish(int index, Reply reply, Fault fault) {
    ledger.finish(index, reply.handling(), reply.status(), fault);
    return reply;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static JsonNode parseObject(String body) {
    try {
      JsonNode node = JSON.readTree(body);
      return node != null && node.isObject() ? node : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  static String errorBody(String message) {
    ObjectNode error = JSON.createObjectNode();
    error.put("error", message);
    return error.toString();
  }

  static Reply error(int status, String message) {
    return new Reply(status, errorBody(message), null, false, Handling.REJECTED);
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
    if (reply.retryAfter() != null) {
      exchange.getResponseHeaders().set("Retry-After", String.valueOf(reply.retryAfter()));
    }
    exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
    exchange.getResponseBody().write(bytes);
  }
}
