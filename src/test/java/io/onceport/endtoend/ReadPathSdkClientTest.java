package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.Node22;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The official TypeScript SDK client (pinned in src/test/node) on the read path: it accepts the
 * read's SSE answer (no priming event, no event ids), sees one progress notification per step and
 * the steps as log messages, and gets the target's body with no execution behind it.
 */
@Timeout(180)
class ReadPathSdkClientTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void sdkClientGetsReadsWithProgressAndLogsAndNoExecution() throws Exception {
    java.nio.file.Path node = Node22.ready().resolve("node");
    try (GatewayHarness gateway = new GatewayHarness(true)) {
      Node22.Result run = Node22.run(List.of(node.toString(), "read-e2e.mjs", "http://127.0.0.1:" + gateway.frontend.port() + "/mcp",
          gateway.token, "list_releases", "{}"), Node22.PROJECT, Duration.ofSeconds(90));
      assertEquals(0, run.exit(), run.text());
      List<JsonNode> lines = run.output().stream().map(ReadPathSdkClientTest::json).toList();
      for (int call = 0; call < 2; call++) {
        int c = call;
        List<JsonNode> progress = lines.stream().filter(l -> l.path("event").asText().equals("progress") && l.path("call").asInt() == c).toList();
        assertEquals(List.of(1L, 2L, 3L), progress.stream().map(p -> p.get("progress").asLong()).toList(), lines.toString());
        JsonNode result = lines.stream().filter(l -> l.path("event").asText().equals("result") && l.path("call").asInt() == c)
            .findFirst().orElseThrow().get("result");
        assertFalse(result.path("isError").asBoolean(), result.toString());
        assertTrue(result.at("/structuredContent/execution_id").isNull(), result.toString());
        assertEquals(200, result.at("/structuredContent/target_status").asInt());
        assertTrue(result.at("/content/0/text").asText().startsWith("["), "the target's release list: " + result);
      }
      long logs = lines.stream().filter(l -> l.path("event").asText().equals("log")).count();
      assertTrue(logs >= 8, "every step of both reads as a log message: " + lines);
      // client.close() aborts the transport, which the SDK reports as an error after the last result
      int lastResult = 0;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).path("event").asText().equals("result")) {
          lastResult = i;
        }
      }
      assertFalse(lines.subList(0, lastResult).stream().anyMatch(l -> l.path("event").asText().equals("client-error")),
          "the SDK accepted both answers without an error: " + lines);
      assertEquals(0, gateway.directory.list("agent:deployer", 100).size(), "no execution for a read");
    }
  }

  private static JsonNode json(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      return JSON.valueToTree(Map.of("event", "unparsed", "line", line));
    }
  }
}
