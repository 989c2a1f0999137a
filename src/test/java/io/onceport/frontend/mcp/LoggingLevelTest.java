package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code logging/setLevel} as a session sees it on its tool-call streams. */
@Timeout(60)
class LoggingLevelTest {
  private final McpHarness h = new McpHarness();

  @AfterEach
  void close() {
    h.close();
  }

  private JsonNode setLevel(String session, String level) throws Exception {
    return McpHarness.json(h.call(session, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\""
        + level + "\"}}").body());
  }

  /** The stream of one echo call: its log messages and its result. */
  private record Streamed(List<JsonNode> logs, JsonNode result) {}

  private Streamed echo(String session, int n) throws Exception {
    HttpResponse<String> r = h.post("{\"jsonrpc\":\"2.0\",\"id\":\"c-" + n + "\",\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"echo\",\"arguments\":{\"n\":" + n + "}}}", "Mcp-Session-Id", session);
    assertEquals("text/event-stream", r.headers().firstValue("Content-Type").orElse("").split(";")[0], r.body());
    List<JsonNode> logs = new ArrayList<>();
    JsonNode result = null;
    for (SseResumptionTest.Event e : SseResumptionTest.events(r.body())) {
      if (e.data() == null || e.data().isEmpty()) {
        continue;
      }
      JsonNode m = McpHarness.json(e.data());
      if ("notifications/message".equals(m.path("method").asText())) {
        logs.add(m.get("params"));
      } else if (m.has("result")) {
        result = m.get("result");
      }
    }
    return new Streamed(logs, result);
  }

  @Test
  void aSessionAtInfoGetsEachTransitionAsALogMessageAndSessionsAtNoneOrWarningGetNone() throws Exception {
    String info = h.initialize("2025-06-18");
    String none = h.initialize("2025-06-18");
    String warning = h.initialize("2025-06-18");
    assertTrue(setLevel(info, "info").get("result").isObject());
    assertTrue(setLevel(warning, "warning").get("result").isObject());

    Streamed logged = echo(info, 1);
    String executionId = logged.result().at("/structuredContent/execution_id").asText();
    assertTrue(executionId.startsWith("act_"), logged.result().toString());
    List<String> states = logged.logs().stream().map(p -> p.at("/data/state").asText()).toList();
    assertEquals("accepted", states.get(0), states.toString());
    assertEquals("completed", states.get(states.size() - 1), states.toString());
    for (JsonNode p : logged.logs()) {
      assertEquals("info", p.get("level").asText());
      assertEquals("onceport", p.get("logger").asText());
      assertEquals(executionId, p.at("/data/execution_id").asText());
    }
    assertEquals(List.of(), echo(none, 2).logs());
    assertEquals(List.of(), echo(warning, 3).logs());
  }

  @Test
  void anUnknownLevelIsInvalidParamsListingTheLevelsInOrder() throws Exception {
    String s = h.initialize("2025-06-18");
    JsonNode bad = setLevel(s, "loud");
    assertEquals(-32602, bad.at("/error/code").asInt());
    assertEquals("Invalid params: level must be one of [debug, info, notice, warning, error, critical, alert, emergency]",
        bad.at("/error/message").asText());
    assertEquals(List.of(), echo(s, 4).logs());
  }
}
