package io.onceport.frontend.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.onceport.frontend.mcp.HostOriginPolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * {@code /metrics}, {@code /healthz}, {@code /readyz} for a process without the MCP front end
 * ({@code onceport worker --metrics-listen HOST:PORT}), on the JDK's HTTP server, with the same
 * Host and Origin checks as the front end's listener.
 */
public final class MetricsServer implements AutoCloseable {
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
  private final HttpServer server;

  private MetricsServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts listening on {@code host:port} (port 0 picks a free one); throws {@link java.net.BindException} when taken.
   * Host and Origin are checked as {@link HostOriginPolicy#lenient} with no allowed hosts.
   */
  public static MetricsServer start(String host, int port, Metrics metrics, HealthChecks checks) throws IOException {
    return start(host, port, metrics, checks, HostOriginPolicy.lenient(host, List.of()));
  }

  /**
   * As {@link #start(String, int, Metrics, HealthChecks)}, answering 403 to a request whose
   * {@code Host} or {@code Origin} the policy refuses (DNS rebinding, cross-site reads).
   */
  public static MetricsServer start(String host, int port, Metrics metrics, HealthChecks checks, HostOriginPolicy policy)
      throws IOException {
    OpsRoutes routes = new OpsRoutes(metrics, checks);
    io.onceport.shared.net.JdkHttpServers.noDelay();
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.createContext("/", ex -> {
      if (!refused(ex, policy)) {
        send(ex, 404, "application/json", "{\"error\":\"not found\"}");
      }
    });
    server.createContext("/metrics", ex -> {
      if (!refused(ex, policy)) {
        send(ex, 200, OpsRoutes.PROMETHEUS_TYPE, routes.scrape());
      }
    });
    server.createContext("/healthz", ex -> {
      if (!refused(ex, policy)) {
        send(ex, 200, "application/json", OpsRoutes.healthz());
      }
    });
    server.createContext("/readyz", ex -> {
      if (!refused(ex, policy)) {
        OpsRoutes.Response r = routes.readyz();
        send(ex, r.status(), "application/json", r.body());
      }
    });
    server.setExecutor(Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "onceport-metrics-http");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    return new MetricsServer(server);
  }

  /** Answers 403 and returns true when the policy refuses the request's Host or Origin. */
  private static boolean refused(HttpExchange ex, HostOriginPolicy policy) throws IOException {
    String problem = policy.hostProblem(ex.getRequestHeaders().getFirst("Host"));
    if (problem == null) {
      problem = policy.originProblem(ex.getRequestHeaders().getFirst("Origin"), List.of());
    }
    if (problem == null) {
      return false;
    }
    try (ex) {
      byte[] bytes = JSON.createObjectNode().put("error", problem).toString().getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(403, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
    return true;
  }

  private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      if (!ex.getRequestMethod().equals("GET") || !path.equals(ex.getHttpContext().getPath())) {
        ex.sendResponseHeaders(path.equals(ex.getHttpContext().getPath()) ? 405 : 404, -1);
        return;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", type);
      ex.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
