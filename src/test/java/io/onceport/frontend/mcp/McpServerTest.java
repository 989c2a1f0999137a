package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class McpServerTest {
  private final McpHarness h = new McpHarness();

  @AfterEach
  void close() {
    h.close();
  }

  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

  private static String call(Object id, String tool, String args) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":" + args + "}}";
  }

  @Test
  void requestWithoutBearerTokenGets401WithChallenge() throws Exception {
    HttpResponse<String> r = h.http.send(HttpRequest.newBuilder(h.uri(h.server))
        .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofString(LIST)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(401, r.statusCode());
    assertEquals("Bearer", r.headers().firstValue("WWW-Authenticate").orElse(null));
    assertEquals("Unauthorized: an Authorization: Bearer token is required", McpHarness.json(r.body()).at("/error/message").asText());
  }

  @Test
  void unknownTokenGets401() throws Exception {
    HttpResponse<String> r = h.post(LIST, "Authorization", "Bearer nope");
    assertEquals(401, r.statusCode());
    assertEquals("Unauthorized: unknown or revoked token", McpHarness.json(r.body()).at("/error/message").asText());
  }

  @Test
  void foreignOriginGets403AndLoopbackOriginIsAllowed() throws Exception {
    HttpResponse<String> bad = h.post(LIST, "Origin", "https://evil.example");
    assertEquals(403, bad.statusCode());
    assertEquals("Forbidden: origin https://evil.example is not allowed", McpHarness.json(bad.body()).at("/error/message").asText());
    String session = h.initialize("2025-06-18");
    for (String o : List.of("http://localhost:3000", "https://127.0.0.1", "http://[::1]:8080")) {
      assertEquals(200, h.post(LIST, "Origin", o, "Mcp-Session-Id", session).statusCode(), o);
    }
    assertEquals(403, h.post(LIST, "Origin", "http://localhost.evil.example", "Mcp-Session-Id", session).statusCode());
  }

  @Test
  void foreignHostHeaderGets403OnLoopback() throws Exception {
    String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\"}}";
    try (java.net.Socket s = RawHttp.send(h.server.port(), "POST", init, "Authorization", "Bearer " + McpHarness.TOKEN,
        "Accept", "application/json, text/event-stream", "Host", "evil.example.com")) {
      String got = RawHttp.readUntil(s, "}}");
      assertTrue(got.startsWith("HTTP/1.1 403"), got);
      assertTrue(got.contains("Forbidden: host evil.example.com is not allowed"), got);
    }
    for (String host : List.of("localhost:" + h.server.port(), "[::1]:" + h.server.port(), "127.0.0.1")) {
      try (java.net.Socket s = RawHttp.send(h.server.port(), "POST", init, "Authorization", "Bearer " + McpHarness.TOKEN,
          "Accept", "application/json", "Host", host)) {
        String got = RawHttp.readUntil(s, "}}");
        assertTrue(got.startsWith("HTTP/1.1 200"), host + ": " + got);
      }
    }
  }

  @Test
  void postAcceptingNeitherJsonNorSseGets406() throws Exception {
    assertEquals(406, h.post(LIST, "Accept", "text/html").statusCode());
  }

  @Test
  void initializeNegotiatesVersionAndIssuesSession() throws Exception {
    HttpResponse<String> r = h.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
        + "{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}");
    assertEquals(200, r.statusCode());
    JsonNode res = McpHarness.json(r.body()).get("result");
    assertEquals("2025-03-26", res.get("protocolVersion").asText());
    assertTrue(r.headers().firstValue("Mcp-Session-Id").isPresent());
    assertFalse(res.get("capabilities").has("tasks"));

    HttpResponse<String> unknown = h.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
        + "{\"protocolVersion\":\"2024-01-01\",\"capabilities\":{}}}");
    JsonNode res2 = McpHarness.json(unknown.body()).get("result");
    assertEquals("2025-11-25", res2.get("protocolVersion").asText());
    assertTrue(res2.at("/capabilities/tasks/requests/tools/call").isObject());
  }

  @Test
  void sessionIsRequiredAndDeleteEndsIt() throws Exception {
    HttpResponse<String> missing = h.post(LIST, "Accept", "application/json");
    assertEquals(400, missing.statusCode());
    assertEquals("Bad Request: the Mcp-Session-Id header is required (call initialize first)",
        McpHarness.json(missing.body()).at("/error/message").asText());
    assertEquals(404, h.call("forged.session", LIST).statusCode());

    String session = h.initialize("2025-06-18");
    assertEquals(200, h.call(session, LIST).statusCode());
    // any front end with the same key accepts the session
    assertEquals(200, h.post(h.second, LIST, "Mcp-Session-Id", session, "Accept", "application/json").statusCode());
    // another actor cannot use it
    assertEquals(404, h.post(LIST, "Mcp-Session-Id", session, "Authorization", "Bearer tok-other").statusCode());

    HttpResponse<String> del = h.http.send(h.request(h.server).header("Mcp-Session-Id", session).DELETE().build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(204, del.statusCode());
    HttpResponse<String> after = h.call(session, LIST);
    assertEquals(404, after.statusCode());
    assertEquals(-32001, McpHarness.json(after.body()).at("/error/code").asInt());
  }

  @Test
  void getAndDeleteAreAuthenticatedBeforeTheirHandlerRunsAndUnroutedMethodsAreNot() throws Exception {
    String session = h.initialize("2025-06-18");
    HttpResponse<String> get = h.http.send(HttpRequest.newBuilder(h.uri(h.server)).header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", session).header("Last-Event-ID", "act_x/call_y/0").GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(401, get.statusCode());
    assertEquals("Bearer", get.headers().firstValue("WWW-Authenticate").orElse(null));
    HttpResponse<String> del = h.http.send(HttpRequest.newBuilder(h.uri(h.server)).header("Mcp-Session-Id", session)
        .header("Authorization", "Bearer tok-nobody").DELETE().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(401, del.statusCode());
    assertEquals("Unauthorized: unknown or revoked token", McpHarness.json(del.body()).at("/error/message").asText());
    assertEquals(200, h.call(session, LIST).statusCode(), "the refused DELETE did not end the session");
    HttpResponse<String> put = h.http.send(HttpRequest.newBuilder(h.uri(h.server))
        .PUT(HttpRequest.BodyPublishers.ofString(LIST)).build(), HttpResponse.BodyHandlers.ofString());
    assertFalse(put.headers().firstValue("WWW-Authenticate").isPresent(), "PUT has no route: " + put.statusCode());
    assertTrue(put.statusCode() == 404 || put.statusCode() == 405, "PUT /mcp: " + put.statusCode());
  }

  @Test
  void unsupportedProtocolVersionHeaderGets400() throws Exception {
    String session = h.initialize("2025-06-18");
    HttpResponse<String> r = h.post(LIST, "Mcp-Session-Id", session, "MCP-Protocol-Version", "1999-01-01");
    assertEquals(400, r.statusCode());
    assertEquals("Bad Request: unsupported MCP-Protocol-Version '1999-01-01' (supported: 2025-03-26, 2025-06-18, 2025-11-25)",
        McpHarness.json(r.body()).at("/error/message").asText());
  }

  @Test
  void notificationsAndResponsesGet202WithoutBody() throws Exception {
    String session = h.initialize("2025-06-18");
    HttpResponse<String> n = h.call(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assertEquals(202, n.statusCode());
    assertEquals("", n.body());
    HttpResponse<String> resp = h.call(session, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}");
    assertEquals(202, resp.statusCode());
  }

  @Test
  void batchesAreRejectedFrom20250618AndServedIn20250326() throws Exception {
    String s = h.initialize("2025-06-18");
    HttpResponse<String> r = h.call(s, "[" + LIST + "]");
    assertEquals(400, r.statusCode());
    JsonNode err = McpHarness.json(r.body()).get("error");
    assertEquals(-32600, err.get("code").asInt());
    assertEquals("Invalid Request: batches are not supported in protocol version 2025-06-18; send one JSON-RPC message per POST",
        err.get("message").asText());

    HttpResponse<String> sessionless = h.post("[" + LIST + "]", "Accept", "application/json");
    assertEquals(400, sessionless.statusCode());
    assertEquals("Invalid Request: batches are not supported in requests without a session; send one JSON-RPC message per POST",
        McpHarness.json(sessionless.body()).at("/error/message").asText());

    String old = h.initialize("2025-03-26");
    HttpResponse<String> ok = h.call(old, "[" + LIST + ",{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]");
    assertEquals(200, ok.statusCode());
    assertEquals(2, McpHarness.json(ok.body()).size());
  }

  @Test
  void parseErrorUnknownMethodAndInvalidParamsHaveTheirCodes() throws Exception {
    String s = h.initialize("2025-06-18");
    HttpResponse<String> parse = h.call(s, "{not json");
    assertEquals(400, parse.statusCode());
    assertEquals(-32700, McpHarness.json(parse.body()).at("/error/code").asInt());
    HttpResponse<String> unknown = h.call(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/list\"}");
    assertEquals(-32601, McpHarness.json(unknown.body()).at("/error/code").asInt());
    assertEquals(9, McpHarness.json(unknown.body()).get("id").asInt());
    HttpResponse<String> bad = h.call(s, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"loud\"}}");
    assertEquals(-32602, McpHarness.json(bad.body()).at("/error/code").asInt());
    HttpResponse<String> ok = h.call(s, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
    assertTrue(McpHarness.json(ok.body()).get("result").isObject());
  }

  @Test
  void toolsListIsSortedWithAnnotationsFromReplayClass() throws Exception {
    String s = h.initialize("2025-11-25");
    JsonNode tools = McpHarness.json(h.call(s, LIST).body()).at("/result/tools");
    List<String> names = new java.util.ArrayList<>();
    tools.forEach(t -> names.add(t.get("name").asText()));
    assertEquals(List.of("broken", "echo", "gated", "hang", "onceport_execution_status", "slow", "unsure"), names);
    JsonNode echo = tools.get(1);
    assertTrue(echo.at("/annotations/idempotentHint").asBoolean());
    assertFalse(echo.at("/annotations/destructiveHint").asBoolean());
    assertEquals("optional", echo.at("/execution/taskSupport").asText());
    assertTrue(tools.get(3).at("/annotations/readOnlyHint").asBoolean());
    assertTrue(tools.get(6).at("/annotations/destructiveHint").asBoolean());
    assertEquals("object", echo.at("/inputSchema/type").asText());
  }

  @Test
  void completedCallCarriesBodyAndRecordAndIsReportedDelivered() throws Exception {
    String s = h.initialize("2025-06-18");
    HttpResponse<String> r = h.post(call(7, "echo", "{\"n\":1}"), "Mcp-Session-Id", s, "Accept", "application/json",
        "Onceport-Run", "run-1", "Idempotency-Key", "key-1");
    assertEquals(200, r.statusCode());
    JsonNode res = McpHarness.json(r.body()).get("result");
    assertFalse(res.get("isError").asBoolean());
    assertEquals("{\"ok\":true,\"tool\":\"echo\"}", res.at("/content/0/text").asText());
    JsonNode sc = res.get("structuredContent");
    assertEquals("completed", sc.get("state").asText());
    assertEquals(200, sc.get("target_status").asInt());
    String id = sc.get("execution_id").asText();
    var reports = h.gateway.awaitReports(id, 1);
    assertEquals(1, reports.size());
    assertTrue(reports.get(0).report().delivered());
    var c = h.gateway.calls.get(0);
    assertEquals("agent:deployer", c.actor());
    assertEquals("run-1", c.runId());
    assertEquals("key-1", c.intentKey());
    assertEquals("7", c.jsonRpcId());
    assertEquals("2025-06-18", c.protocolVersion());
    assertEquals("test-client/1.0", c.clientInfo());
    assertEquals(3000, c.waitMillis());
    assertNotNull(c.sessionId());
  }

  @Test
  void failedCallIsErrorWithBodyAndPendingCallIsNotAFailure() throws Exception {
    String s = h.initialize("2025-06-18");
    JsonNode failed = McpHarness.json(h.call(s, call(1, "broken", "{}")).body()).get("result");
    assertTrue(failed.get("isError").asBoolean());
    assertEquals("{\"error\":\"boom\"}", failed.at("/content/0/text").asText());
    assertEquals(500, failed.at("/structuredContent/target_status").asInt());

    JsonNode pending = McpHarness.json(h.call(s, call(2, "hang", "{}")).body()).get("result");
    assertFalse(pending.get("isError").asBoolean());
    String id = pending.at("/structuredContent/execution_id").asText();
    // normally dispatched by now; on a loaded machine the fake may still be a step behind
    String state = pending.at("/structuredContent/state").asText();
    assertTrue(List.of("accepted", "authorized", "dispatched").contains(state), state);
    assertTrue(pending.at("/content/0/text").asText().startsWith("execution " + id + " is " + state
        + ", outcome pending; call onceport_execution_status with this execution_id"), pending.toString());
    assertTrue(h.gateway.reportsFor(id).isEmpty(), "a pending answer is not a delivery");

    JsonNode review = McpHarness.json(h.call(s, call(3, "unsure", "{}")).body()).get("result");
    assertFalse(review.get("isError").asBoolean());
    assertTrue(review.at("/content/0/text").asText().contains("outcome unknown, waiting for operator review; do not retry"));

    JsonNode status = McpHarness.json(h.call(s, call(4, "onceport_execution_status", "{\"execution_id\":\"" + id + "\"}"))
        .body()).get("result");
    assertEquals("hang", status.at("/structuredContent/tool").asText());
    assertEquals(id, status.at("/structuredContent/execution_id").asText());
    HttpResponse<String> other = h.post(call(5, "onceport_execution_status", "{\"execution_id\":\"" + id + "\"}"),
        "Authorization", "Bearer tok-other", "Mcp-Session-Id", sessionOf("tok-other"), "Accept", "application/json");
    assertEquals("No execution " + id + " for this caller", McpHarness.json(other.body()).at("/result/content/0/text").asText());
  }

  private String sessionOf(String token) throws Exception {
    HttpResponse<String> r = h.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
        "Authorization", "Bearer " + token);
    return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  @Test
  void unknownToolIsJsonRpcErrorAndInvalidArgumentsAreToolErrors() throws Exception {
    String s = h.initialize("2025-06-18");
    JsonNode unknown = McpHarness.json(h.call(s, call(1, "nope", "{}")).body());
    assertEquals(-32602, unknown.at("/error/code").asInt());
    assertEquals("Unknown tool: nope", unknown.at("/error/message").asText());
    JsonNode invalid = McpHarness.json(h.call(s, call(2, "echo", "{\"n\":\"x\"}")).body()).get("result");
    assertTrue(invalid.get("isError").asBoolean());
    assertEquals("Invalid arguments: n must be an integer", invalid.at("/content/0/text").asText());
  }

  @Test
  void busyPortIsAClearError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      McpServer s = new McpServer(McpHarness.base().listenPort(taken.getLocalPort()).build(), h.gateway, McpHarness::actorFor);
      IllegalStateException e = assertThrows(IllegalStateException.class, s::start);
      assertEquals("cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": address already in use", e.getMessage());
    }
  }

  @Test
  void anonymousAccessIsRefusedOffLoopback() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new McpServer(
        McpHarness.base().allowAnonymous(true).listenHost("0.0.0.0").build(), h.gateway, McpHarness::actorFor));
    assertEquals("anonymous access is only permitted on a loopback address, not 0.0.0.0", e.getMessage());
  }
}
