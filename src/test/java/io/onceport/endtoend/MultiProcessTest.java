package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.shared.codec.Payloads;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The split roles as separate processes: {@code onceport engine}, two {@code onceport worker}s and
 * two {@code onceport frontend}s, each its own JVM, sharing one data directory; the demo target
 * runs in the test JVM and its ledger counts what was really done. Nothing that matters lives in a
 * front end's memory, so either front end answers for any execution, and a killed worker's
 * irreversible request is never sent again by the other.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiProcessTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static Cluster cluster;
  private static String temporal;
  private static ChildProcess workerOne;
  private static ChildProcess workerTwo;
  private static ChildProcess frontOne;
  private static int portOne;
  private static int portTwo;
  private static TemporalConnection connection;
  private static ExecutionDirectory directory;

  @BeforeAll
  static void start() throws Exception {
    cluster = new Cluster();
    int port = Cluster.freePort();
    temporal = "127.0.0.1:" + port;
    cluster.start("engine", "--port", Integer.toString(port)).awaitLine("onceport: embedded Temporal engine", Cluster.START_LINE);
    // The four JVMs start in parallel; their start lines are awaited afterwards.
    workerOne = cluster.worker(temporal, true, "w1");
    workerTwo = cluster.worker(temporal, true, "w2");
    frontOne = cluster.frontend(temporal);
    ChildProcess frontTwo = cluster.frontend(temporal);
    Cluster.awaitWorker(workerOne);
    Cluster.awaitWorker(workerTwo);
    portOne = Cluster.awaitFrontend(frontOne);
    portTwo = Cluster.awaitFrontend(frontTwo);
    connection = TemporalConnection.connect(temporal, "default", true, Payloads.dataConverter(true, cluster.data), Duration.ofSeconds(10));
    directory = new ExecutionDirectory(connection);
  }

  @AfterAll
  static void stop() throws Exception {
    if (connection != null) {
      connection.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static ExecutionRecord awaitRecord(String id, Predicate<ExecutionRecord> condition, Duration timeout) throws InterruptedException {
    return io.onceport.testing.Records.await(directory, id, condition, timeout);
  }


  private static JsonNode call(McpClient client, int id, String tool, JsonNode args) {
    try {
      return client.call(id, tool, args);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  @Order(1)
  void theSameCallSentToBothFrontEndsAtOnceIsDispatchedOnceAndBothGetTheSameExecution() throws Exception {
    McpClient one = cluster.client(portOne);
    McpClient two = cluster.client(portTwo);
    JsonNode args = JSON.readTree("{\"service\":\"catalog\",\"version\":\"2026.11.1\"}");
    cluster.armFault("delay=1500", 1);
    CompletableFuture<JsonNode> a = CompletableFuture.supplyAsync(() -> call(one, 1, "create_release", args));
    CompletableFuture<JsonNode> b = CompletableFuture.supplyAsync(() -> call(two, 1, "create_release", args));
    JsonNode first = a.get(60, TimeUnit.SECONDS);
    JsonNode second = b.get(60, TimeUnit.SECONDS);
    String id = first.at("/result/structuredContent/execution_id").asText();
    assertTrue(id.startsWith("act_"), first.toString());
    assertEquals(id, second.at("/result/structuredContent/execution_id").asText(), second.toString());
    assertEquals("completed", first.at("/result/structuredContent/state").asText(), first.toString());
    assertEquals("completed", second.at("/result/structuredContent/state").asText(), second.toString());
    assertEquals(first.at("/result/content/0/text").asText(), second.at("/result/content/0/text").asText());
    assertEquals(1, cluster.dispatches(id));
    assertEquals(2, directory.record(directory.locate(id).orElseThrow()).calls().size());
  }

  @Test
  @Order(2)
  void workerKilledDuringAnIrreversibleDispatchIsNotResentByTheOtherWorker() throws Exception {
    // Only one worker may be alive while the request is at the target, so the test knows whom to kill.
    workerTwo.close();
    McpClient client = cluster.client(portOne);
    cluster.armFault("delay=6000", 1);
    List<String> seen = new CopyOnWriteArrayList<>();
    postStreaming(portOne, client, McpClient.callBody(1, "send_notification", jsonOf("{\"message\":\"multi-process crash\"}")), seen);
    String id = awaitExecutionId(seen);
    awaitRecord(id, r -> r.state() == ExecutionState.DISPATCHED, Duration.ofSeconds(30));
    // Killed only once the request is at the target (held there by the delay fault).
    io.onceport.testing.Conditions.await("the request reached the target", Duration.ofSeconds(30),
        () -> cluster.target.received(id) >= 1);
    workerOne.kill9();
    ChildProcess replacement = cluster.worker(temporal, true, "w3");
    ChildProcess another = cluster.worker(temporal, true, "w4");
    Cluster.awaitWorker(replacement);
    Cluster.awaitWorker(another);
    ExecutionRecord record = awaitRecord(id, r -> r.state() == ExecutionState.NEEDS_REVIEW, Duration.ofSeconds(60));
    assertEquals(Outcome.UNKNOWN, record.outcome());
    assertEquals(1, record.dispatchAttempts());
    // The held request completes at the target; nothing else arrives (the execution is in review).
    io.onceport.testing.Conditions.await("the held request completed at the target", Duration.ofSeconds(30),
        () -> cluster.target.acted(id) >= 1);
    assertEquals(1, cluster.dispatches(id));
    JsonNode retry = cluster.client(portTwo).call(2, "send_notification", jsonOf("{\"message\":\"multi-process crash\"}"));
    assertEquals(id, retry.at("/result/structuredContent/execution_id").asText(), retry.toString());
    assertEquals("needs_review", retry.at("/result/structuredContent/state").asText(), retry.toString());
    assertEquals(1, cluster.dispatches(id));
  }

  /** Posts a tools/call asking for an SSE answer; lines arrive in {@code seen} as the stream flows. */
  private static CompletableFuture<Void> postStreaming(int port, McpClient session, String body, List<String> seen) {
    HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp")).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json").header("Accept", "text/event-stream")
        .header("Authorization", "Bearer " + cluster.token).header("Mcp-Session-Id", session.session())
        .header("MCP-Protocol-Version", "2025-06-18").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return HTTP.sendAsync(post, HttpResponse.BodyHandlers.ofLines()).thenAccept(r -> r.body().forEach(seen::add));
  }

  /** The execution id from the stream's first event id ({@code act_…:n:…}). */
  private static String awaitExecutionId(List<String> lines) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      for (String line : lines) {
        if (line.startsWith("id:")) {
          String id = line.substring(3).trim();
          return id.substring(0, id.indexOf(':'));
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no event id: " + lines);
  }

  @Test
  @Order(3)
  void aFrontEndKilledMidStreamIsResumedOnTheOtherFrontEndWithLastEventId() throws Exception {
    McpClient session = cluster.client(portOne);
    cluster.armFault("delay=4000", 1);
    String body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"create_release\","
        + "\"arguments\":{\"service\":\"catalog\",\"version\":\"2026.11.3\"},\"_meta\":{\"progressToken\":\"p-7\"}}}";
    List<String> seen = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> stream = postStreaming(portOne, session, body, seen);
    String lastEventId = awaitEventId(seen, "p-7", Duration.ofSeconds(20));
    String executionId = lastEventId.substring(0, lastEventId.indexOf(':'));
    assertEquals(0, cluster.acts(executionId), "killed before the target acted");
    frontOne.kill9();
    try {
      stream.get(10, TimeUnit.SECONDS);
    } catch (Exception expected) {
      // the connection died with the front end
    }
    assertFalse(seen.stream().anyMatch(l -> l.contains("\"result\"")), "the first front end died before the result: " + seen);

    HttpRequest resume = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + portTwo + "/mcp")).timeout(Duration.ofSeconds(60))
        .header("Accept", "text/event-stream").header("Authorization", "Bearer " + cluster.token)
        .header("Mcp-Session-Id", session.session()).header("MCP-Protocol-Version", "2025-06-18")
        .header("Last-Event-ID", lastEventId).GET().build();
    HttpResponse<String> resumed = HTTP.send(resume, HttpResponse.BodyHandlers.ofString());
    assertEquals(200, resumed.statusCode(), resumed.body());
    JsonNode result = null;
    for (String line : resumed.body().split("\n")) {
      if (line.startsWith("data:") && line.contains("\"result\"")) {
        result = JSON.readTree(line.substring(5).trim());
      }
    }
    assertNotNull(result, resumed.body());
    assertEquals(7, result.get("id").asInt());
    assertEquals(executionId, result.at("/result/structuredContent/execution_id").asText());
    assertEquals("completed", result.at("/result/structuredContent/state").asText(), result.toString());
    assertEquals(1, cluster.dispatches(executionId));
    assertEquals(1, cluster.acts(executionId));
  }

  /** Waits for an SSE {@code id:} line after which a progress notification for the token arrived. */
  private static String awaitEventId(List<String> lines, String progressToken, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String id = null;
      for (String line : lines) {
        if (line.startsWith("id:")) {
          id = line.substring(3).trim();
        } else if (id != null && line.startsWith("data:") && line.contains("notifications/progress") && line.contains(progressToken)) {
          return id;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no progress event for " + progressToken + ": " + lines);
  }

  private static JsonNode jsonOf(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
