package io.onceport.frontend.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * {@code /metrics}, {@code /healthz}, {@code /readyz} for a process without the MCP front end
 * ({@code onceport worker --metrics-listen HOST:PORT}), on the JDK's HTTP server.
 */
public final class MetricsServer implements AutoCloseable {
  private final HttpServer server;

  private MetricsServer(HttpServer server) {
    this.server = server;
  }

  /** Starts listening on {@code host:port} (port 0 picks a free one); throws {@link java.net.BindException} when taken. */
  public static MetricsServer start(String host, int port, Metrics metrics, HealthChecks checks) throws IOException {
    OpsRoutes routes = new OpsRoutes(metrics, checks);
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.createContext("/metrics", ex -> send(ex, 200, OpsRoutes.PROMETHEUS_TYPE, routes.scrape()));
    server.createContext("/healthz", ex -> send(ex, 200, "application/json", OpsRoutes.healthz()));
    server.createContext("/readyz", ex -> {
      OpsRoutes.Response r = routes.readyz();
      send(ex, r.status(), "application/json", r.body());
    });
    server.setExecutor(Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "onceport-metrics-http");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    return new MetricsServer(server);
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
