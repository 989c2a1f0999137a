package io.onceport.frontend.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.frontend.mcp.HostOriginPolicy;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A worker's {@code --metrics-listen} server checks Host and Origin like the front end's listener. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MetricsServerHostTest {
  private static String get(int port, String path, String... headers) throws Exception {
    StringBuilder req = new StringBuilder("GET " + path + " HTTP/1.1\r\n");
    for (int i = 0; i < headers.length; i += 2) {
      req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    req.append("Connection: close\r\n\r\n");
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(req.toString().getBytes(StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void foreignHostOrOriginGets403OnEveryPathAndLoopbackNamesAreServed() throws Exception {
    try (Metrics metrics = new Metrics();
        MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics, new HealthChecks().add("ok", () -> true))) {
      int port = server.port();
      for (String path : List.of("/metrics", "/healthz", "/readyz", "/other")) {
        String r = get(port, path, "Host", "rebound.evil.example:" + port);
        assertTrue(r.startsWith("HTTP/1.1 403"), path + ": " + r);
        assertTrue(r.contains("{\"error\":\"Forbidden: host rebound.evil.example:" + port + " is not allowed\"}"), r);
        String o = get(port, path, "Host", "127.0.0.1:" + port, "Origin", "https://evil.example");
        assertTrue(o.startsWith("HTTP/1.1 403"), path + ": " + o);
      }
      assertTrue(get(port, "/metrics", "Host", "localhost:" + port).startsWith("HTTP/1.1 200"));
      assertTrue(get(port, "/readyz", "Host", "127.0.0.1:" + port).startsWith("HTTP/1.1 200"));
      assertTrue(get(port, "/other", "Host", "127.0.0.1:" + port).startsWith("HTTP/1.1 404"));
    }
  }

  @Test
  void allowedHostsNameTheScrapersHostAndAWorkerOffLoopbackWithoutThemAcceptsAnyHost() throws Exception {
    HostOriginPolicy named = HostOriginPolicy.lenient("127.0.0.1", List.of("worker"));
    try (Metrics metrics = new Metrics();
        MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics, new HealthChecks(), named)) {
      assertTrue(get(server.port(), "/healthz", "Host", "worker:9464").startsWith("HTTP/1.1 200"));
      assertTrue(get(server.port(), "/healthz", "Host", "127.0.0.1").startsWith("HTTP/1.1 403"));
    }
    HostOriginPolicy open = HostOriginPolicy.lenient("0.0.0.0", List.of());
    assertEquals(null, open.hostProblem("10.1.2.3:9464"));
    assertEquals("Forbidden: origin https://evil.example is not allowed", open.originProblem("https://evil.example", List.of()));
  }
}
