package io.onceport.app.engine;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.onceport.shared.net.JdkHttpServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code serve}'s Temporal UI with the codec server on the same origin: the UI's port is this
 * gateway, which sends {@code /codec/…} to the front end's codec server and everything else to the
 * Temporal CLI's UI on a port of its own. Why: the UI fetches {@code <codec endpoint>/decode} with
 * the browser's default credentials mode, which sends cookies only to its own origin, and the
 * Temporal CLI's UI has no setting to include cross-origin credentials. On one origin, an operator
 * who opened the one-time sign-in link (its cookie set for this origin's {@code /codec}) sees decoded
 * payloads with nothing to configure in the UI; without the cookie the codec server refuses.
 *
 * <p>Hand-written on the JDK's HTTP server and client: the stack has no reverse proxy (Jetty's
 * proxy module is not among the libraries that resolve here), and what passes is one operator's UI
 * traffic — JSON requests and static assets, each read whole. The {@code Host} header must name a
 * loopback host (DNS rebinding), as on the front end's listener.
 */
public final class UiGateway implements AutoCloseable {
  /** The codec server's path on this origin; the UI's codec endpoint is {@code http://<gateway>/codec}. */
  public static final String CODEC_PATH = "/codec";
  private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
      "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length", "expect");
  private static final Set<String> LOOPBACK_HOSTS = Set.of("127.0.0.1", "localhost", "[::1]");

  private final HttpServer server;
  private final ExecutorService executor;
  private final HttpClient client;
  private final URI ui;
  private final URI codec;

  private UiGateway(HttpServer server, ExecutorService executor, URI ui, URI codec) {
    this.server = server;
    this.executor = executor;
    this.ui = ui;
    this.codec = codec;
    this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(Duration.ofSeconds(10)).build();
  }

  /**
   * Listens on {@code ip:port}.
   *
   * @param ui the Temporal UI's own address, e.g. {@code http://127.0.0.1:41233}
   * @param codec the front end's codec server, e.g. {@code http://127.0.0.1:8765/codec}
   */
  public static UiGateway start(String ip, int port, URI ui, URI codec) {
    Objects.requireNonNull(ui, "ui == null");
    Objects.requireNonNull(codec, "codec == null");
    JdkHttpServers.noDelay();
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor = Executors.newFixedThreadPool(8, r -> {
      Thread t = new Thread(r, "onceport-ui-gateway-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(ip, port), 64);
      UiGateway gateway = new UiGateway(server, executor, ui, codec);
      server.setExecutor(executor);
      server.createContext("/", gateway::handle);
      server.start();
      return gateway;
    } catch (IOException e) {
      executor.shutdownNow();
      throw new UncheckedIOException("cannot listen for the Temporal UI on " + ip + ":" + port + ": " + e.getMessage(), e);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String host = String.valueOf(exchange.getRequestHeaders().getFirst("Host"));
      String hostName = host.startsWith("[") ? host.substring(0, host.indexOf(']') + 1) : host.replaceAll(":\\d+$", "");
      if (!LOOPBACK_HOSTS.contains(hostName.toLowerCase(Locale.ROOT))) {
        byte[] body = ("Host " + host + " is not allowed (DNS rebinding): use http://127.0.0.1:" + port() + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(403, body.length);
        exchange.getResponseBody().write(body);
        return;
      }
      String path = exchange.getRequestURI().getRawPath();
      String query = exchange.getRequestURI().getRawQuery();
      String rest = (query == null ? path : path + "?" + query);
      URI target = path.equals(CODEC_PATH) || path.startsWith(CODEC_PATH + "/")
          ? URI.create(codec + rest.substring(CODEC_PATH.length())) : URI.create(ui + rest);
      forward(exchange, target);
    }
  }

  private void forward(HttpExchange exchange, URI target) throws IOException {
    byte[] requestBody;
    try (InputStream in = exchange.getRequestBody()) {
      requestBody = in.readAllBytes();
    }
    HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(60))
        .method(exchange.getRequestMethod(), requestBody.length == 0 ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(requestBody));
    for (Map.Entry<String, List<String>> h : exchange.getRequestHeaders().entrySet()) {
      if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
        h.getValue().forEach(v -> request.header(h.getKey(), v));
      }
    }
    HttpResponse<byte[]> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      byte[] body = ("the Temporal UI or the codec server did not answer: " + e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(502, body.length);
      exchange.getResponseBody().write(body);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exchange.sendResponseHeaders(503, -1);
      return;
    }
    response.headers().map().forEach((name, values) -> {
      if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
        exchange.getResponseHeaders().put(name, values);
      }
    });
    byte[] body = response.body();
    boolean empty = body.length == 0 || "HEAD".equals(exchange.getRequestMethod()) || response.statusCode() == 204
        || response.statusCode() == 304;
    exchange.sendResponseHeaders(response.statusCode(), empty ? -1 : body.length);
    if (!empty) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
