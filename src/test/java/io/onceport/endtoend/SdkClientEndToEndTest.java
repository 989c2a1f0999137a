package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.Node22;
import io.onceport.workflow.execution.Delivery;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The official TypeScript SDK's {@code Client} + {@code StreamableHTTPClientTransport} (pinned in
 * src/test/node) against the whole gateway in-process, through src/test/node/client-e2e.mjs: one
 * step per client process, so a client can be SIGKILLed mid-call and a new process continue with
 * the same session. The demo target's {@code /ledger} counts what was really done.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SdkClientEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static GatewayHarness gateway;
  private static Path node;

  @BeforeAll
  static void start() throws Exception {
    node = Node22.ready().resolve("node");
    gateway = new GatewayHarness(true);
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void sdkClientListsToolsAndCallsWithProgress() throws Exception {
    List<JsonNode> lines = run("call", "sdk-progress").await(Duration.ofSeconds(90)).output().stream().map(SdkClientEndToEndTest::json).toList();
    assertTrue(names(lines, "tools").contains("create_release"), lines.toString());
    List<JsonNode> progress = lines.stream().filter(l -> l.path("event").asText().equals("progress")).toList();
    assertEquals(List.of(1L, 2L, 3L), progress.stream().map(p -> p.get("progress").asLong()).toList(),
        "accepted, authorized, dispatched: " + lines);
    JsonNode result = only(lines, "result").get("result");
    assertFalse(result.path("isError").asBoolean(), result.toString());
    assertEquals("completed", result.at("/structuredContent/state").asText());
    assertEquals(1, dispatches("sdk-progress"));
  }

  @Test
  void clientKilledMidCallAndANewProcessResumesTheStreamAndGetsTheOriginalResultWithoutASecondDispatch() throws Exception {
    gateway.armFault("delay=3000", 1);
    String session;
    String token;
    try (Node22.Started first = run("start", "sdk-resume")) {
      session = json(first.awaitLine("\"session\"", Duration.ofSeconds(60))).get("id").asText();
      token = json(first.awaitLine("\"token\"", Duration.ofSeconds(30))).get("token").asText();
      first.kill9(); // mid-call: the target is still sleeping on the request
      assertFalse(first.output().stream().anyMatch(l -> l.contains("result-in-first-process")), first.output().toString());
    }
    String executionId = token.substring(0, token.indexOf(':'));
    assertEquals(Delivery.PENDING, gateway.record(executionId).delivery(), "killed before the result");

    List<JsonNode> lines = run("resume", session, token).await(Duration.ofSeconds(90)).output().stream().map(SdkClientEndToEndTest::json).toList();
    JsonNode result = only(lines, "result").get("result");
    assertFalse(result.path("isError").asBoolean(), result.toString());
    assertEquals(executionId, result.at("/structuredContent/execution_id").asText());
    assertEquals("completed", result.at("/structuredContent/state").asText());
    assertEquals(201, result.at("/structuredContent/target_status").asInt());
    assertEquals(1, dispatches("sdk-resume"), "one dispatch in the target's ledger");
    var rec = gateway.awaitRecord(executionId, r -> r.delivery() == Delivery.DELIVERED, Duration.ofSeconds(10));
    assertEquals(1, rec.calls().size(), "resuming is the original call, not a new one");
  }

  @Test
  void clientKilledWhilePollingATaskAndANewProcessGetsTheTaskResultWithoutASecondDispatch() throws Exception {
    gateway.armFault("delay=3000", 1);
    String session;
    JsonNode task;
    try (Node22.Started first = run("task-start", "sdk-task")) {
      session = json(first.awaitLine("\"session\"", Duration.ofSeconds(60))).get("id").asText();
      task = json(first.awaitLine("\"task\"", Duration.ofSeconds(30))).get("task");
      first.awaitLine("\"task-status\"", Duration.ofSeconds(30));
      first.kill9(); // while polling; the execution goes on
    }
    String taskId = task.get("taskId").asText();
    assertTrue(taskId.startsWith("act_"), "the task id is the execution id: " + taskId);
    assertEquals("working", task.get("status").asText());

    List<JsonNode> lines = run("task-resume", session, taskId).await(Duration.ofSeconds(90)).output().stream().map(SdkClientEndToEndTest::json).toList();
    JsonNode result = only(lines, "result").get("result");
    assertFalse(result.path("isError").asBoolean(), result.toString());
    assertEquals(taskId, result.at("/structuredContent/execution_id").asText());
    assertEquals("completed", result.at("/structuredContent/state").asText());
    assertEquals(taskId, result.at("/_meta/io.modelcontextprotocol~1related-task/taskId").asText(), result.toString());
    assertEquals(1, dispatches("sdk-task"), "one dispatch in the target's ledger");
  }

  private Node22.Started run(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(node.toString(), "client-e2e.mjs",
        "http://127.0.0.1:" + gateway.frontend.port() + "/mcp", gateway.token));
    cmd.addAll(List.of(args));
    return Node22.start(cmd, Node22.PROJECT, Map.of());
  }

  /**
   * POST /v1/releases requests for this service that the demo target received (its {@code /ledger}
   * lists every request, repeated keys included), after checking that each of them made it act.
   */
  private static long dispatches(String service) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(gateway.target.url() + "/ledger")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    long n = 0;
    for (JsonNode e : JSON.readTree(r.body())) {
      if (e.path("method").asText().equals("POST") && e.path("path").asText().equals("/v1/releases")
          && e.at("/body/service").asText().equals(service)) {
        assertEquals("acted", e.path("handling").asText(), e.toString());
        n++;
      }
    }
    return n;
  }

  private static JsonNode json(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not a JSON line from client-e2e.mjs: " + line);
    }
  }

  private static JsonNode only(List<JsonNode> lines, String event) {
    List<JsonNode> found = lines.stream().filter(l -> l.path("event").asText().equals(event)).toList();
    assertEquals(1, found.size(), "one '" + event + "' line expected: " + lines);
    return found.get(0);
  }

  private static List<String> names(List<JsonNode> lines, String event) {
    List<String> out = new ArrayList<>();
    only(lines, event).get("names").forEach(n -> out.add(n.asText()));
    return out;
  }
}
