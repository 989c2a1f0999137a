package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Request bodies and headers a hostile or broken client sends, against a real MCP front end: each
 * is refused with a clear JSON-RPC error, and the execution layer never sees the call.
 */
@Timeout(60)
class HostileInputTest {
  private final McpHarness h = new McpHarness();
  private String session;

  @BeforeEach
  void initialize() throws Exception {
    session = h.initialize("2025-06-18");
  }

  @AfterEach
  void close() {
    h.close();
  }

  private HttpResponse<String> post(String body, String... headers) throws Exception {
    String[] all = new String[headers.length + 4];
    all[0] = "Mcp-Session-Id";
    all[1] = session;
    all[2] = "Accept";
    all[3] = "application/json";
    System.arraycopy(headers, 0, all, 4, headers.length);
    return h.post(body, all);
  }

  private HttpResponse<String> postBytes(byte[] body) throws Exception {
    return h.http.send(h.request(h.server).header("Mcp-Session-Id", session).setHeader("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode error(HttpResponse<String> r) throws Exception {
    return McpHarness.json(r.body()).get("error");
  }

  private static String call(String arguments) {
    return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":" + arguments + "}}";
  }

  @Test
  void duplicateMethodMemberIsAParseErrorAndNoToolRuns() throws Exception {
    HttpResponse<String> r = post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"method\":\"tools/call\","
        + "\"params\":{\"name\":\"echo\",\"arguments\":{\"n\":1}}}");
    assertEquals(400, r.statusCode());
    assertEquals(-32700, error(r).get("code").asInt());
    assertEquals("Parse error: duplicate member name \"method\" in one object (each name may appear once)",
        error(r).get("message").asText());
    HttpResponse<String> nested = post(call("{\"n\":1,\"n\":2}"));
    assertEquals(400, nested.statusCode());
    assertEquals("Parse error: duplicate member name \"n\" in one object (each name may appear once)",
        error(nested).get("message").asText());
    assertEquals(List.of(), h.gateway.calls);
  }

  @Test
  void escapedLoneSurrogateIsAParseErrorNamingWhereItIs() throws Exception {
    HttpResponse<String> r = post(call("{\"n\":1,\"s\":\"ab\\ud800\"}"));
    assertEquals(400, r.statusCode());
    assertEquals(-32700, error(r).get("code").asInt());
    assertEquals("Parse error: a string at /params/arguments/s contains an unpaired UTF-16 surrogate; "
        + "JSON text must be valid Unicode", error(r).get("message").asText());
    HttpResponse<String> inKey = post(call("{\"\\udc00x\":1}"));
    assertEquals(400, inKey.statusCode());
    assertEquals(SURROGATE_IN_PARSER, error(inKey).get("message").asText());
    HttpResponse<String> reversed = post(call("{\"s\":\"\\ude00\\ud83d\"}"));
    assertEquals(400, reversed.statusCode());
    assertEquals(List.of(), h.gateway.calls);
  }

  private static final String SURROGATE_IN_PARSER = "Parse error: the body contains a UTF-16 surrogate that is not half of a "
      + "pair (or is encoded as UTF-8); JSON text must be valid Unicode";

  @Test
  void rawSurrogateBytesAreInvalidUtf8AndAParseError() throws Exception {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(call("{\"s\":\"").getBytes(StandardCharsets.UTF_8));
    body.writeBytes(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}); // U+D800 encoded as if it were a character
    body.writeBytes("\"}}}".getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> r = postBytes(body.toByteArray());
    assertEquals(400, r.statusCode());
    assertEquals(-32700, error(r).get("code").asInt());
    assertEquals(SURROGATE_IN_PARSER, error(r).get("message").asText());
    assertEquals(List.of(), h.gateway.calls);
  }

  @Test
  void pairedSurrogatesReachTheGatewayIntact() throws Exception {
    HttpResponse<String> r = post(call("{\"n\":1,\"s\":\"\\ud83d\\ude00 \u00e9\"}"));
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("\uD83D\uDE00 \u00e9", h.gateway.calls.get(0).arguments().get("s").asText());
  }

  @Test
  void nonJsonContentTypeGets415AndNothingIsParsed() throws Exception {
    for (String type : List.of("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x", "application/json; charset=iso-8859-1", "application/jsonx")) {
      HttpResponse<String> r = post(call("{\"n\":1}"), "Content-Type", type);
      assertEquals(415, r.statusCode(), type);
      assertTrue(("Unsupported Media Type: POST needs Content-Type: application/json (UTF-8), not " + type)
          .equalsIgnoreCase(error(r).get("message").asText()), error(r).get("message").asText());
      assertEquals("application/json", r.headers().firstValue("Accept-Post").orElse(null));
    }
    assertEquals(List.of(), h.gateway.calls);
    // No declared type at all is read as JSON (browsers always declare one for a cross-origin body).
    try (java.net.Socket s = RawHttp.send(h.server.port(), "POST", null, "Authorization", "Bearer " + McpHarness.TOKEN,
        "Mcp-Session-Id", session, "Accept", "application/json", "Content-Length", Integer.toString(LIST.length()))) {
      s.getOutputStream().write(LIST.getBytes(StandardCharsets.US_ASCII));
      String got = RawHttp.readUntil(s, "]}}");
      assertTrue(got.startsWith("HTTP/1.1 200"), got);
    }
    for (String type : List.of("application/json", "Application/JSON; charset=utf-8", "application/vnd.onceport+json")) {
      assertEquals(200, post(LIST, "Content-Type", type).statusCode(), type);
    }
  }

  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

  @Test
  void idempotencyKeyHeaderOver255CharactersGets400NamingTheLimit() throws Exception {
    HttpResponse<String> r = post(call("{\"n\":1}"), "Idempotency-Key", "k".repeat(256));
    assertEquals(400, r.statusCode());
    assertEquals(-32602, error(r).get("code").asInt());
    assertEquals(7, McpHarness.json(r.body()).get("id").asInt());
    assertEquals("Invalid params: the Idempotency-Key header is not a usable intent key: it is 256 characters long; "
        + "the limit is 255 (1-255 printable characters)", error(r).get("message").asText());
    assertEquals(List.of(), h.gateway.calls);
    assertEquals(200, post(call("{\"n\":1}"), "Idempotency-Key", "k".repeat(255)).statusCode());
    assertEquals("k".repeat(255), h.gateway.calls.get(0).intentKey());
  }

  @Test
  void idempotencyKeyHeaderWithAControlCharacterGets400() throws Exception {
    String body = call("{\"n\":1}");
    try (java.net.Socket s = RawHttp.send(h.server.port(), "POST", body, "Authorization", "Bearer " + McpHarness.TOKEN,
        "Mcp-Session-Id", session, "Accept", "application/json", "Idempotency-Key", "deploy\t42")) {
      String got = RawHttp.readUntil(s, "}}");
      assertTrue(got.startsWith("HTTP/1.1 400"), got);
      assertTrue(got.contains("it contains the control character U+0009"), got);
    }
    assertEquals(List.of(), h.gateway.calls);
  }

  @Test
  void metaIntentKeyThatIsTooLongNotAStringOrHasAControlCharacterIsAJsonRpcError() throws Exception {
    String tooLong = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"n\":1},"
        + "\"_meta\":{\"onceport/intent\":\"" + "\u00e9".repeat(300) + "\"}}}";
    HttpResponse<String> r = post(tooLong);
    assertEquals(200, r.statusCode());
    assertEquals(-32602, error(r).get("code").asInt());
    assertEquals("Invalid params: _meta onceport/intent is not a usable intent key: it is 300 characters long; the limit is 255 "
        + "(1-255 printable characters)", error(r).get("message").asText());
    HttpResponse<String> control = post(tooLong.replace("\u00e9".repeat(300), "a\\nb"));
    assertEquals("Invalid params: _meta onceport/intent is not a usable intent key: it contains the control character U+000A; "
        + "use printable characters only (1-255 printable characters)", error(control).get("message").asText());
    HttpResponse<String> number = post(tooLong.replace("\"" + "\u00e9".repeat(300) + "\"", "42"));
    assertEquals("Invalid params: _meta onceport/intent must be a string", error(number).get("message").asText());
    assertEquals(List.of(), h.gateway.calls);
  }

  @Test
  void integersBeyondTwoToThe53ReachTheGatewayExactly() throws Exception {
    assertEquals(200, post(call("{\"n\":9007199254740993}")).statusCode());
    JsonNode n = h.gateway.calls.get(0).arguments().get("n");
    assertEquals("9007199254740993", n.toString());
    assertEquals(200, post(call("{\"n\":1,\"x\":3.14159265358979323846264338327950288}")).statusCode());
    assertEquals("3.14159265358979323846264338327950288", h.gateway.calls.get(1).arguments().get("x").toString());
  }
}
