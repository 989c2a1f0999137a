package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.app.Main;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.testing.Conditions;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ExecutionRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 25 item 8, on the Temporal CLI's dev server with real HTTP clients: {@code onceport agent
 * remove} (the CLI, as another process would run it on the same data directory) ends the removed
 * token's held waits at once — a {@code tools/call} waiting for its outcome, a {@code tools/call}
 * streaming it over SSE, a {@code tasks/result} — where they once went on delivering for up to five
 * minutes; the sessions the token opened are ended in their session workflows; and after {@code
 * agent add} the new token's old {@code Mcp-Session-Id} answers 404 and its sessions are new ones.
 */
@Timeout(240)
class CredentialRemovalOnTemporalServerTest {
  private static final String VERSION = "2025-11-25";
  private static final Duration AT_ONCE = Duration.ofSeconds(3);
  private static GatewayHarness gateway;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    gateway = GatewayHarness.onTemporalCli(TemporalCli.binaryOrSkip(), Duration.ofSeconds(90), List.of());
    // A call before a worker polls is refused at once (readiness): wait for ready, as a deployment's probe would.
    URI readyz = URI.create("http://127.0.0.1:" + gateway.frontend.port() + "/readyz");
    Conditions.await("the front end is ready", Duration.ofSeconds(60), () -> {
      try {
        return HTTP.send(HttpRequest.newBuilder(readyz).build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
      } catch (Exception e) {
        return false;
      }
    });
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  private static URI endpoint() {
    return URI.create("http://127.0.0.1:" + gateway.frontend.port() + "/mcp");
  }

  private static HttpRequest.Builder post(String token, String session, String accept, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint()).timeout(Duration.ofSeconds(120))
        .header("Content-Type", "application/json").header("Accept", accept)
        .header("Authorization", "Bearer " + token).header("MCP-Protocol-Version", VERSION)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return b;
  }

  private static String initialize(String token) throws Exception {
    String init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + VERSION
        + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"deploy-script\",\"version\":\"1\"}}}";
    HttpResponse<String> r = HTTP.send(post(token, null, "application/json", init).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HTTP.send(post(token, session, "application/json", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").build(),
        HttpResponse.BodyHandlers.ofString());
    return session;
  }

  private static String call(int id, String message, boolean task) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"send_notification\","
        + "\"arguments\":{\"message\":\"" + message + "\"}" + (task ? ",\"task\":{\"ttl\":600000}" : "") + "}}";
  }

  /** The outcome of a held request: its status and body, or the failure that ended it. */
  private record Ended(int status, String body, Throwable failure, long atNanos) {}

  private static CompletableFuture<Ended> hold(HttpRequest request) {
    return HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((r, e) -> r != null
        ? new Ended(r.statusCode(), r.body(), null, System.nanoTime()) : new Ended(0, "", e, System.nanoTime()));
  }

  private static String cli(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(o, true, StandardCharsets.UTF_8));
      int exit = Main.run(args);
      assertEquals(0, exit, o.toString(StandardCharsets.UTF_8));
      return o.toString(StandardCharsets.UTF_8);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  private static long processing() {
    return gateway.target.ledger().stream().filter(e -> e.path().equals("/v1/notifications") && e.status() == null).count();
  }

  @Test
  void agentRemoveEndsTheTokensWaitsStreamsAndSessionsAtOnceAndAReaddedAgentStartsWithNone() throws Exception {
    String token = gateway.token;
    String session = initialize(token);
    // The target holds every notification for a minute: each request below is a long wait.
    gateway.armFault("delay=60000", 3);
    String created = HTTP.send(post(token, session, "application/json", call(1, "as a task", true)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    String taskId = McpClient.json(created).at("/result/task/taskId").asText();
    assertTrue(taskId.startsWith("act_"), created);
    List<CompletableFuture<Ended>> held = new ArrayList<>();
    held.add(hold(post(token, session, "application/json", call(2, "waiting call", false)).build()));
    held.add(hold(post(token, session, "text/event-stream", call(3, "streamed call", false)).build()));
    Conditions.await("three notifications held by the target", Duration.ofSeconds(60), () -> processing() == 3);
    held.add(hold(post(token, session, "application/json",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"" + taskId + "\"}}").build()));
    ExecutionRecord task = gateway.awaitRecord(taskId, r -> r.sessionId() != null, Duration.ofSeconds(30));
    String sessionId = task.sessionId();
    assertTrue(sessionId.startsWith("mcp:agent:deployer~"), sessionId);
    Conditions.await("three long waits registered", Duration.ofSeconds(30), () -> gateway.frontend.longWaits("agent:deployer") == 3);
    for (CompletableFuture<Ended> h : held) {
      assertFalse(h.isDone(), "still waiting before the removal");
    }

    long started = System.nanoTime();
    cli("agent", "remove", "agent:deployer", "--data", gateway.data.toString());
    long removed = System.nanoTime(); // the command returned: the token is gone from agents.json
    CompletableFuture.allOf(held.toArray(CompletableFuture[]::new)).get(AT_ONCE.toSeconds() + 30, TimeUnit.SECONDS);
    List<Long> endedMs = new ArrayList<>();
    for (CompletableFuture<Ended> h : held) {
      endedMs.add((h.get().atNanos() - removed) / 1_000_000);
    }
    System.out.println("CredentialRemovalOnTemporalServerTest: held waits (tools/call, SSE tools/call, tasks/result) ended "
        + endedMs + " ms after `agent remove` returned (the command itself took " + (removed - started) / 1_000_000 + " ms)");
    for (CompletableFuture<Ended> h : held) {
      Ended e = h.get();
      long ms = (e.atNanos() - removed) / 1_000_000;
      assertTrue(ms < AT_ONCE.toMillis(), "a held wait ended " + ms + " ms after agent remove returned");
      assertFalse(e.body().contains("\"result\""), "nothing answered after the removal: " + e.body());
    }
    // The connections are closed at once; the threads behind them stop at their next look.
    try {
      Conditions.await("the waits let go of their threads", Duration.ofSeconds(10), () -> gateway.frontend.longWaits("agent:deployer") == 0);
    } catch (AssertionError e) {
      Thread.getAllStackTraces().forEach((t, st) -> {
        if (java.util.Arrays.stream(st).anyMatch(f -> f.getClassName().contains("frontend.mcp"))) {
          System.err.println("DEBUG " + t.getName() + "\n  " + java.util.Arrays.stream(st).limit(25).map(Object::toString)
              .collect(java.util.stream.Collectors.joining("\n  ")));
        }
      });
      throw e;
    }

    // The session workflow of the removed token's session says so.
    String[] shown = {""};
    Conditions.await("the session ended", Duration.ofSeconds(30), () -> {
      shown[0] = cli("sessions", "show", sessionId, "--temporal", gateway.temporalTarget(), "--data", gateway.data.toString());
      return shown[0].contains("credential was removed");
    });
    assertTrue(shown[0].contains("ended"), shown[0]);

    // Re-added: a new token, a new generation. The old Mcp-Session-Id is not the new token's session.
    String fresh = new AgentRegistry(gateway.data).add("agent:deployer");
    HttpResponse<String> old = HTTP.send(post(fresh, session, "application/json",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}").build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(404, old.statusCode(), old.body());
    HttpResponse<String> oldToken = HTTP.send(post(token, session, "application/json",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}").build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(401, oldToken.statusCode(), oldToken.body());
    String again = initialize(fresh);
    JsonNode answered = McpClient.json(HTTP.send(post(fresh, again, "application/json", call(7, "after re-add", false)).build(),
        HttpResponse.BodyHandlers.ofString()).body());
    String executionId = answered.at("/result/structuredContent/execution_id").asText();
    ExecutionRecord after = gateway.awaitRecord(executionId, r -> r.sessionId() != null, Duration.ofSeconds(30));
    String oldGeneration = sessionId.substring(sessionId.indexOf('~'), sessionId.indexOf('/'));
    assertFalse(after.sessionId().contains(oldGeneration), after.sessionId() + " belongs to the removed token");
    assertNotEquals(sessionId, after.sessionId());
  }
}
