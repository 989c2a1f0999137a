package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two MCP sessions of one agent identity send the same call while the first is at the target:
 * without a run id the intent scope is the actor, so the second attaches. {@code investigate}
 * (from the worker's real journal) must name both sessions and call the second a retry from another
 * session, the word {@code executions show} uses for it (one vocabulary: retry, new intent).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class InvestigateTwoSessionsEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void anIdenticalCallFromASecondSessionIsReportedAsTwoSessionsNamingBoth() throws Exception {
    try (GatewayHarness gateway = new GatewayHarness(true)) {
      McpClient first = gateway.client();
      McpClient second = gateway.client();
      JsonNode args = JSON.readTree("{\"service\":\"two-sessions\",\"version\":\"1\"}");
      gateway.armFault("delay=2000", 1);
      CompletableFuture<JsonNode> a = CompletableFuture.supplyAsync(() -> call(first, args));
      String id = awaitDispatched(gateway);
      JsonNode b = second.call(1, "create_release", args);
      JsonNode resultA = a.get(60, TimeUnit.SECONDS);
      assertEquals(id, b.at("/result/structuredContent/execution_id").asText(), b.toString());
      assertTrue(b.at("/result/structuredContent/attached").asBoolean(), b.toString());
      assertEquals(id, resultA.at("/result/structuredContent/execution_id").asText());
      ExecutionRecord record = gateway.awaitRecord(id, r -> r.calls().size() == 2
          && r.calls().stream().allMatch(c -> c.delivery() != null), Duration.ofSeconds(30));
      String sessionA = record.calls().stream().filter(c -> !c.retry()).map(AttachedCall::sessionId).findFirst().orElseThrow();
      String sessionB = record.calls().stream().filter(AttachedCall::retry).map(AttachedCall::sessionId).findFirst().orElseThrow();
      assertNotEquals(sessionA, sessionB);
      assertEquals(1, gateway.target.ledger().stream().filter(e -> id.equals(e.key())).count(), "one dispatch");

      StringWriter out = new StringWriter();
      var cl = OnceportCommand.commandLine();
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(new StringWriter(), true));
      assertEquals(0, cl.execute("investigate", id, "--data", gateway.data.toString(), "--json"));
      JsonNode report = JSON.readTree(out.toString());
      String verdict = report.get("verdict").asText();
      assertTrue(verdict.contains("attached as a retry (call 1 from session " + sessionB + ", not the first call's " + sessionA
          + ": a reconnected client, or another process of the same actor; without a run id the intent scope is the actor)"),
          verdict);
      assertTrue(!verdict.contains("not a retry"), verdict);
      assertTrue(report.get("answers").get("processes").asText().startsWith("2 distinct agent processes"), report.toString());
    }
  }

  private static JsonNode call(McpClient client, JsonNode args) {
    try {
      return client.call(1, "create_release", args);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String awaitDispatched(GatewayHarness gateway) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      for (ExecutionRecord r : gateway.frontend.gateway().listByActor("agent:deployer", 10)) {
        if (r.state() == ExecutionState.DISPATCHED) {
          return r.executionId();
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no execution reached dispatched");
  }
}
