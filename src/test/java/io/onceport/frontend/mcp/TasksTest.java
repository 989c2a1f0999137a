package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** 2025-11-25 tasks: the task id is the execution id, readable through any front end. */
@Timeout(60)
class TasksTest {
  private final McpHarness h = new McpHarness();

  @AfterEach
  void close() {
    h.close();
  }

  private static String taskCall(String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":{},\"task\":{\"ttl\":60000}}}";
  }

  private static String req(String method, String taskId) {
    return "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"" + method + "\",\"params\":{\"taskId\":\"" + taskId + "\"}}";
  }

  private JsonNode rpc(McpServer s, String session, String body) throws Exception {
    HttpResponse<String> r = h.post(s, body, "Mcp-Session-Id", session, "Accept", "application/json");
    assertEquals(200, r.statusCode(), r.body());
    return McpHarness.json(r.body());
  }

  @Test
  void taskedCallReturnsTheExecutionAsTaskAndResultIsWhatToolsCallWouldGive() throws Exception {
    String s = h.initialize("2025-11-25");
    JsonNode created = rpc(h.server, s, taskCall("slow")).at("/result/task");
    String taskId = created.get("taskId").asText();
    assertTrue(taskId.startsWith("act_"));
    assertEquals("working", created.get("status").asText());
    assertEquals(0, h.gateway.calls.get(0).waitMillis());

    JsonNode got = rpc(h.second, s, req("tasks/get", taskId)).get("result");
    assertEquals(taskId, got.get("taskId").asText());

    JsonNode result = rpc(h.second, s, req("tasks/result", taskId)).get("result");
    assertFalse(result.get("isError").asBoolean());
    assertEquals("{\"ok\":true,\"tool\":\"slow\"}", result.at("/content/0/text").asText());
    assertEquals(taskId, result.at("/_meta/io.modelcontextprotocol~1related-task/taskId").asText());
    assertTrue(h.gateway.awaitReports(taskId, 1).get(0).report().delivered());
    assertEquals("completed", rpc(h.server, s, req("tasks/get", taskId)).at("/result/status").asText());

    JsonNode list = rpc(h.server, s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/list\"}").at("/result/tasks");
    assertEquals(taskId, list.get(0).get("taskId").asText());
  }

  @Test
  void tasksOfAnotherActorAreInvisible() throws Exception {
    String s = h.initialize("2025-11-25");
    String taskId = rpc(h.server, s, taskCall("slow")).at("/result/task/taskId").asText();
    HttpResponse<String> init = h.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}",
        "Authorization", "Bearer tok-other");
    String other = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> r = h.post(req("tasks/get", taskId), "Authorization", "Bearer tok-other",
        "Mcp-Session-Id", other, "Accept", "application/json");
    assertEquals("Invalid params: unknown task " + taskId, McpHarness.json(r.body()).at("/error/message").asText());
    HttpResponse<String> list = h.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/list\"}",
        "Authorization", "Bearer tok-other", "Mcp-Session-Id", other, "Accept", "application/json");
    assertEquals(0, McpHarness.json(list.body()).at("/result/tasks").size());
  }

  @Test
  void awaitingApprovalIsInputRequiredAndCancelsBeforeDispatch() throws Exception {
    String s = h.initialize("2025-11-25");
    String taskId = rpc(h.server, s, taskCall("gated")).at("/result/task/taskId").asText();
    h.gateway.awaitState(taskId, io.onceport.workflow.execution.ExecutionState.AWAITING_APPROVAL);
    assertEquals("input_required", rpc(h.server, s, req("tasks/get", taskId)).at("/result/status").asText());
    JsonNode cancelled = rpc(h.server, s, req("tasks/cancel", taskId)).get("result");
    assertEquals("cancelled", cancelled.get("status").asText());
    assertTrue(h.gateway.dispatches.isEmpty());
  }

  @Test
  void dispatchedTaskCannotBeCancelled() throws Exception {
    String s = h.initialize("2025-11-25");
    String taskId = rpc(h.server, s, taskCall("hang")).at("/result/task/taskId").asText();
    h.gateway.awaitState(taskId, io.onceport.workflow.execution.ExecutionState.DISPATCHED);
    JsonNode err = rpc(h.server, s, req("tasks/cancel", taskId)).get("error");
    assertEquals(-32602, err.get("code").asInt());
    assertEquals("Cannot cancel task " + taskId + ": it was already dispatched and a sent request cannot be unsent;"
        + " the execution continues (dispatched)", err.get("message").asText());
  }

  @Test
  void tasksNeed20251125() throws Exception {
    String s = h.initialize("2025-06-18");
    JsonNode err = rpc(h.server, s, req("tasks/get", "act_x")).get("error");
    assertEquals(-32601, err.get("code").asInt());
  }

  @Test
  void cancelledNotificationCancelsAnUndispatchedStreamingCall() throws Exception {
    // Not dispatched for 2 s (a stream waiting for an operator would be answered at once instead).
    h.gateway.slowMillis = 3000;
    String s = h.initialize("2025-11-25");
    CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> {
      try {
        return h.post("{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}",
            "Mcp-Session-Id", s, "Accept", "text/event-stream");
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    h.gateway.awaitCalls(1);
    HttpResponse<String> n = h.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":77,\"reason\":\"user\"}}",
        "Mcp-Session-Id", s, "Accept", "application/json");
    assertEquals(202, n.statusCode());
    String body = call.get().body();
    assertTrue(body.contains("was cancelled before dispatch, nothing was sent"), body);
    assertTrue(h.gateway.dispatches.isEmpty());
  }

  @Test
  void cancelledNotificationDuringAJsonCallCancelsOnceTheExecutionIsKnown() throws Exception {
    String s = h.initialize("2025-11-25");
    CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> {
      try {
        return h.post("{\"jsonrpc\":\"2.0\",\"id\":\"j-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"gated\",\"arguments\":{}}}",
            "Mcp-Session-Id", s, "Accept", "application/json");
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    h.gateway.awaitCalls(1);
    assertEquals(202, h.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"j-1\"}}",
        "Mcp-Session-Id", s, "Accept", "application/json").statusCode());
    JsonNode res = McpHarness.json(call.get().body()).get("result");
    assertEquals("cancelled", res.at("/structuredContent/state").asText());
    assertTrue(h.gateway.dispatches.isEmpty());
  }
}
