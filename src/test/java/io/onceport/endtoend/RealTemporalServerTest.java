package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.shared.codec.Payloads;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.McpClient;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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
 * The core scenarios against a real Temporal server ({@code temporal server start-dev}: SQLite,
 * visibility, sticky queues that time out) instead of the embedded engine: workers connect without
 * {@code --embedded-engine}, so sticky execution stays on, and a SIGKILLed worker's sticky queue
 * must time out on the server for the other worker to take over.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealTemporalServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path binary;
  private static Cluster cluster;
  private static TemporalCliServer server;
  private static ChildProcess workerOne;
  private static int mcpPort;
  private static TemporalConnection connection;
  private static ExecutionDirectory directory;
  private static String completedId;

  @BeforeAll
  static void start() throws Exception {
    binary = TemporalCli.binaryOrSkip();
    cluster = new Cluster();
    server = TemporalCliServer.start(binary, cluster.data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
    workerOne = cluster.worker(server.target(), false, "w1");
    ChildProcess front = cluster.frontend(server.target());
    Cluster.awaitWorker(workerOne);
    mcpPort = Cluster.awaitFrontend(front);
    connection = TemporalConnection.connect(server.target(), "default", false, Payloads.dataConverter(true, cluster.data), Duration.ofSeconds(10));
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
    if (server != null) {
      server.close();
    }
  }

  private static ExecutionRecord awaitRecord(String id, Predicate<ExecutionRecord> condition, Duration timeout) throws InterruptedException {
    return io.onceport.testing.Records.await(directory, id, condition, timeout);
  }


  /** Runs an {@code onceport} command in this JVM; returns stdout, failing on a non-zero exit. */
  private static String onceport(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = OnceportCommand.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    assertEquals(0, status, "onceport " + String.join(" ", args) + ": " + err);
    return out.toString();
  }

  /** {@code executions list --query}, retried while visibility catches up (it is eventually consistent). */
  private static String listUntilFound(String target, String query, String id) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    String out = "";
    while (System.nanoTime() < deadline) {
      out = onceport("executions", "list", "--temporal", target, "--keys-from", cluster.data.toString(), "--query", query);
      if (out.contains(id)) {
        return out;
      }
      Thread.sleep(300);
    }
    throw new AssertionError("executions list --query \"" + query + "\" did not list " + id + ":\n" + out);
  }

  @Test
  @Order(1)
  void aCompletedCallIsListedByAVisibilityQueryAndCarriesItsSearchAttributes() throws Exception {
    McpClient client = cluster.client(mcpPort);
    JsonNode answer = client.call(1, "create_release", JSON.readTree("{\"service\":\"catalog\",\"version\":\"2026.12.1\"}"));
    completedId = answer.at("/result/structuredContent/execution_id").asText();
    assertEquals("completed", answer.at("/result/structuredContent/state").asText(), answer.toString());
    assertEquals(1, cluster.dispatches(completedId));
    ExecutionRecord record = awaitRecord(completedId, r -> "completed_result_delivered".equals(r.view()), Duration.ofSeconds(20));
    var described = connection.client().newUntypedWorkflowStub(record.workflowId()).describe();
    assertEquals(completedId, described.getTypedSearchAttributes().get(ExecutionSearchAttributes.SA_EXECUTION_ID));
    assertEquals("create_release", described.getTypedSearchAttributes().get(ExecutionSearchAttributes.SA_TOOL));
    String listed = listUntilFound(server.target(), "OnceportState = 'completed_result_delivered'", completedId);
    assertTrue(listed.contains("create_release"), listed);
    assertEquals(1, connection.client().listExecutions("OnceportExecutionId = '" + completedId + "'").count());
  }

  @Test
  @Order(2)
  void workerKilledMidIrreversibleDispatchIsNotResentAfterItsStickyQueueTimesOut() throws Exception {
    McpClient client = cluster.client(mcpPort);
    // Long enough to find the execution through (eventually consistent) visibility and start a second worker.
    cluster.armFault("delay=20000", 1);
    JsonNode args = JSON.readTree("{\"message\":\"real server crash\"}");
    CompletableFuture<JsonNode> pending = CompletableFuture.supplyAsync(() -> {
      try {
        return client.call(1, "send_notification", args);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    // Only worker one runs: it holds the workflow (sticky) and the dispatch. The second starts now.
    String id = awaitDispatched(Duration.ofSeconds(30));
    ChildProcess workerTwo = cluster.worker(server.target(), false, "w2");
    Cluster.awaitWorker(workerTwo);
    workerOne.kill9();
    ExecutionRecord record = awaitRecord(id, r -> r.state() == ExecutionState.NEEDS_REVIEW, Duration.ofSeconds(90));
    assertEquals(Outcome.UNKNOWN, record.outcome());
    assertEquals(1, record.dispatchAttempts());
    awaitActs(id, 1, Duration.ofSeconds(30)); // the held request completes at the target
    Thread.sleep(2000); // nothing else arrives
    assertEquals(1, cluster.dispatches(id));
    pending.get(30, TimeUnit.SECONDS);
    JsonNode retry = client.call(2, "send_notification", args);
    assertEquals(id, retry.at("/result/structuredContent/execution_id").asText(), retry.toString());
    assertEquals("needs_review", retry.at("/result/structuredContent/state").asText(), retry.toString());
    assertEquals(1, cluster.dispatches(id));
    listUntilFound(server.target(), "OnceportState = 'needs_review_outcome_unknown'", id);
  }

  /** Waits until the target has acted {@code count} times under {@code id} (a held request has completed). */
  private static void awaitActs(String id, long count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (cluster.acts(id) < count && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertEquals(count, cluster.acts(id));
  }

  /** The one send_notification execution that is dispatched, found by a visibility query. */
  private static String awaitDispatched(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      var found = connection.client().listExecutions("OnceportTool = 'send_notification' AND OnceportState = 'dispatched'").toList();
      if (found.size() == 1) {
        return found.get(0).getTypedSearchAttributes().get(ExecutionSearchAttributes.SA_EXECUTION_ID);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no dispatched send_notification execution within " + timeout);
  }

  @Test
  @Order(3)
  void theDatabaseSurvivesARestartOfTheServer() throws Exception {
    int port = server.port();
    connection.close();
    connection = null;
    server.close();
    server = TemporalCliServer.start(binary, cluster.data, "127.0.0.1", port, 0, true, null, Duration.ofSeconds(90));
    String listed = listUntilFound(server.target(), "OnceportExecutionId = '" + completedId + "'", completedId);
    assertTrue(listed.contains("completed_result_delivered"), listed);
  }
}
