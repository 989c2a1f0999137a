package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.shared.codec.AesGcmPayloadCodec;
import io.onceport.shared.codec.KeyRing;
import io.onceport.app.codec.CodecServer;
import io.onceport.frontend.ops.HealthChecks;
import io.onceport.frontend.ops.Metrics;
import io.onceport.frontend.ops.OpsRoutes;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route on the front end's listener — {@code /metrics}, {@code /healthz}, {@code /readyz},
 * {@code /codec/*}, unknown paths — gets the Host and Origin checks of {@code /mcp}, and a
 * listener off loopback does not start without the host names its clients use.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RouteHostOriginTest {
  private static final String UI = "http://temporal-ui.example:8080";
  private static final List<String[]> ROUTES = List.of(
      new String[] {"GET", "/metrics"}, new String[] {"GET", "/healthz"}, new String[] {"GET", "/readyz"},
      new String[] {"POST", "/codec/decode"}, new String[] {"POST", "/codec/default/encode"},
      new String[] {"OPTIONS", "/codec/decode"}, new String[] {"GET", "/nothing-here"}, new String[] {"POST", "/mcp"});
  @TempDir Path data;
  private McpServer server;
  private Metrics metrics;
  private final FakeGateway gateway = new FakeGateway();

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop();
    }
    if (metrics != null) {
      metrics.close();
    }
    gateway.close();
  }

  private McpServer start(McpConfig.Builder config) {
    metrics = new Metrics();
    OpsRoutes ops = new OpsRoutes(metrics, new HealthChecks().add("always", () -> true));
    CodecServer codec = new CodecServer(new AesGcmPayloadCodec(KeyRing.loadOrCreate(data)), "op-token"::equals,
        List.of(UI), CodecServer.DEFAULT_PREFIX);
    server = new McpServer(config.listenPort(0).extraRouteOrigins(List.of(UI + "/")).extraRoutes(routes -> {
      codec.register(routes);
      ops.register(routes);
    }).build(), gateway, McpHarness::actorFor).start();
    return server;
  }

  /** One raw HTTP/1.1 request to {@code path} (Host 127.0.0.1 unless given); the whole response. */
  private String request(String method, String path, String... headers) throws Exception {
    StringBuilder req = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
    boolean host = false;
    for (int i = 0; i < headers.length; i += 2) {
      host |= headers[i].equalsIgnoreCase("Host");
      req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    if (!host) {
      req.append("Host: 127.0.0.1:").append(server.port()).append("\r\n");
    }
    byte[] body = method.equals("POST") ? "{\"payloads\":[]}".getBytes() : new byte[0];
    req.append("Authorization: Bearer op-token\r\nContent-Type: application/json\r\nConnection: close\r\n")
        .append("Content-Length: ").append(body.length).append("\r\n\r\n");
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(req.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      s.getOutputStream().write(body);
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private static int status(String response) {
    return Integer.parseInt(response.substring(9, 12));
  }

  @Test
  void aForeignHostIsRefusedOnEveryRoute() throws Exception {
    start(McpHarness.base());
    for (String[] route : ROUTES) {
      String r = request(route[0], route[1], "Host", "rebound.evil.example:" + server.port());
      assertEquals(403, status(r), route[1] + ": " + r);
      assertTrue(r.contains("Forbidden: host rebound.evil.example:" + server.port() + " is not allowed"), r);
    }
    assertEquals(200, status(request("GET", "/metrics", "Host", "localhost:" + server.port())));
    assertEquals(200, status(request("GET", "/healthz")));
    assertEquals(200, status(request("GET", "/readyz", "Host", "[::1]:" + server.port())));
    assertEquals(200, status(request("POST", "/codec/decode")));
  }

  @Test
  void aForeignOriginIsRefusedOnEveryRouteAndTheUiOriginOnlyOutsideMcp() throws Exception {
    start(McpHarness.base());
    for (String[] route : ROUTES) {
      String r = request(route[0], route[1], "Origin", "https://evil.example");
      assertEquals(403, status(r), route[1] + ": " + r);
      assertTrue(r.contains("Forbidden: origin https://evil.example is not allowed"), r);
    }
    String preflight = request("OPTIONS", "/codec/decode", "Origin", UI, "Access-Control-Request-Method", "POST");
    assertEquals(204, status(preflight), preflight);
    assertTrue(preflight.contains("Access-Control-Allow-Origin: " + UI), preflight);
    assertEquals(200, status(request("POST", "/codec/decode", "Origin", UI)));
    assertEquals(200, status(request("GET", "/metrics", "Origin", "http://localhost:3000")));
    String mcp = request("POST", "/mcp", "Origin", UI);
    assertEquals(403, status(mcp), mcp);
  }

  @Test
  void allowedHostsReplaceTheLoopbackNames() throws Exception {
    start(McpHarness.base().allowedHosts(List.of("mcp.example.com", "10.0.0.5")));
    assertEquals(200, status(request("GET", "/healthz", "Host", "MCP.example.com:443")));
    assertEquals(200, status(request("GET", "/healthz", "Host", "10.0.0.5:8765")));
    assertEquals(403, status(request("GET", "/healthz", "Host", "127.0.0.1:" + server.port())));
    assertEquals(403, status(request("GET", "/healthz", "Host", "mcp.example.com.evil.example")));
  }

  @Test
  void listeningOffLoopbackWithoutAllowedHostsDoesNotStart() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new McpServer(McpHarness.base().listenHost("0.0.0.0").build(), gateway, McpHarness::actorFor));
    assertEquals("listening on 0.0.0.0, which is not a loopback address, needs the host names clients use "
        + "(--allowed-host NAME, repeatable): without them any web page could reach this listener through DNS rebinding",
        e.getMessage());
  }
}
