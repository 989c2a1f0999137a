package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.onceport.testing.AttachFaults;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.testing.TargetLedger;
import io.onceport.testing.WorkflowRuns;
import java.nio.file.Files;
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
 * No internal path starts a second execution: when the front end's update-with-start reached the
 * engine and took effect, but its answer never came back (a connection that failed after the
 * server took the request, a reply held past the RPC deadline) — long enough that the execution
 * meanwhile completed and closed (its attach window passed) — the gateway finds out what its first
 * attempt did and answers from that execution. It never sends a start that could open a second run
 * for a call the client sent once.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EngineHiccupEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AttachFaults FAULTS = new AttachFaults();
  private static GatewayHarness gateway;

  @BeforeAll
  static void start() throws Exception {
    // A tool whose undelivered execution closes 2 s after it settled, so it can close while the
    // front end is still waiting for the answer to its first attempt.
    String brief = Files.readString(Path.of("contracts/create_release.yaml"))
        .replace("tool: create_release", "tool: create_release_brief")
        .replace("attach_window: PT1H", "attach_window: PT2S");
    gateway = new GatewayHarness(true, Duration.ofSeconds(20), List.of(FAULTS), Map.of("create_release_brief.yaml", brief));
    McpClient warm = gateway.client(); // the first workflow of a fresh engine is slow; keep it out of the timing
    assertEquals("completed", warm.call(1, "create_release", args("warm-up")).at("/result/structuredContent/state").asText());
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void updateWithStartWhoseAnswerIsLostAfterTheServerTookItIsAnsweredFromItsOneExecution() throws Exception {
    lostAnswer(Status.UNAVAILABLE, "hiccup-unavailable");
  }

  @Test
  void updateWithStartHeldPastItsDeadlineIsAnsweredFromItsOneExecution() throws Exception {
    lostAnswer(Status.DEADLINE_EXCEEDED, "hiccup-deadline");
  }

  @Test
  void attachesTheEngineTurnsAwayAreRetriedOnTheSameRunAndNeverStartAnother() throws Exception {
    McpClient client = gateway.client();
    gateway.armFault("delay=3000", 1);
    java.util.concurrent.CompletableFuture<JsonNode> first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return client.call(1, "create_release", args("turned-away"));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    String id = TargetLedger.awaitFirstKey(gateway.target.url(), "/v1/releases", "turned-away", Duration.ofSeconds(20));
    int before = FAULTS.attaches.get();
    for (int n = 1; n <= 3; n++) { // the in-flight update limit, as the engine reports it
      FAULTS.reject(before + n, Status.RESOURCE_EXHAUSTED.withDescription("limit on number of concurrent in-flight updates has been reached"));
    }
    JsonNode retry = client.call(2, "create_release", args("turned-away"));
    assertEquals(id, retry.at("/result/structuredContent/execution_id").asText(), retry.toString());
    assertEquals("completed", retry.at("/result/structuredContent/state").asText(), retry.toString());
    assertEquals(id, first.get().at("/result/structuredContent/execution_id").asText());
    assertTrue(FAULTS.attaches.get() >= before + 4, "turned away three times, then attached: " + (FAULTS.attaches.get() - before));
    assertEquals(1, TargetLedger.posts(gateway.target.url(), "/v1/releases", "turned-away").size(), "the target acted once");
    assertEquals(1, WorkflowRuns.of(gateway.connection, gateway.record(id).workflowId()).size());
  }

  private void lostAnswer(Status failure, String service) throws Exception {
    McpClient client = gateway.client();
    int before = FAULTS.attaches.get();
    FAULTS.holdThenFail(before + 1, Duration.ofSeconds(6), failure);
    JsonNode answer = client.call(7, "create_release_brief", args(service));
    String id = answer.at("/result/structuredContent/execution_id").asText();
    String acted = TargetLedger.awaitFirstKey(gateway.target.url(), "/v1/releases", service, Duration.ofSeconds(10));
    assertEquals(acted, id, "answered with the execution that acted: " + answer);
    assertEquals("completed", answer.at("/result/structuredContent/state").asText(), answer.toString());
    assertEquals(1, TargetLedger.posts(gateway.target.url(), "/v1/releases", service).size(), "the target acted once");
    String workflowId = gateway.record(id).workflowId();
    List<String> runs = WorkflowRuns.of(gateway.connection, workflowId);
    assertEquals(1, runs.size(), "one run for a call sent once: " + runs);
    assertTrue(FAULTS.attaches.get() > before, "the injected fault was on this call's path");
  }

  private static JsonNode args(String service) {
    return JSON.createObjectNode().put("service", service).put("version", "1.0.0");
  }
}
