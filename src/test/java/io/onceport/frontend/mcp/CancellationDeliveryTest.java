package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Delivery is a fact: a result counts as delivered only when it was written to a client still
 * reading it and no {@code notifications/cancelled} for its request arrived first — or within the
 * delivery grace after the flush, when the client's own timeout raced the answer.
 */
@Timeout(60)
class CancellationDeliveryTest {
  private static final Duration GRACE = Duration.ofMillis(1500);
  private final McpHarness h = new McpHarness(McpHarness.base().deliveryGrace(GRACE));

  @AfterEach
  void close() {
    h.close();
  }

  private static String call(Object id, String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":{}}}";
  }

  private HttpResponse<String> cancel(String session, Object id) throws Exception {
    return h.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" + id
        + ",\"reason\":\"client timeout\"}}", "Mcp-Session-Id", session, "Accept", "application/json");
  }

  @Test
  void cancellationJustAfterTheAnswerWasWrittenMakesItNotDelivered() throws Exception {
    String s = h.initialize("2025-06-18");
    JsonNode answer = McpHarness.json(h.call(s, call(5, "echo")).body()).get("result");
    String id = answer.at("/structuredContent/execution_id").asText();
    assertEquals("completed", answer.at("/structuredContent/state").asText());
    assertEquals(202, cancel(s, 5).statusCode()); // the client's timeout fired as the answer arrived
    List<FakeGateway.Report> reports = h.gateway.awaitReports(id, 1);
    assertEquals(1, reports.size(), reports.toString());
    assertFalse(reports.get(0).report().delivered(), reports.toString());
    assertTrue(reports.get(0).report().detail().contains("client timeout"), reports.get(0).report().detail());
  }

  @Test
  void answerWithoutCancellationIsDeliveredOnceTheGracePassed() throws Exception {
    String s = h.initialize("2025-06-18");
    long written = System.nanoTime();
    JsonNode answer = McpHarness.json(h.call(s, call(6, "echo")).body()).get("result");
    String id = answer.at("/structuredContent/execution_id").asText();
    List<FakeGateway.Report> reports = h.gateway.awaitReports(id, 1);
    long after = System.nanoTime() - written;
    assertEquals(1, reports.size());
    assertTrue(reports.get(0).report().delivered(), reports.toString());
    assertTrue(after >= GRACE.toNanos(), "reported after the grace, not before: " + after / 1_000_000 + " ms");
  }

  @Test
  void cancellationAfterDispatchLeavesTheRequestUnansweredAndItsResultNotDelivered() throws Exception {
    h.gateway.slowMillis = 1500;
    String s = h.initialize("2025-06-18");
    CompletableFuture<HttpResponse<String>> pending = CompletableFuture.supplyAsync(() -> {
      try {
        return h.call(s, call(7, "slow"));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    h.gateway.awaitCalls(1);
    String id = awaitExecution();
    h.gateway.awaitState(id, io.onceport.workflow.execution.ExecutionState.DISPATCHED);
    assertEquals(202, cancel(s, 7).statusCode());
    HttpResponse<String> r = pending.get();
    assertEquals(202, r.statusCode(), "a cancelled request is not answered: " + r.body());
    assertEquals("", r.body());
    List<FakeGateway.Report> reports = h.gateway.awaitReports(id, 1);
    assertFalse(reports.get(0).report().delivered(), reports.toString());
    assertTrue(reports.get(0).report().detail().startsWith("notifications/cancelled: client timeout"), reports.toString());
    // The execution went on: a retry of the same call gets its result.
    JsonNode retry = McpHarness.json(h.call(s, call(8, "slow")).body()).get("result");
    assertEquals(id, retry.at("/structuredContent/execution_id").asText(), retry.toString());
    assertEquals("completed", retry.at("/structuredContent/state").asText());
    assertEquals(1, h.gateway.dispatches.size());
  }

  @Test
  void sseStreamOfACancelledRequestEndsWithoutTheResultAndItsResumptionIsRefused() throws Exception {
    h.gateway.slowMillis = 1500;
    String s = h.initialize("2025-11-25");
    CompletableFuture<HttpResponse<String>> stream = CompletableFuture.supplyAsync(() -> {
      try {
        return h.post(call(9, "slow"), "Mcp-Session-Id", s, "Accept", "text/event-stream");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    h.gateway.awaitCalls(1);
    String id = awaitExecution();
    h.gateway.awaitState(id, io.onceport.workflow.execution.ExecutionState.DISPATCHED);
    assertEquals(202, cancel(s, 9).statusCode());
    String body = stream.get().body();
    assertFalse(body.contains("\"result\""), "no answer to a cancelled request: " + body);
    String primingId = body.lines().filter(l -> l.startsWith("id: ")).findFirst().orElseThrow().substring(4);
    h.gateway.awaitState(id, io.onceport.workflow.execution.ExecutionState.COMPLETED);
    HttpResponse<String> resumed = h.http.send(h.request(h.server).header("Mcp-Session-Id", s)
        .header("Last-Event-ID", primingId).header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(404, resumed.statusCode(), resumed.body());
    assertTrue(resumed.body().contains("was cancelled"), resumed.body());
    assertTrue(h.gateway.reportsFor(id).stream().noneMatch(x -> x.report().delivered()), h.gateway.reportsFor(id).toString());
  }

  @Test
  void cancellationBeforeDispatchCancelsTheExecutionAndSaysSo() throws Exception {
    String s = h.initialize("2025-06-18");
    CompletableFuture<HttpResponse<String>> pending = CompletableFuture.supplyAsync(() -> {
      try {
        return h.call(s, call(10, "gated"));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    h.gateway.awaitCalls(1);
    assertEquals(202, cancel(s, 10).statusCode());
    JsonNode answer = McpHarness.json(pending.get().body()).get("result");
    assertEquals("cancelled", answer.at("/structuredContent/state").asText(), answer.toString());
    assertTrue(h.gateway.dispatches.isEmpty());
  }

  private String awaitExecution() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      var any = h.gateway.listByActor("agent:deployer", 1);
      if (!any.isEmpty()) {
        return any.get(0).executionId();
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no execution started");
  }
}
