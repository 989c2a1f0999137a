package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** Real MCP servers over loopback sharing one fake gateway, and a plain HTTP client. */
final class McpHarness implements AutoCloseable {
  static final byte[] KEY = new byte[32];
  static final String TOKEN = "tok-deployer";
  final FakeGateway gateway = new FakeGateway();
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final McpServer server;
  final McpServer second;

  McpHarness(McpConfig.Builder config) {
    server = new McpServer(config.listenPort(0).build(), gateway, McpHarness::actorFor).start();
    second = new McpServer(config.listenPort(0).build(), gateway, McpHarness::actorFor).start();
  }

  McpHarness() {
    this(base());
  }

  static McpConfig.Builder base() {
    return McpConfig.newBuilder().sessionKey(KEY).callWait(Duration.ofSeconds(3));
  }

  static Optional<String> actorFor(String token) {
    return switch (token) {
      case TOKEN -> Optional.of("agent:deployer");
      case "tok-other" -> Optional.of("agent:other");
      default -> Optional.empty();
    };
  }

  URI uri(McpServer s) {
    return URI.create("http://127.0.0.1:" + s.port() + "/mcp");
  }

  HttpRequest.Builder request(McpServer s) {
    return HttpRequest.newBuilder(uri(s)).timeout(Duration.ofSeconds(20))
        .header("Authorization", "Bearer " + TOKEN)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
  }

  HttpResponse<String> post(McpServer s, String body, String... headers) throws Exception {
    HttpRequest.Builder b = request(s);
    for (int i = 0; i < headers.length; i += 2) {
      b.setHeader(headers[i], headers[i + 1]);
    }
    return http.send(b.POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String body, String... headers) throws Exception {
    return post(server, body, headers);
  }

  /** Initializes a session and returns its id. */
  String initialize(String version) throws Exception {
    HttpResponse<String> r = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
        + version + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test-client\",\"version\":\"1.0\"}}}");
    if (r.statusCode() != 200) {
      throw new AssertionError("initialize: " + r.statusCode() + " " + r.body());
    }
    return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  /** A session request with JSON only (no SSE). */
  HttpResponse<String> call(String session, String body) throws Exception {
    return post(body, "Mcp-Session-Id", session, "Accept", "application/json");
  }

  static JsonNode json(String body) throws Exception {
    return Json.MAPPER.readTree(body);
  }

  @Override
  public void close() {
    server.stop();
    second.stop();
    gateway.close();
  }
}
