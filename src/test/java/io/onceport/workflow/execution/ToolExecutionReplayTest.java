package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.Histories;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Replayer;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.StatusResult;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replays committed histories of the ToolExecution workflow against the current code. A change that
 * breaks one of these must go behind {@code Workflow.getVersion}. Histories are re-recorded only on
 * purpose: {@code mvn test -Dtest=ToolExecutionReplayTest -Donceport.recordHistories=true}.
 */
class ToolExecutionReplayTest {
  private static Replayer replayer;

  @BeforeAll
  static void startReplayer() {
    replayer = new Replayer();
  }

  @AfterAll
  static void closeReplayer() {
    replayer.close();
  }

  /** An irreversible execution resolved by an operator (a signed statement) is SignedDecisionsReplayTest's. */
  private static final String[] SCENARIOS = {"completed-delivered", "status-query-resolved"};

  @Test
  void committedHistoriesReplayAgainstTheCurrentWorkflow() throws Exception {
    if (Boolean.getBoolean("onceport.recordHistories")) {
      record();
    }
    if (Boolean.getBoolean("onceport.recordMultiProcessHistories")) {
      recordMultiProcess();
    }
    // Only this build's histories: the workflow is PINNED, so an execution another build started
    // finishes on that build's workers and is never replayed by this code.
    for (String scenario : SCENARIOS) {
      String resource = "histories/tool-execution-" + scenario + ".json";
      assertTrue(getClass().getClassLoader().getResource(resource) != null, "missing " + resource);
      replayer.replayResource(resource, ToolExecutionWorkflowImpl.class);
    }
  }

  /**
   * Recorded from the multi-process set-up (an {@code onceport engine} and an {@code onceport
   * worker} in their own JVMs): a delivery signal and an attach update that reached the workflow
   * while it waited for a slow send, handled in one workflow task — the pair that replayed in the
   * other order and stuck 21 executions with a NonDeterministicException when handlers issued
   * commands.
   */
  @Test
  void aSignalAndAnUpdateHandledInOneWorkflowTaskReplay() throws Exception {
    for (String name : MULTI_PROCESS) {
      String resource = "histories/" + name + ".json";
      WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(new String(
          getClass().getClassLoader().getResourceAsStream(resource).readAllBytes()));
      assertTrue(Histories.signalAndUpdateInOneTask(history), resource + " has no workflow task that handled both a signal and an update");
      replayer.replay(history, ToolExecutionWorkflowImpl.class);
    }
  }

  /**
   * Recorded by {@link InBandAnswerTest}: a call whose front end chose its execution id and whose
   * send answered in band — no version marker, the attach answered at the first step, the delivery
   * carried back by the send, the run closed after its late-arrival tail.
   */
  @Test
  void anInBandAnsweredHistoryReplays() throws Exception {
    String resource = "histories/" + InBandAnswerTest.IN_BAND_HISTORY + ".json";
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(new String(
        getClass().getClassLoader().getResourceAsStream(resource).readAllBytes()));
    assertEquals(0, history.getEvents().stream()
        .filter(e -> e.getEventType() == io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED).count(),
        "the memo is published at start");
    replayer.replay(history, ToolExecutionWorkflowImpl.class);
  }

  private static final String[] MULTI_PROCESS = {
    "tool-execution-multi-process-signal-and-update-in-one-task", "tool-execution-multi-process-two-signals-and-updates"};


  @Test
  void aChangedDecisionIsCaughtByReplay() throws Exception {
    // The replayer must fail on a history whose commands the code would not produce: take the
    // completed history and replay it as if the first dispatch had been a different activity type.
    String json = new String(getClass().getClassLoader()
        .getResourceAsStream("histories/tool-execution-completed-delivered.json").readAllBytes());
    String tampered = json.replace("\"Send\"", "\"QueryStatus\"");
    assertTrue(!tampered.equals(json), "the history should schedule the Send activity");
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(tampered);
    try {
      replayer.replay(history, ToolExecutionWorkflowImpl.class);
    } catch (Exception e) {
      return;
    }
    throw new AssertionError("replay accepted a history with a different activity type");
  }

  private void record() throws IOException {
    Path dir = Path.of("src/test/resources/histories");
    Files.createDirectories(dir);
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      for (String name : ExecutionSearchAttributes.NAMES) {
        env.registerSearchAttribute(name, io.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
      }
      ScriptedDispatch dispatch = new ScriptedDispatch();
      Worker worker = env.newWorker("replay");
      worker.registerWorkflowImplementationTypes(ToolExecutionWorkflowImpl.class);
      worker.registerActivitiesImplementations(dispatch, new RecordingJournal(), new AllowAll());
      env.start();
      WorkflowClient client = env.getWorkflowClient();

      ExecutionRecord a = start(client, "completed-delivered", ReplayClass.STATUS_QUERY);
      client.newWorkflowStub(ToolExecutionWorkflow.class, a.workflowId(), Optional.of(a.runId()))
          .reportDelivery(new DeliveryReport("call-1", true, "2026-01-01T00:00:00Z", ""));
      save(client, dir, "completed-delivered", a);

      dispatch.then(ScriptedDispatch.unknown());
      dispatch.thenStatus(new StatusResult(StatusResult.Verdict.COMPLETED, ScriptedDispatch.ok(200, "{}"), "found"));
      ExecutionRecord c = start(client, "status-query-resolved", ReplayClass.STATUS_QUERY);
      client.newWorkflowStub(ToolExecutionWorkflow.class, c.workflowId(), Optional.of(c.runId()))
          .reportDelivery(new DeliveryReport("call-3", true, "2026-01-01T00:00:00Z", ""));
      save(client, dir, "status-query-resolved", c);
    }
  }

  /**
   * {@code mvn test -Dtest=ToolExecutionReplayTest -Donceport.recordMultiProcessHistories=true}:
   * an engine and a worker as child processes (payload encryption off, so the history replays
   * without keys), the demo target holding each send for a while; during the hold a delivery
   * signal and an attach update arrive together and are handled in one workflow task.
   */
  private void recordMultiProcess() throws Exception {
    Path dir = Path.of("src/test/resources/histories");
    try (io.onceport.testing.Cluster cluster = new io.onceport.testing.Cluster()) {
      int port = io.onceport.testing.Cluster.freePort();
      String temporal = "127.0.0.1:" + port;
      cluster.start("engine", "--port", Integer.toString(port)).awaitLine("onceport: embedded Temporal engine", Duration.ofSeconds(60));
      io.onceport.testing.Cluster.awaitWorker(cluster.start("worker", "--temporal", temporal, "--task-queue", io.onceport.testing.Cluster.TASK_QUEUE,
          "--data", cluster.data.toString(), "--session-authorization", "auto", "--journal-writer", "w1", "--embedded-engine",
          "--payload-encryption", "off"));
      ToolContract loaded = new io.onceport.frontend.contract.ContractLoader().load(cluster.contracts).find("create_release").orElseThrow();
      // The shortest late-arrival tail: recorded in real time, each run closes ~30 s after delivery.
      ToolContract contract = new ToolContract(loaded.tool(), loaded.description(), loaded.inputSchema(), loaded.outputSchema(),
          loaded.channel(), loaded.http(), loaded.ssh(), new io.onceport.workflow.contract.ReplaySpec(loaded.replay().replayClass(),
          loaded.replay().attachWindow(), loaded.replay().status(), io.onceport.workflow.contract.ReplaySpec.MIN_DEDUPE_AFTER_DELIVERY),
          loaded.fingerprintIgnore(), loaded.fingerprintSecret(), loaded.resultFormat(), loaded.mcp());
      try (io.onceport.shared.temporal.TemporalConnection connection = io.onceport.shared.temporal.TemporalConnection.connect(
          temporal, "default", true, null, Duration.ofSeconds(10))) {
        WorkflowClient client = connection.client();
        for (int n = 0; n < 2; n++) {
          String name = MULTI_PROCESS[n];
          for (int attempt = 0; ; attempt++) {
            cluster.armFault("delay=2500", 1);
            ExecutionInput input = ExecutionInput.of("hmac-sha256:" + "2".repeat(63) + n + attempt, contract.tool(), "agent:test", "actor:agent:test",
                null, "s1", "http://127.0.0.1/v1/releases", "POST", contract, "{\"region\":\"us-east-1\",\"service\":\"mp\",\"version\":\"" + n + "." + attempt + "\"}", "auto");
            ToolExecutionWorkflow stub = client.newWorkflowStub(ToolExecutionWorkflow.class, WorkflowOptions.newBuilder()
                .setWorkflowId("replay-mp-" + n + "-" + attempt).setTaskQueue(io.onceport.testing.Cluster.TASK_QUEUE)
                .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING).build());
            io.temporal.client.WorkflowUpdateHandle<ExecutionRecord> first = WorkflowClient.startUpdateWithStart(stub::attach,
                new AttachRequest("call-a", input.fingerprint(), "1", "s1", null, null, "2025-06-18", "test/1", "127.0.0.1", "fe", "2026-01-01T00:00:00Z", 0),
                UpdateOptions.<ExecutionRecord>newBuilder().setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
                new WithStartWorkflowOperation<>(stub::run, input));
            ExecutionRecord started = first.getResult();
            ToolExecutionWorkflow running = client.newWorkflowStub(ToolExecutionWorkflow.class, started.workflowId(), Optional.of(started.runId()));
            Thread.sleep(800); // the send is at the demo target now, held for 2.5 s
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
              java.util.List<java.util.concurrent.Future<?>> all = new java.util.ArrayList<>();
              all.add(pool.submit(() -> running.reportDelivery(new DeliveryReport("call-a", false, "2026-01-01T00:00:01Z", "client gone"))));
              all.add(pool.submit(() -> running.attach(new AttachRequest("call-b", input.fingerprint(), "2", "s1", null, null, "2025-06-18", "test/1", "127.0.0.1", "fe", "2026-01-01T00:00:01Z", 10_000))));
              if (n == 1) {
                all.add(pool.submit(() -> running.recordCalls(java.util.List.of(new AttachRequest("call-c", input.fingerprint(), "3", "s1", null, null, "2025-06-18", "test/1", "127.0.0.1", "fe", "2026-01-01T00:00:01Z", 0)))));
                all.add(pool.submit(() -> running.awaitChange(0, 5_000)));
              }
              for (java.util.concurrent.Future<?> f : all) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
              }
            } finally {
              pool.shutdownNow();
            }
            running.reportDeliveries(java.util.List.of(new DeliveryReport("call-b", true, "2026-01-01T00:00:03Z", "")));
            client.newUntypedWorkflowStub(started.workflowId(), Optional.of(started.runId()), Optional.empty()).getResult(ExecutionRecord.class);
            WorkflowExecutionHistory history = client.fetchHistory(started.workflowId(), started.runId());
            if (Histories.signalAndUpdateInOneTask(history)) {
              Files.writeString(dir.resolve(name + ".json"), history.toJson(true));
              break;
            }
            assertTrue(attempt < 5, "no attempt put a signal and an update into one workflow task");
          }
        }
      }
    }
  }

  private static ExecutionRecord start(WorkflowClient client, String id, ReplayClass replay) {
    ToolContract contract = Contracts.http("t_" + replay.wireName(), replay, "http://127.0.0.1:9", Duration.ofMinutes(5));
    ExecutionInput input = ExecutionInput.of("hmac-sha256:" + "0".repeat(64), contract.tool(), "agent:test", "actor:agent:test",
        null, "s1", "http://127.0.0.1:9/v1/releases", "POST", contract, "{\"service\":\"a\",\"version\":\"1\"}", null);
    ToolExecutionWorkflow stub = client.newWorkflowStub(ToolExecutionWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId("replay-" + id).setTaskQueue("replay")
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING).build());
    return WorkflowClient.executeUpdateWithStart(stub::attach,
        new AttachRequest("call-" + id, input.fingerprint(), "1", "s1", null, null, "2025-06-18", "test/1", "127.0.0.1", "fe", "2026-01-01T00:00:00Z", 60_000),
        UpdateOptions.<ExecutionRecord>newBuilder().setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
        new WithStartWorkflowOperation<>(stub::run, input));
  }

  private static void save(WorkflowClient client, Path dir, String name, ExecutionRecord record) throws IOException {
    WorkflowStub untyped = client.newUntypedWorkflowStub(record.workflowId(), Optional.of(record.runId()), Optional.empty());
    untyped.getResult(ExecutionRecord.class);
    Files.writeString(dir.resolve("tool-execution-" + name + ".json"), client.fetchHistory(record.workflowId(), record.runId()).toJson(true));
  }
}
