package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.AttachFaults;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.Node22;
import io.onceport.testing.TargetLedger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A concurrent identical call that reached the gateway while the first execution was open, but is
 * processed after the first caller's result was delivered (here: its way to the engine is slow —
 * the front end's second attach RPC is delayed), still belongs to the first execution: it is
 * answered from it and the target acts once. Two official TypeScript SDK clients, two sessions.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LateCallEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AttachFaults FAULTS = new AttachFaults();
  private static GatewayHarness gateway;

  @BeforeAll
  static void start() throws Exception {
    gateway = new GatewayHarness(true, Duration.ofSeconds(20), List.of(FAULTS), Map.of());
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void identicalCallThatArrivedWhileTheFirstWasOpenIsAnsweredFromItAfterItsDeliveryAndTheTargetActsOnce() throws Exception {
    Path node = Node22.ready().resolve("node");
    // Warm up (first workflow, first classes), so that the first call's own attach is done well before the second arrives.
    assertEquals("completed", gateway.client().call(1, "create_release",
        JSON.readTree("{\"service\":\"warm-up\",\"version\":\"1\"}")).at("/result/structuredContent/state").asText());
    gateway.armFault("delay=2500", 1); // the first call is still dispatched when the second arrives
    FAULTS.delayBefore(FAULTS.attaches.get() + 2, Duration.ofSeconds(4)); // the second call's attach reaches the engine late
    List<String> lines;
    try (Node22.Started pair = Node22.start(List.of(node.toString(), "client-e2e.mjs",
        "http://127.0.0.1:" + gateway.frontend.port() + "/mcp", gateway.token, "pair", "late-call", "1000"), Node22.PROJECT, Map.of())) {
      lines = pair.await(Duration.ofSeconds(90)).output();
    }
    List<JsonNode> results = lines.stream().filter(l -> l.contains("\"event\":\"result\"")).map(LateCallEndToEndTest::json).toList();
    assertEquals(2, results.size(), String.join("\n", lines));
    JsonNode first = results.get(0).get("result");
    JsonNode second = results.get(1).get("result");
    String id = first.at("/structuredContent/execution_id").asText();
    assertFalse(first.path("isError").asBoolean(), first.toString());
    assertEquals("completed", first.at("/structuredContent/state").asText(), first.toString());
    assertEquals(id, second.at("/structuredContent/execution_id").asText(), "the late call got the first execution: " + second);
    assertEquals("completed", second.at("/structuredContent/state").asText(), second.toString());
    assertEquals(first.at("/content/0/text").asText(), second.at("/content/0/text").asText());
    assertTrue(second.at("/structuredContent/attached").asBoolean(), second.toString());
    assertEquals(1, TargetLedger.posts(gateway.target.url(), "/v1/releases", "late-call").size(), "the target acted once");
    assertTrue(FAULTS.attaches.get() >= 2, "the second call went its own (slow) way to the engine: " + FAULTS.attaches.get());
  }

  private static JsonNode json(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not a JSON line: " + line);
    }
  }
}
