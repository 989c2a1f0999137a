package io.onceport.app.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** One MCP session over Streamable HTTP with JSON answers: what an agent does, without an SDK. */
final class McpCaller {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http;
  private final URI mcp;
  private final String token;
  private final String protocol;
  private final String session;
  private final AtomicLong ids = new AtomicLong(1);

  private McpCaller(HttpClient http, URI mcp, String token, String protocol, String session) {
    this.http = http;
    this.mcp = mcp;
    this.token = token;
    this.protocol = protocol;
    this.session = session;
  }

  /** {@code initialize} and {@code notifications/initialized} under {@code protocol}. */
  static McpCaller open(HttpClient http, URI mcp, String token, String protocol, String clientName)
      throws IOException, InterruptedException {
    ObjectNode init = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 0).put("method", "initialize");
    init.putObject("params").put("protocolVersion", protocol).set("capabilities", JSON.createObjectNode());
    ((ObjectNode) init.get("params")).putObject("clientInfo").put("name", clientName).put("version", "1");
    HttpResponse<String> r = http.send(request(mcp, token, null, null, null, init.toString()), HttpResponse.BodyHandlers.ofString());
    String session = r.headers().firstValue("Mcp-Session-Id")
        .orElseThrow(() -> new IOException("initialize answered " + r.statusCode() + " without a session: " + r.body()));
    McpCaller caller = new McpCaller(http, mcp, token, protocol, session);
    http.send(request(mcp, token, session, protocol, null, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
        HttpResponse.BodyHandlers.discarding());
    return caller;
  }

  /**
   * {@code tools/call}; {@code intentKey} (or null) goes in the {@code Idempotency-Key} header;
   * {@code asTask} asks for a task handle instead of waiting (2025-11-25).
   *
   * @return the JSON-RPC response
   */
  JsonNode call(String tool, JsonNode arguments, String intentKey, boolean asTask) throws IOException, InterruptedException {
    ObjectNode req = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", ids.getAndIncrement()).put("method", "tools/call");
    ObjectNode params = req.putObject("params").put("name", tool);
    params.set("arguments", arguments);
    if (asTask) {
      params.putObject("task");
    }
    HttpResponse<String> r = http.send(request(mcp, token, session, protocol, intentKey, req.toString()),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("tools/call answered HTTP " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body());
  }

  private static HttpRequest request(URI mcp, String token, String session, String protocol, String intentKey, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(mcp).timeout(Duration.ofMinutes(2))
        .header("Authorization", "Bearer " + token)
        .header("Content-Type", "application/json").header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", protocol);
    }
    if (intentKey != null) {
      b.header("Idempotency-Key", intentKey);
    }
    return b.build();
  }
}
