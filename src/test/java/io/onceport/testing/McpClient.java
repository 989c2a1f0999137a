package io.onceport.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A small MCP Streamable HTTP client for end-to-end tests: JSON responses (Accept:
 * application/json), one session, and a raw-socket call that hangs up before the answer arrives.
 */
public final class McpClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI endpoint;
  private final String token;
  private String session;

  public McpClient(int port, String token) {
    this.endpoint = URI.create("http://127.0.0.1:" + port + "/mcp");
    this.token = token;
  }

  public McpClient initialize() throws IOException, InterruptedException {
    return initialize("e2e-client", "1.0");
  }

  /** As {@link #initialize()}, with this {@code clientInfo} (any text: it is JSON-encoded). */
  public McpClient initialize(String clientName, String clientVersion) throws IOException, InterruptedException {
    ObjectNode init = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 0).put("method", "initialize");
    ObjectNode params = init.putObject("params").put("protocolVersion", "2025-06-18");
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", clientName).put("version", clientVersion);
    HttpResponse<String> r = post(init.toString());
    if (r.statusCode() != 200) {
      throw new IOException("initialize failed: " + r.statusCode() + " " + r.body());
    }
    session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return this;
  }

  public String session() {
    return session;
  }

  /** DELETE /mcp: ends the MCP session (and the agent session's workflow with it). */
  public void endSession() throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(30)).DELETE()
        .header("Mcp-Session-Id", session);
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException("DELETE /mcp answered " + r.statusCode() + ": " + r.body());
    }
  }

  public static String callBody(Object id, String tool, JsonNode arguments) {
    ObjectNode req = JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "tools/call");
    req.set("id", JSON.valueToTree(id));
    ObjectNode params = req.putObject("params").put("name", tool);
    params.set("arguments", arguments);
    return req.toString();
  }

  /** tools/call; returns the whole JSON-RPC response. */
  public JsonNode call(Object id, String tool, JsonNode arguments) throws IOException, InterruptedException {
    HttpResponse<String> r = post(callBody(id, tool, arguments));
    if (r.statusCode() != 200) {
      throw new IOException("tools/call answered HTTP " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body());
  }

  public HttpResponse<String> post(String body, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18");
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      return new SseBody(r).asJsonResponse();
    }
    return r;
  }

  /**
   * Sends a tools/call on a raw socket and closes the socket after {@code hangUpAfter}, before the
   * answer: the client is gone when the gateway writes the result.
   */
  public void callAndHangUp(Object id, String tool, JsonNode arguments, Duration hangUpAfter) throws IOException, InterruptedException {
    callAndHangUp(id, tool, arguments, () -> Thread.sleep(hangUpAfter.toMillis()));
  }

  /** Something to wait for, such as the request having reached the target. */
  @FunctionalInterface
  public interface Wait {
    void await() throws InterruptedException;
  }

  /**
   * As {@link #callAndHangUp(Object, String, JsonNode, Duration)}, closing the socket once
   * {@code hangUpWhen} returns (a condition, not a guess at how long the gateway takes).
   */
  public void callAndHangUp(Object id, String tool, JsonNode arguments, Wait hangUpWhen) throws IOException, InterruptedException {
    byte[] body = callBody(id, tool, arguments).getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", endpoint.getPort())) {
      OutputStream out = socket.getOutputStream();
      String head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + endpoint.getPort() + "\r\n"
          + "Content-Type: application/json\r\nAccept: application/json\r\n"
          + "Authorization: Bearer " + token + "\r\n"
          + "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: 2025-06-18\r\n"
          + "Content-Length: " + body.length + "\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      hangUpWhen.await();
      socket.setSoLinger(true, 0);
    }
  }

  /** Extracts the last JSON-RPC message of an SSE response, for callers that want plain JSON. */
  private record SseBody(HttpResponse<String> response) {
    HttpResponse<String> asJsonResponse() {
      String last = null;
      for (String line : response.body().split("\n")) {
        if (line.startsWith("data:") && line.length() > 5 && !line.substring(5).isBlank()) {
          last = line.substring(5).trim();
        }
      }
      String body = last == null ? "" : last;
      return new HttpResponse<>() {
        public int statusCode() { return response.statusCode(); }
        public HttpRequest request() { return response.request(); }
        public java.util.Optional<HttpResponse<String>> previousResponse() { return java.util.Optional.empty(); }
        public java.net.http.HttpHeaders headers() { return response.headers(); }
        public String body() { return body; }
        public java.util.Optional<javax.net.ssl.SSLSession> sslSession() { return java.util.Optional.empty(); }
        public URI uri() { return response.uri(); }
        public HttpClient.Version version() { return response.version(); }
      };
    }
  }

  public static JsonNode json(String text) throws IOException {
    return JSON.readTree(text);
  }

  public static InputStream nothing() {
    return InputStream.nullInputStream();
  }
}
