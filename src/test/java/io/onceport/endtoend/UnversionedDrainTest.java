package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.testing.Operators;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Resolution;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.VersioningBehavior;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.WorkflowExecutionVersioningInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The one-time switch from an unversioned deployment (docs/production.md, "From unversioned
 * workers"), step by step as the doc gives it, on the Temporal CLI's dev server: an unversioned
 * worker (in this JVM, as every build before Worker Versioning ran) leaves an irreversible call in
 * {@code needs_review}; a versioned worker of this build joins and, seeing the unversioned poller,
 * does not make itself current; {@code temporal worker deployment set-current-version} does; the
 * unversioned worker stops; the operator's resolution then runs on the versioned worker — every
 * workflow task from the resolution on, whatever the unversioned worker had cached — and pins the
 * execution there; the agent's session moves when the client ends it; the doc's visibility query
 * then lists nothing, a new call runs on the versioned build, and the target saw each execution once.
 *
 * <p>Why the unversioned worker stops before anything wakes the waiting execution: the new routing
 * reaches the unversioned worker's sticky queue asynchronously, so a task woken right after the
 * switch could still run there (seen once in three runs when the doc kept the unversioned workers
 * until the end). Harmless — both builds replay the history — but the execution then stays
 * unversioned until its next task; with no unversioned poller left, the first task goes to the
 * current build, always.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class UnversionedDrainTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUILD = "drain-b";
  /** The procedure's query (step 5): executions and sessions that no versioned worker has run yet. */
  private static final String STILL_UNVERSIONED = "WorkflowType IN ('ToolExecution', 'AgentSession') AND ExecutionStatus = 'Running'"
      + " AND TemporalWorkerDeploymentVersion IS NULL";
  private static final String UNVERSIONED_EXECUTIONS = STILL_UNVERSIONED.replace("IN ('ToolExecution', 'AgentSession')", "= 'ToolExecution'");

  @Test
  void anUnversionedExecutionFinishesOnTheFirstVersionedBuildOnceItIsCurrentAndTheUnversionedWorkersStopped() throws Exception {
    Path binary = TemporalCli.binaryOrSkip();
    try (GatewayHarness h = GatewayHarness.onTemporalCliWithoutWorker(binary, Duration.ofSeconds(20))) {
      WorkerRuntime unversioned = WorkerRuntime.start(h.connection, GatewayHarness.TASK_QUEUE, h.data, null, "auto",
          Duration.ofMinutes(1), "unversioned");
      boolean unversionedRunning = true;
      try {
        OperatorKey carol = Operators.register(h.data, "carol");
        McpClient agent = h.client();
        h.armFault("drop-after-accept", 1);
        JsonNode lost = agent.call(1, "send_notification", JSON.readTree("{\"message\":\"sent before the switch\"}"));
        String reviewId = lost.at("/result/structuredContent/execution_id").asText();
        ExecutionRecord review = h.awaitRecord(reviewId, r -> r.state() == ExecutionState.NEEDS_REVIEW, Duration.ofSeconds(60));
        assertEquals(VersioningBehavior.VERSIONING_BEHAVIOR_UNSPECIFIED, versioning(h, review).getBehavior(), "started unversioned");
        awaitListed(h, UNVERSIONED_EXECUTIONS, 1);

        // 1. This build's worker joins beside the unversioned one and does not make itself current.
        ChildProcess worker = ChildProcess.onceport(h.dir, "worker", "--temporal", h.temporalTarget(), "--task-queue",
            GatewayHarness.TASK_QUEUE, "--data", h.data.toString(), "--session-authorization", "auto", "--journal-writer", "versioned",
            "--build-id", BUILD);
        try {
          worker.awaitLine("build " + BUILD + ": not current: unversioned workers poll task queue " + GatewayHarness.TASK_QUEUE,
              Cluster.START_LINE);
          // 2. The operator makes it current.
          String switched = temporal(binary, h, "worker", "deployment", "set-current-version", "--deployment-name", "onceport",
              "--build-id", BUILD, "--yes");
          assertTrue(switched.contains("Successfully set the current worker deployment version"), switched);
          // 3. The unversioned workers stop (as a process stops: in-flight tasks finish, polling ends).
          unversioned.close();
          unversionedRunning = false;

          // The operator's resolution wakes the unversioned execution: the current build runs it from here on.
          ToolExecutionWorkflow stub = h.connection.client().newWorkflowStub(ToolExecutionWorkflow.class, review.workflowId());
          int before = history(h, review).size();
          ExecutionRecord resolved = stub.resolve(Operators.resolution(carol, review, Resolution.Decision.COMPLETED,
              "the message is in the channel", Instant.now()));
          assertEquals(ExecutionState.COMPLETED, resolved.state(), resolved.view());
          WorkflowExecutionVersioningInfo moved = versioning(h, review);
          assertEquals(VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, moved.getBehavior(), moved.toString());
          assertEquals(BUILD, moved.getDeploymentVersion().getBuildId(), moved.toString());
          assertWorkflowTasksFromRanOn(h, review, before, worker.pid());
          // The agent's session (started unversioned) moves and ends with the client's DELETE.
          agent.endSession();
          // 5. Nothing left that no versioned worker has run.
          awaitListed(h, STILL_UNVERSIONED, 0);

          JsonNode after = h.client().call(1, "create_release", JSON.readTree("{\"service\":\"drain\",\"version\":\"2\"}"));
          assertEquals("completed", after.at("/result/structuredContent/state").asText(), after.toString());
          ExecutionRecord onB = h.record(after.at("/result/structuredContent/execution_id").asText());
          assertEquals(BUILD, versioning(h, onB).getDeploymentVersion().getBuildId());
          assertEquals(1, h.target.received(reviewId));
          assertEquals(1, h.target.received(onB.executionId()));
        } finally {
          worker.close();
        }
      } finally {
        if (unversionedRunning) {
          unversioned.close();
        }
      }
    }
  }

  private static WorkflowExecutionVersioningInfo versioning(GatewayHarness h, ExecutionRecord r) {
    return h.connection.client().newUntypedWorkflowStub(r.workflowId()).describe().getRawDescription().getWorkflowExecutionInfo()
        .getVersioningInfo();
  }

  private static List<HistoryEvent> history(GatewayHarness h, ExecutionRecord r) {
    return h.connection.client().fetchHistory(r.workflowId(), r.runId()).getEvents();
  }

  /** Every workflow task completed after the first {@code from} events was the versioned worker's (and there was one). */
  private static void assertWorkflowTasksFromRanOn(GatewayHarness h, ExecutionRecord r, int from, long pid) {
    List<String> others = new ArrayList<>();
    int tasks = 0;
    List<HistoryEvent> events = history(h, r);
    for (HistoryEvent e : events.subList(from, events.size())) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        tasks++;
        String identity = e.getWorkflowTaskCompletedEventAttributes().getIdentity();
        if (!identity.startsWith(pid + "@")) {
          others.add(identity + " (event " + e.getEventId() + ")");
        }
      }
    }
    assertTrue(tasks > 0, "no workflow task after the resolution");
    assertTrue(others.isEmpty(), "workflow tasks after the switch taken by " + others + ", not the versioned worker (pid " + pid + ")");
  }

  private static void awaitListed(GatewayHarness h, String query, long count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long found = -1;
    while (System.nanoTime() < deadline) {
      found = h.connection.client().listExecutions(query).count();
      if (found == count) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(query + " listed " + found + " executions, not " + count);
  }

  /** The Temporal CLI against the harness's server (bounded: 60 s); its output, failing on a non-zero exit. */
  private static String temporal(Path binary, GatewayHarness h, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(binary.toString()));
    command.addAll(List.of(args));
    command.addAll(List.of("--address", h.temporalTarget(), "--namespace", "default"));
    Path out = Files.createTempFile(h.dir, "temporal", ".out");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("temporal " + String.join(" ", args) + " did not finish within 60 s");
    }
    String text = Files.readString(out);
    assertEquals(0, p.exitValue(), "temporal " + String.join(" ", args) + ":\n" + text);
    return text;
  }
}
