package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.Node22;
import io.onceport.testing.PythonMcp;
import io.onceport.testing.TargetLedger;
import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The most common retry in the field, with the official SDK clients and their own give-up
 * mechanisms: the TypeScript SDK's {@code timeout} request option and an {@code AbortSignal}, the
 * Python SDK's {@code read_timeout_seconds}. The client gives up on a slow call (the demo target's
 * armed {@code delay}) and sends {@code notifications/cancelled}; the execution goes on, its result
 * is recorded not delivered, and when the application retries the same call it attaches to the
 * first execution and gets that execution's result: the target acted once.
 */
@org.junit.jupiter.api.TestInstance(org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS)
abstract class SdkCancellationScenarios {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RELEASES = "/v1/releases";
  private GatewayHarness gateway;

  /** The gateway these scenarios run against (an engine, a worker, the front end, the demo target). */
  abstract GatewayHarness startGateway() throws Exception;

  @BeforeAll
  void start() throws Exception {
    gateway = startGateway();
  }

  @AfterAll
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void typeScriptSdkTimeoutThenRetryGetsTheFirstExecutionsResultAndTheTargetActsOnce() throws Exception {
    Path node = Node22.ready().resolve("node");
    gateway.armFault("delay=3000", 1);
    try (Node22.Started client = Node22.start(List.of(node.toString(), "client-e2e.mjs", mcpUrl(), gateway.token,
        "timeout-retry", "ts-timeout", "1000"), Node22.PROJECT, Map.of())) {
      JsonNode gaveUp = json(client.awaitLine("\"gave-up\"", Duration.ofSeconds(60)));
      assertEquals(-32001, gaveUp.path("code").asInt(), "the SDK's RequestTimeout: " + gaveUp);
      giveUpThenRetry(client, "ts-timeout");
    }
  }

  @Test
  void typeScriptSdkAbortSignalThenRetryGetsTheFirstExecutionsResultAndTheTargetActsOnce() throws Exception {
    Path node = Node22.ready().resolve("node");
    gateway.armFault("delay=3000", 1);
    try (Node22.Started client = Node22.start(List.of(node.toString(), "client-e2e.mjs", mcpUrl(), gateway.token,
        "abort-retry", "ts-abort", "1000"), Node22.PROJECT, Map.of())) {
      JsonNode gaveUp = json(client.awaitLine("\"gave-up\"", Duration.ofSeconds(60)));
      assertTrue(gaveUp.path("afterMs").asLong() < 3000, "aborted before the target answered: " + gaveUp);
      giveUpThenRetry(client, "ts-abort");
    }
  }

  @Test
  void pythonSdkReadTimeoutThenRetryGetsTheFirstExecutionsResultAndTheTargetActsOnce() throws Exception {
    Path python = PythonMcp.ready();
    gateway.armFault("delay=3000", 1);
    Path scripts = Path.of("src/test/python").toAbsolutePath();
    try (Node22.Started client = Node22.start(List.of(python.toString(), scripts.resolve("timeout_retry.py").toString(),
        mcpUrl(), gateway.token, "py-timeout", "1.0"), scripts, Map.of())) {
      JsonNode gaveUp = json(client.awaitLine("\"gave-up\"", Duration.ofSeconds(60)));
      assertTrue(gaveUp.path("message").asText().toLowerCase().contains("timed out"), gaveUp.toString());
      giveUpThenRetry(client, "py-timeout");
    }
  }

  /**
   * The client gave up on the first call (its SDK sent notifications/cancelled). Once the execution
   * settled and its delivery was decided, the application retries the same call.
   */
  private void giveUpThenRetry(Node22.Started client, String service) throws Exception {
    String executionId = TargetLedger.awaitFirstKey(gateway.target.url(), RELEASES, service, Duration.ofSeconds(30));
    ExecutionRecord first = gateway.awaitRecord(executionId,
        r -> r.state() == ExecutionState.COMPLETED && r.delivery() != Delivery.PENDING, Duration.ofSeconds(30));
    if (first.delivery() == Delivery.DELIVERED) {
      // Recorded as delivered although the client never read it: the run closes, as it does after a
      // real delivery, and the retry below comes after that.
      awaitClosed(first);
    }

    OutputStream stdin = client.process().getOutputStream();
    stdin.write("retry\n".getBytes(StandardCharsets.UTF_8));
    stdin.flush();
    JsonNode result = json(client.awaitLine("\"result\"", Duration.ofSeconds(60))).get("result");
    assertFalse(result.path("isError").asBoolean(), result.toString());
    assertEquals(executionId, result.at("/structuredContent/execution_id").asText(), "the retry got the first execution: " + result);
    assertEquals("completed", result.at("/structuredContent/state").asText());
    assertTrue(result.at("/structuredContent/attached").asBoolean(), result.toString());
    assertEquals(1, TargetLedger.posts(gateway.target.url(), RELEASES, service).size(), "the target acted once");
    assertEquals(Delivery.NOT_DELIVERED, first.delivery(), "the client gave up and never read the answer: " + first.calls());
    assertEquals("not_delivered", first.calls().get(0).delivery(), first.calls().toString());

    ExecutionRecord after = gateway.awaitRecord(executionId, r -> r.delivery() == Delivery.DELIVERED, Duration.ofSeconds(20));
    assertEquals(2, after.calls().size(), after.calls().toString());
    assertTrue(after.calls().get(0).retry() == false && after.calls().get(1).retry(), after.calls().toString());
    assertEquals(1, after.dispatchAttempts());
  }

  private String mcpUrl() {
    return "http://127.0.0.1:" + gateway.frontend.port() + "/mcp";
  }

  private static JsonNode json(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not a JSON line: " + line);
    }
  }

  private void awaitClosed(ExecutionRecord record) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    var location = gateway.directory.locate(record.executionId()).orElseThrow();
    while (gateway.directory.isOpen(location) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }
}
