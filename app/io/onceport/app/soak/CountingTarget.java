package io.onceport.app.soak;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The soak's HTTP target: answers every {@code POST} with 201 and counts requests and requests
 * without an {@code Idempotency-Key}. Unlike the demo target it keeps no ledger, so its memory is
 * constant however long the soak runs and the gateway's figures are not mixed with a growing list.
 */
final class CountingTarget implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService pool;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong withoutKey = new AtomicLong();

  private CountingTarget(HttpServer server, ExecutorService pool) {
    this.server = server;
    this.pool = pool;
  }

  static CountingTarget start() throws IOException {
    io.onceport.shared.net.JdkHttpServers.noDelay();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "soak-target");
      t.setDaemon(true);
      return t;
    });
    CountingTarget target = new CountingTarget(server, pool);
    server.createContext("/", exchange -> {
      try (exchange; InputStream in = exchange.getRequestBody()) {
        in.readAllBytes();
        long n = target.requests.incrementAndGet();
        if (exchange.getRequestHeaders().getFirst("Idempotency-Key") == null) {
          target.withoutKey.incrementAndGet();
        }
        byte[] body = ("{\"id\":\"soak_" + n + "\"}").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(201, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    });
    server.setExecutor(pool);
    server.start();
    return target;
  }

  int port() {
    return server.getAddress().getPort();
  }

  long requests() {
    return requests.get();
  }

  long requestsWithoutKey() {
    return withoutKey.get();
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
