package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.frontend.gateway.GatewayException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When the engine turns a call away for good, the agent is told "busy, retry" — never a failure of the action. */
@Timeout(30)
class BusyAnswerTest {
  private final McpHarness h = new McpHarness();

  @AfterEach
  void close() {
    h.close();
  }

  private static String call(int id) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}";
  }

  @Test
  void busyWithAKnownExecutionNamesItAndIsNotAnError() throws Exception {
    String s = h.initialize("2025-06-18");
    h.gateway.refuseNext = new GatewayException(GatewayException.Kind.BUSY,
        "the execution engine is busy and turned this call away (RESOURCE_EXHAUSTED)", "act_01BUSY", null);
    JsonNode r = McpHarness.json(h.call(s, call(1)).body()).get("result");
    assertFalse(r.get("isError").asBoolean(), "the execution goes on; this is not a failure: " + r);
    assertEquals("act_01BUSY", r.at("/structuredContent/execution_id").asText());
    assertTrue(r.at("/structuredContent/busy").asBoolean());
    String text = r.at("/content/0/text").asText();
    assertTrue(text.startsWith("execution act_01BUSY is busy: the execution engine turned this call away;"), text);
    assertTrue(text.contains("retry the same call"), text);
    assertTrue(h.gateway.reports.isEmpty(), "a busy answer carries no result, so no delivery");
  }

  @Test
  void busyWithoutAnExecutionSaysNothingWasStarted() throws Exception {
    String s = h.initialize("2025-06-18");
    h.gateway.refuseNext = new GatewayException(GatewayException.Kind.BUSY, "RESOURCE_EXHAUSTED", null, null);
    JsonNode r = McpHarness.json(h.call(s, call(2)).body()).get("result");
    assertTrue(r.get("isError").asBoolean(), r.toString());
    assertTrue(r.at("/structuredContent/execution_id").isNull(), r.toString());
    assertTrue(r.at("/content/0/text").asText().startsWith("busy: the execution engine turned this call away and nothing was started"),
        r.toString());
  }
}
