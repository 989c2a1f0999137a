package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code executions list|show} when a record cannot be read: a workflow whose every task fails (here
 * its input cannot be decoded, as after an incompatible change) is listed with the reason, and
 * {@code show} says what happened and what to do — one stuck execution never breaks the list.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ExecutionsCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static EngineHarness harness;
  private static String good;
  private static final String STUCK = "act_01M8STUCK0000000000000000";

  @BeforeAll
  static void start() throws Exception {
    harness = new EngineHarness(new SimplePreparation(
        Contracts.http("listed_tool", ReplayClass.STATUS_QUERY, "http://127.0.0.1:9", Duration.ofSeconds(30))),
        new ScriptedDispatch(), new RecordingJournal(), new AllowAll());
    CallResult r = harness.gateway.call(new ToolCall("agent:deployer", "listed_tool", JSON.readTree("{\"service\":\"a\",\"version\":\"1\"}"),
        null, null, "s1", "1", "2025-06-18", "test/1", "127.0.0.1", 10_000));
    good = r.record().executionId();
    // A ToolExecution whose record cannot be read: written by an incompatible worker, its result
    // does not decode as an execution record. (A running workflow whose tasks keep failing makes the
    // record query fail the same way, only after the query deadline.)
    factory = io.temporal.worker.WorkerFactory.newInstance(harness.connection.client());
    factory.newWorker("incompatible").registerWorkflowImplementationTypes(Incompatible.class);
    factory.start();
    io.temporal.client.WorkflowStub stuck = harness.connection.client().newUntypedWorkflowStub(ToolExecutionWorkflow.TYPE,
        WorkflowOptions.newBuilder()
            .setWorkflowId("onceport-fp-stuck").setTaskQueue("incompatible")
            .setTypedSearchAttributes(SearchAttributes.newBuilder()
                .set(ExecutionSearchAttributes.SA_EXECUTION_ID, STUCK)
                .set(ExecutionSearchAttributes.SA_ACTOR, "agent:deployer").build())
            .build());
    stuck.start("anything");
    stuck.getResult(String.class);
  }

  private static io.temporal.worker.WorkerFactory factory;

  @io.temporal.workflow.WorkflowInterface
  public interface IncompatibleWorkflow {
    @io.temporal.workflow.WorkflowMethod(name = ToolExecutionWorkflow.TYPE)
    String run(String input);
  }

  public static final class Incompatible implements IncompatibleWorkflow {
    @Override
    public String run(String input) {
      return "a result from another version";
    }
  }

  @AfterAll
  static void stop() {
    if (factory != null) {
      factory.shutdownNow();
    }
    harness.close();
  }

  private String out;
  private String err;

  private int run(String... args) {
    CommandLine cl = OnceportCommand.commandLine();
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    cl.setOut(new PrintWriter(o, true));
    cl.setErr(new PrintWriter(e, true));
    String[] all = java.util.stream.Stream.concat(java.util.Arrays.stream(args),
        java.util.stream.Stream.of("--temporal", harness.engine.target())).toArray(String[]::new);
    int code = cl.execute(all);
    out = o.toString();
    err = e.toString();
    return code;
  }

  @Test
  void anUnreadableRecordIsListedWithItsReasonAndTheRestStillShow() {
    assertEquals(0, run("executions", "list"), err);
    String stuckLine = out.lines().filter(l -> l.startsWith(STUCK)).findFirst().orElseThrow(() -> new AssertionError(out));
    assertTrue(stuckLine.contains("unreadable"), stuckLine);
    assertTrue(stuckLine.contains("onceport executions show " + STUCK), stuckLine);
    assertTrue(out.lines().anyMatch(l -> l.startsWith(good) && l.contains("completed")), out);
  }

  @Test
  void listAsJsonStillParsesAndNamesTheUnreadableOne() throws Exception {
    assertEquals(0, run("executions", "list", "--json"), err);
    JsonNode all = JSON.readTree(out);
    JsonNode stuck = null;
    boolean sawGood = false;
    for (JsonNode n : all) {
      if (STUCK.equals(n.path("executionId").asText())) {
        stuck = n;
      }
      sawGood |= good.equals(n.path("executionId").asText()) && n.has("sends");
    }
    assertTrue(sawGood, out);
    assertTrue(stuck != null && !stuck.path("unreadable").asText().isEmpty(), out);
    assertEquals("onceport-fp-stuck", stuck.path("workflowId").asText());
  }

  @Test
  void showOfAnUnreadableRecordSaysWhatHappenedAndWhatToDo() {
    assertEquals(1, run("executions", "show", STUCK));
    assertTrue(err.startsWith("onceport: the record of " + STUCK + " cannot be read: "), err);
    assertTrue(err.contains("temporal workflow describe --workflow-id onceport-fp-stuck"), err);
    assertTrue(err.contains("nothing is re-sent while it cannot run"), err);
  }

  @Test
  void showListsEverySend() {
    assertEquals(0, run("executions", "show", good), err);
    assertTrue(out.contains("dispatches  1"), out);
    assertTrue(out.lines().anyMatch(l -> l.startsWith("  send 1 answered 201 ") && l.contains("key " + good)), out);
  }
}
