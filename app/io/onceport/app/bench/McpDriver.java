package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load driver's MCP client: JSON-RPC over Streamable HTTP with the JDK client (HTTP/1.1,
 * keep-alive), answering with either a JSON body or an SSE stream, as the server chooses. One
 * session per driver (Onceport: {@code initialize} with 2025-06-18, so streams are not polled);
 * the stateless pass-through needs none.
 */
final class McpDriver {
  static final ObjectMapper JSON = new ObjectMapper();
  /** What the official SDK clients send: the server may answer either way. */
  static final String ACCEPT_SDK = "application/json, text/event-stream";
  static final String ACCEPT_JSON = "application/json";
  static final String PROTOCOL = "2025-06-18";

  private final HttpClient http;
  private final URI uri;
  private final String token;
  private final AtomicLong ids = new AtomicLong();
  private volatile String session;

  McpDriver(HttpClient http, URI uri, String token) {
    this.http = http;
    this.uri = uri;
    this.token = token;
  }

  /** {@code initialize} and {@code notifications/initialized}; keeps the session id. */
  McpDriver initialize() throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(request(ACCEPT_JSON, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
        + "{\"protocolVersion\":\"" + PROTOCOL + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"onceport-bench\",\"version\":\"1\"}}}",
        Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    session = r.headers().firstValue("Mcp-Session-Id").orElseThrow(() ->
        new IllegalStateException("initialize at " + uri + " failed: HTTP " + r.statusCode() + " " + r.body()));
    http.send(request(ACCEPT_JSON, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.discarding());
    return this;
  }

  /** One {@code tools/call}; returns the JSON-RPC result, or throws with what came back instead. */
  JsonNode call(String tool, String argumentsJson, String accept, Duration timeout) throws IOException, InterruptedException {
    long id = ids.incrementAndGet();
    HttpResponse<String> r = http.send(request(accept, toolsCall(id, tool, argumentsJson), timeout).build(),
        HttpResponse.BodyHandlers.ofString());
    return result(id, r);
  }

  /** The same call, sent without waiting (for storms). */
  CompletableFuture<JsonNode> callAsync(String tool, String argumentsJson, String accept, Duration timeout) {
    long id = ids.incrementAndGet();
    return http.sendAsync(request(accept, toolsCall(id, tool, argumentsJson), timeout).build(), HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> {
          try {
            return result(id, r);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }

  /** A {@code ping}: what this driver and the HTTP stack cost without any tool behind them. */
  CompletableFuture<Integer> pingAsync(Duration timeout) {
    long id = ids.incrementAndGet();
    return http.sendAsync(request(ACCEPT_JSON, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}", timeout).build(),
        HttpResponse.BodyHandlers.ofString()).thenApply(HttpResponse::statusCode);
  }

  private static String toolsCall(long id, String tool, String argumentsJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":" + argumentsJson + "}}";
  }

  private HttpRequest.Builder request(String accept, String body, Duration timeout) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Content-Type", "application/json").header("Accept", accept)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", PROTOCOL);
    }
    return b;
  }

  private static JsonNode result(long id, HttpResponse<String> r) throws IOException {
    String type = r.headers().firstValue("Content-Type").orElse("");
    if (r.statusCode() != 200) {
      throw new IOException("HTTP " + r.statusCode() + ": " + abbreviate(r.body()));
    }
    JsonNode message = type.startsWith("text/event-stream") ? fromStream(id, r.body()) : JSON.readTree(r.body());
    if (message == null) {
      throw new IOException("the stream ended without the response to request " + id + ": " + abbreviate(r.body()));
    }
    if (message.has("error")) {
      throw new IOException("JSON-RPC error: " + message.get("error"));
    }
    if (!message.has("result")) {
      throw new IOException("no result: " + abbreviate(message.toString()));
    }
    return message.get("result");
  }

  /** The response with {@code id} among the stream's events (notifications are skipped). */
  private static JsonNode fromStream(long id, String body) throws IOException {
    StringBuilder data = new StringBuilder();
    for (String line : (body + "\n\n").split("\r?\n", -1)) {
      if (line.startsWith("data:")) {
        data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
      } else if (line.isEmpty() && data.length() > 0) {
        String text = data.toString().trim();
        data.setLength(0);
        if (text.isEmpty()) {
          continue;
        }
        JsonNode m = JSON.readTree(text);
        if (m.path("id").asLong(-1) == id && (m.has("result") || m.has("error"))) {
          return m;
        }
      }
    }
    return null;
  }

  static String abbreviate(String s) {
    return s == null ? "" : s.length() > 300 ? s.substring(0, 300) + "…" : s;
  }
}
