package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Revision 2026-07-28: no sessions, per-request _meta, mirrored headers, tasks extension. */
@Timeout(60)
class Revision20260728Test {
  private final McpHarness h = new McpHarness();
  private static final String V = "2026-07-28";

  @AfterEach
  void close() {
    h.close();
  }

  private static String body(Object id, String method, String params, boolean tasks) {
    String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" + V + "\","
        + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"modern\",\"version\":\"2\"},"
        + "\"io.modelcontextprotocol/clientCapabilities\":{" + (tasks ? "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}" : "") + "}}";
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":{" + meta
        + (params.isEmpty() ? "" : "," + params) + "}}";
  }

  private HttpResponse<String> send(McpServer s, String body, String method, String name) throws Exception {
    if (name == null) {
      return h.post(s, body, "MCP-Protocol-Version", V, "Mcp-Method", method, "Accept", "application/json");
    }
    return h.post(s, body, "MCP-Protocol-Version", V, "Mcp-Method", method, "Mcp-Name", name, "Accept", "application/json");
  }

  @Test
  void discoverListsVersionsAndTasksExtensionWithoutSession() throws Exception {
    HttpResponse<String> r = send(h.server, body(1, "server/discover", "", false), "server/discover", null);
    assertEquals(200, r.statusCode(), r.body());
    JsonNode res = McpHarness.json(r.body()).get("result");
    assertEquals("complete", res.get("resultType").asText());
    assertEquals("[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\",\"2025-03-26\"]", res.get("supportedVersions").toString());
    assertTrue(res.at("/capabilities/extensions/io.modelcontextprotocol~1tasks").isObject());
    assertEquals("onceport", res.at("/_meta/io.modelcontextprotocol~1serverInfo/name").asText());
    assertTrue(r.headers().firstValue("Mcp-Session-Id").isEmpty());
  }

  @Test
  void toolsListIsCacheable() throws Exception {
    JsonNode res = McpHarness.json(send(h.server, body(1, "tools/list", "", false), "tools/list", null).body()).get("result");
    assertEquals(60000, res.get("ttlMs").asInt());
    assertEquals("private", res.get("cacheScope").asText());
    assertEquals("broken", res.at("/tools/0/name").asText());
  }

  @Test
  void headersMustMirrorTheBody() throws Exception {
    String call = body(1, "tools/call", "\"name\":\"echo\",\"arguments\":{}", false);
    HttpResponse<String> noMethod = h.post(call, "MCP-Protocol-Version", V, "Accept", "application/json");
    assertEquals(400, noMethod.statusCode());
    assertEquals(-32020, McpHarness.json(noMethod.body()).at("/error/code").asInt());
    assertEquals("Header mismatch: the Mcp-Method header is required", McpHarness.json(noMethod.body()).at("/error/message").asText());

    HttpResponse<String> wrongName = send(h.server, call, "tools/call", "other");
    assertEquals(400, wrongName.statusCode());
    assertEquals("Header mismatch: Mcp-Name header value 'other' does not match body value 'echo'",
        McpHarness.json(wrongName.body()).at("/error/message").asText());

    String encoded = "=?base64?" + Base64.getEncoder().encodeToString("echo".getBytes()) + "?=";
    assertEquals(200, send(h.server, call, "tools/call", encoded).statusCode());

    HttpResponse<String> versionMismatch = h.post(call, "MCP-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/call",
        "Mcp-Name", "echo", "Accept", "application/json");
    assertEquals(400, versionMismatch.statusCode());
    assertEquals("Header mismatch: MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'",
        McpHarness.json(versionMismatch.body()).at("/error/message").asText());
  }

  @Test
  void unsupportedVersionListsSupportedOnes() throws Exception {
    String b = body(1, "tools/list", "", false).replace(V, "2027-01-01");
    HttpResponse<String> r = h.post(b, "MCP-Protocol-Version", "2027-01-01", "Mcp-Method", "tools/list", "Accept", "application/json");
    assertEquals(400, r.statusCode());
    JsonNode err = McpHarness.json(r.body()).get("error");
    assertEquals(-32022, err.get("code").asInt());
    assertEquals("2027-01-01", err.at("/data/requested").asText());
    assertEquals("2026-07-28", err.at("/data/supported/0").asText());
  }

  @Test
  void unknownMethodIs404AndGetIs405() throws Exception {
    HttpResponse<String> r = send(h.server, body(1, "ping", "", false), "ping", null);
    assertEquals(404, r.statusCode());
    assertEquals(-32601, McpHarness.json(r.body()).at("/error/code").asInt());
    HttpResponse<String> get = h.http.send(h.request(h.server).header("MCP-Protocol-Version", V).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(405, get.statusCode());
  }

  @Test
  void callCarriesProtocolEvidenceAndResultType() throws Exception {
    HttpResponse<String> r = send(h.server, body(5, "tools/call", "\"name\":\"echo\",\"arguments\":{},\"_x\":1", false),
        "tools/call", "echo");
    JsonNode res = McpHarness.json(r.body()).get("result");
    assertEquals("complete", res.get("resultType").asText());
    assertFalse(res.get("isError").asBoolean());
    assertEquals("modern/2", h.gateway.calls.get(0).clientInfo());
    assertEquals(V, h.gateway.calls.get(0).protocolVersion());
  }

  @Test
  void slowOutcomeBecomesATaskHandleWhenTheClientSupportsTasks() throws Exception {
    HttpResponse<String> r = send(h.server, body(6, "tools/call", "\"name\":\"hang\",\"arguments\":{}", true), "tools/call", "hang");
    JsonNode res = McpHarness.json(r.body()).get("result");
    assertEquals("task", res.get("resultType").asText(), res.toString());
    String taskId = res.get("taskId").asText();
    assertEquals("working", res.get("status").asText());
    assertTrue(res.has("pollIntervalMs"));
    JsonNode got = McpHarness.json(send(h.second, body(7, "tasks/get", "\"taskId\":\"" + taskId + "\"", true), "tasks/get", null)
        .body()).get("result");
    assertEquals("working", got.get("status").asText());
    assertTrue(got.get("statusMessage").asText().contains("dispatched, outcome pending"));
  }

  @Test
  void reissuedCallAfterACutStreamAttachesToTheFirstExecution() throws Exception {
    h.gateway.slowMillis = 900;
    String first = body(10, "tools/call", "\"name\":\"slow\",\"arguments\":{\"n\":3}", false);
    Socket s = RawHttp.send(h.server.port(), "POST", first, "Authorization", "Bearer " + McpHarness.TOKEN,
        "Accept", "application/json", "MCP-Protocol-Version", V, "Mcp-Method", "tools/call", "Mcp-Name", "slow");
    h.gateway.awaitCalls(1);
    s.close(); // the response stream breaks: the client must re-issue with a new id
    String again = body(11, "tools/call", "\"name\":\"slow\",\"arguments\":{\"n\":3}", false);
    HttpResponse<String> r = send(h.second, again, "tools/call", "slow");
    JsonNode res = McpHarness.json(r.body());
    assertEquals(11, res.get("id").asInt());
    assertEquals("completed", res.at("/result/structuredContent/state").asText());
    assertTrue(res.at("/result/structuredContent/attached").asBoolean());
    assertEquals(1, h.gateway.dispatches.size(), "one dispatch");
  }
}
