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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A concurrent identical call that reached the gateway while the first execution was open, but is
 * processed after the first caller's result was delivered (here: its way to the engine is slow —
 * the front end's second attach RPC is delayed), still belongs to the first execution: it is
 * answered from it and the target acts once. Two official TypeScript SDK clients, two sessions.
 */
@org.junit.jupiter.api.TestInstance(org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS)
abstract class LateCallScenarios {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final AttachFaults faults = new AttachFaults();
  private GatewayHarness gateway;

  /** The gateway, with {@code faults} on its front end's connection to the engine. */
  abstract GatewayHarness startGateway(AttachFaults faults) throws Exception;

  @BeforeAll
  void start() throws Exception {
    gateway = startGateway(faults);
  }

  @AfterAll
  void stop() {
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
    faults.delayBefore(faults.attaches.get() + 2, Duration.ofSeconds(4)); // the second call's attach reaches the engine late
    List<String> lines;
    try (Node22.Started pair = Node22.start(List.of(node.toString(), "client-e2e.mjs",
        "http://127.0.0.1:" + gateway.frontend.port() + "/mcp", gateway.token, "pair", "late-call", "1000"), Node22.PROJECT, Map.of())) {
      lines = pair.await(Duration.ofSeconds(90)).output();
    }
    List<JsonNode> results = lines.stream().filter(l -> l.contains("\"event\":\"result\"")).map(LateCallScenarios::json).toList();
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
    assertTrue(faults.attaches.get() >= 2, "the second call went its own (slow) way to the engine: " + faults.attaches.get());
  }

  private static JsonNode json(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not a JSON line: " + line);
    }
  }
}
