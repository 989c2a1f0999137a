package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.GatewayHarness;
import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.Resolution;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLI errors that used to print only {@code onceport: workflowId='…', runId='…'}: a record the
 * command cannot decode (no payload keys, or other keys), and decisions on an execution that is
 * already closed. Each now says what happened and what to do. Against the whole gateway in-process.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TemporalErrorsTest {
  private static GatewayHarness gateway;
  private static String executionId;
  @TempDir Path tmp;

  @BeforeAll
  static void start() throws Exception {
    gateway = new GatewayHarness(true);
    var result = gateway.client().call(1, "create_release", new ObjectMapper().readTree("{\"service\":\"errors\",\"version\":\"1\"}"));
    executionId = result.at("/result/structuredContent/execution_id").asText();
    gateway.awaitRecord(executionId, r -> r.delivery() == Delivery.DELIVERED, Duration.ofSeconds(30));
    gateway.skipTime(Duration.ofMinutes(11)); // past the late-arrival tail: the run closes
    gateway.awaitRecord(executionId, r -> !gateway.directory.isOpen(gateway.directory.locate(executionId).orElseThrow()),
        Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  private static AgentCommandTest.Run cli(String... args) {
    String[] all = java.util.stream.Stream.concat(java.util.Arrays.stream(args),
        java.util.stream.Stream.of("--temporal", gateway.engine.target())).toArray(String[]::new);
    return AgentCommandTest.run(all);
  }

  @Test
  void aRecordWithoutTheDeploymentsKeysSaysSoAndNamesTheKeyDirectory() {
    Path empty = tmp.resolve("no-data-here");
    AgentCommandTest.Run r = cli("executions", "show", executionId, "--data", empty.toString());
    assertEquals(1, r.exit());
    assertEquals("onceport: cannot decode the record of execution " + executionId + ": its payloads are encrypted and "
        + empty.resolve("keys/payload") + " does not exist (No PayloadConverter is registered for an encoding: "
        + "binary/encrypted). Run the command with --data DIR naming the deployment's data directory, whose "
        + "keys/payload the workers and front ends share (or $ONCEPORT_DATA).\n", r.err());
  }

  @Test
  void otherKeysAreNamedAsTheWrongKeys() throws Exception {
    Path other = tmp.resolve("other");
    assertEquals(0, AgentCommandTest.run("keys", "init", "--data", other.toString()).exit());
    AgentCommandTest.Run r = cli("executions", "list", "--data", other.toString());
    assertEquals(1, r.exit());
    assertTrue(r.err().startsWith("onceport: cannot decode the record of workflow onceport-fp-"), r.err());
    assertTrue(r.err().contains(other.resolve("keys/payload") + " has no key that decodes them (payload encrypted with unknown key"), r.err());
    AgentCommandTest.Run sessions = cli("sessions", "list", "--data", other.toString());
    assertTrue(sessions.err().startsWith("onceport: cannot decode the record of workflow onceport-session-"), sessions.err());
    assertTrue(Files.isDirectory(other.resolve("keys/payload")));
  }

  @Test
  void resolvingAFinishedExecutionSaysItIsFinished() throws Exception {
    Path key = tmp.resolve("ops.key"); // resolutions are signed: the command needs an operator key first
    io.onceport.activity.operator.OperatorKey.generate("ops").write(key, false);
    AgentCommandTest.Run r = cli("executions", "resolve", executionId, "--completed", "--reason", "checked",
        "--data", gateway.data.toString(), "--key-file", key.toString());
    assertEquals(new AgentCommandTest.Run(1, "", "onceport: execution " + executionId + " is completed_result_delivered, "
        + "not needs_review; nothing to resolve (it is finished: `onceport executions show " + executionId
        + "` prints its record)\n"), r);
  }

  @Test
  void aDecisionThatReachesAClosedRunSaysNothingChanged() {
    ExecutionRecord rec = gateway.record(executionId);
    ToolExecutionWorkflow stub = gateway.connection.client().newWorkflowStub(ToolExecutionWorkflow.class, rec.workflowId(),
        Optional.of(rec.runId()));
    RuntimeException e = assertThrows(RuntimeException.class,
        () -> stub.resolve(new Resolution(Resolution.Decision.COMPLETED, "late", "operator:test")));
    assertEquals("the workflow closed before the decision arrived (it is no longer open); nothing was changed",
        ExecutionsCommand.failureMessage(e));
  }
}
