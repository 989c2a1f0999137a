package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SEP-3182 shape on the gateway's own endpoint: {@code tools.idempotency} advertised, and a
 * client's {@code params.idempotencyKey} taken as its intent key, like {@code _meta}
 * {@code "onceport/intent"} and the {@code Idempotency-Key} header.
 */
@Timeout(60)
class ProposedIdempotencyKeyTest {
  private final McpHarness h = new McpHarness();

  @AfterEach
  void close() {
    h.close();
  }

  private static String call(Object id, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":" + params + "}";
  }

  @Test
  void initializeAdvertisesToolsIdempotency() throws Exception {
    HttpResponse<String> r = h.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    JsonNode tools = McpHarness.json(r.body()).at("/result/capabilities/tools");
    assertTrue(tools.get("idempotency").isObject(), r.body());
    assertEquals(false, tools.get("listChanged").asBoolean());
  }

  @Test
  void paramsIdempotencyKeyIsTheCallsIntentKey() throws Exception {
    String s = h.initialize("2025-06-18");
    h.call(s, call(1, "{\"name\":\"echo\",\"arguments\":{\"n\":1},\"idempotencyKey\":\"sep-key-1\"}"));
    assertEquals("sep-key-1", h.gateway.calls.get(0).intentKey());
  }

  @Test
  void theSameKeyInParamsAndMetaIsOneKeyAndDifferentKeysAreRefusedBeforeAnythingIsCalled() throws Exception {
    String s = h.initialize("2025-06-18");
    h.call(s, call(1, "{\"name\":\"echo\",\"arguments\":{},\"idempotencyKey\":\"k\",\"_meta\":{\"onceport/intent\":\"k\"}}"));
    assertEquals("k", h.gateway.calls.get(0).intentKey());

    JsonNode differs = McpHarness.json(h.call(s,
        call(2, "{\"name\":\"echo\",\"arguments\":{},\"idempotencyKey\":\"k\",\"_meta\":{\"onceport/intent\":\"other\"}}")).body());
    assertEquals(-32602, differs.at("/error/code").asInt(), differs.toString());
    assertEquals("Invalid params: idempotencyKey differs from the intent key in _meta onceport/intent or the Idempotency-Key"
        + " header; send one key", differs.at("/error/message").asText());
    HttpResponse<String> header = h.post(call(3, "{\"name\":\"echo\",\"arguments\":{},\"idempotencyKey\":\"k\"}"),
        "Mcp-Session-Id", s, "Accept", "application/json", "Idempotency-Key", "k2");
    assertEquals(-32602, McpHarness.json(header.body()).at("/error/code").asInt(), header.body());
    assertEquals(1, h.gateway.calls.size(), "refused calls never reached the gateway");
  }

  @Test
  void anIdempotencyKeyThatIsNotANonEmptyStringIsInvalidParams() throws Exception {
    String s = h.initialize("2025-06-18");
    for (String bad : new String[] {"42", "\"\"", "{}"}) {
      JsonNode r = McpHarness.json(h.call(s, call(1, "{\"name\":\"echo\",\"arguments\":{},\"idempotencyKey\":" + bad + "}")).body());
      assertEquals("Invalid params: idempotencyKey must be a non-empty string", r.at("/error/message").asText(), bad);
    }
    assertEquals(0, h.gateway.calls.size());
  }
}
