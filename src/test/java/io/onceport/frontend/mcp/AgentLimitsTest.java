package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.frontend.auth.SessionRegistry;
import io.onceport.frontend.auth.SessionStart;
import io.onceport.testing.Conditions;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Per-agent limits (issue 25 item 4) on a real front end with real HTTP clients: over a limit the
 * request is refused before anything starts, with HTTP 429 and {@code Retry-After}; another agent is
 * served meanwhile; and {@code initialize} no longer starts a durable session (its session workflow
 * starts with the first call that takes the durable path).
 */
@Timeout(90)
class AgentLimitsTest {
  private McpHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  private static String taskCall(int id, String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":{},\"task\":{\"ttl\":60000}}}";
  }

  private static String taskResult(int id, String taskId) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tasks/result\",\"params\":{\"taskId\":\"" + taskId + "\"}}";
  }

  private CompletableFuture<HttpResponse<String>> async(String session, String body) {
    HttpRequest r = h.request(h.server).setHeader("Mcp-Session-Id", session).setHeader("Accept", "application/json")
        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return h.http.sendAsync(r, HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> initializeAs(String token) throws Exception {
    return h.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"limits\",\"version\":\"1\"}}}", "Authorization", "Bearer " + token);
  }

  private static void assertBusy(HttpResponse<String> r) throws Exception {
    assertEquals(429, r.statusCode(), r.body());
    long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
    assertTrue(retryAfter >= 1 && retryAfter <= 61, "Retry-After " + retryAfter);
    assertEquals(McpException.BUSY, McpHarness.json(r.body()).at("/error/code").asInt(), r.body());
    assertTrue(McpHarness.json(r.body()).at("/error/message").asText().startsWith("Busy: "), r.body());
  }

  @Test
  void longWaitsOverTheAgentsLimitAre429WhileItsShortRequestsAndOtherAgentsAreServed() throws Exception {
    h = new McpHarness(McpHarness.base().agentLimits(new AgentLimits(3, 100, 100)).taskResultWait(Duration.ofSeconds(4)));
    String s = h.initialize("2025-11-25");
    String taskId = McpHarness.json(h.call(s, taskCall(1, "hang")).body()).at("/result/task/taskId").asText();
    List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(async(s, taskResult(10 + i, taskId)));
    }
    Conditions.await("three waits held", Duration.ofSeconds(20), () -> h.server.longWaits("agent:deployer") == 3);

    assertBusy(h.call(s, taskResult(20, taskId)));
    // A waiting tools/call is a long wait too; the refusal comes before the call reaches the gateway.
    int calls = h.gateway.calls.size();
    assertBusy(h.call(s, "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{\"name\":\"hang\",\"arguments\":{}}}"));
    assertEquals(calls, h.gateway.calls.size(), "nothing was started for the refused call");
    // Short requests of the same agent are served.
    assertEquals(200, h.call(s, "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"" + taskId
        + "\"}}").statusCode());
    // Another agent's wait is its own.
    String otherSession = initializeAs("tok-other").headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> other = h.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
        + "\"arguments\":{}}}", "Authorization", "Bearer tok-other", "Mcp-Session-Id", otherSession, "Accept", "application/json");
    assertEquals(200, other.statusCode(), other.body());
    assertTrue(other.body().contains("\"result\""), other.body());

    // The held waits end by themselves (the task-result wait); then the agent may wait again.
    CompletableFuture.allOf(held.toArray(CompletableFuture[]::new)).get(30, java.util.concurrent.TimeUnit.SECONDS);
    Conditions.await("the waits let go", Duration.ofSeconds(10), () -> h.server.longWaits("agent:deployer") == 0);
    CompletableFuture<HttpResponse<String>> again = async(s, taskResult(30, taskId));
    Conditions.await("a new wait is admitted", Duration.ofSeconds(20), () -> h.server.longWaits("agent:deployer") == 1);
    assertEquals(200, again.get(30, java.util.concurrent.TimeUnit.SECONDS).statusCode());
  }

  @Test
  void newSessionsOverThePerMinuteLimitAre429WithRetryAfterAndOtherAgentsStillInitialize() throws Exception {
    h = new McpHarness(McpHarness.base().agentLimits(new AgentLimits(64, 100, 5)));
    for (int i = 0; i < 5; i++) {
      assertEquals(200, initializeAs(McpHarness.TOKEN).statusCode());
    }
    HttpResponse<String> refused = initializeAs(McpHarness.TOKEN);
    assertBusy(refused);
    assertTrue(refused.headers().firstValue("Mcp-Session-Id").isEmpty(), "no session id is handed out");
    assertTrue(McpHarness.json(refused.body()).at("/error/message").asText().contains("--agent-sessions-per-minute"));
    assertEquals(200, initializeAs("tok-other").statusCode());
  }

  @Test
  void openSessionsOverTheLimitAre429UntilOneEnds() throws Exception {
    h = new McpHarness(McpHarness.base().agentLimits(new AgentLimits(64, 3, 100)));
    List<String> open = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      open.add(initializeAs(McpHarness.TOKEN).headers().firstValue("Mcp-Session-Id").orElseThrow());
    }
    HttpResponse<String> refused = initializeAs(McpHarness.TOKEN);
    assertBusy(refused);
    assertTrue(McpHarness.json(refused.body()).at("/error/message").asText().contains("--agent-max-sessions"));
    HttpResponse<String> deleted = h.http.send(h.request(h.server).setHeader("Mcp-Session-Id", open.get(0)).DELETE().build(),
        HttpResponse.BodyHandlers.ofString());
    assertTrue(deleted.statusCode() / 100 == 2, deleted.statusCode() + " " + deleted.body());
    assertEquals(200, initializeAs(McpHarness.TOKEN).statusCode());
  }

  @Test
  void initializeStartsNoDurableSessionTheFirstDurableCallDoesOnce() throws Exception {
    List<String> started = new CopyOnWriteArrayList<>();
    SessionRegistry recording = new SessionRegistry() {
      @Override
      public void started(SessionStart session) {
        started.add(session.sessionId());
      }

      @Override
      public void ended(String actor, String sessionId, String reason) {}
    };
    h = new McpHarness(McpHarness.base().sessionRegistry(recording));
    String s = h.initialize("2025-06-18");
    h.initialize("2025-06-18");
    assertEquals(200, h.call(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").statusCode());
    assertEquals(List.of(), started, "initialize and tools/list start no session workflow");
    for (int i = 0; i < 2; i++) {
      HttpResponse<String> r = h.call(s, "{\"jsonrpc\":\"2.0\",\"id\":" + (3 + i)
          + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}");
      assertEquals(200, r.statusCode(), r.body());
    }
    assertEquals(1, started.size(), "the first durable call starts the session, once: " + started);
    assertTrue(started.get(0).startsWith("mcp:agent:deployer/"), started.get(0));
  }

  /**
   * A session whose start could not be recorded (the engine was busy) is still ended when its
   * credential goes — the worker may have started its workflow for a waiting execution — and an end
   * that failed is done when tried again (the CredentialWatcher tries again).
   */
  @Test
  void aSessionWhoseStartOrEndFailedIsStillEndedWhenItsCredentialGoes() throws Exception {
    List<String> started = new CopyOnWriteArrayList<>();
    List<String> removed = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicInteger startFailures = new java.util.concurrent.atomic.AtomicInteger(1);
    java.util.concurrent.atomic.AtomicInteger endFailures = new java.util.concurrent.atomic.AtomicInteger(1);
    SessionRegistry flaky = new SessionRegistry() {
      @Override
      public void started(SessionStart session) {
        if (startFailures.getAndDecrement() > 0) {
          throw new IllegalStateException("engine busy (test): start");
        }
        started.add(session.sessionId());
      }

      @Override
      public void ended(String actor, String sessionId, String reason) {}

      @Override
      public void credentialRemoved(String actor, String sessionId, String reason) {
        if (endFailures.getAndDecrement() > 0) {
          throw new IllegalStateException("engine busy (test): end");
        }
        removed.add(sessionId);
      }
    };
    h = new McpHarness(McpHarness.base().sessionRegistry(flaky));
    String s = h.initialize("2025-06-18");
    String call = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}";
    assertEquals(200, h.call(s, call).statusCode(), "a failed recording never fails the call");
    assertEquals(List.of(), started);
    org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> h.server.credentialRemoved("agent:deployer", null, "removed (test)"), "a failed end is reported, to be tried again");
    assertEquals(List.of(), removed);
    h.server.credentialRemoved("agent:deployer", null, "removed (test)");
    assertEquals(1, removed.size(), "the session whose start failed is ended on the second try: " + removed);
    assertTrue(removed.get(0).startsWith("mcp:agent:deployer/"), removed.get(0));
    h.server.credentialRemoved("agent:deployer", null, "removed (test)");
    assertEquals(1, removed.size(), "an ended session is not ended again: " + removed);
  }
}
