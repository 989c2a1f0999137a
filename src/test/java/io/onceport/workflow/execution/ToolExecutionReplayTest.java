package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.RecordingJournal;
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
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Replays committed histories of the ToolExecution workflow against the current code. A change that
 * breaks one of these must go behind {@code Workflow.getVersion}. Histories are re-recorded only on
 * purpose: {@code mvn test -Dtest=ToolExecutionReplayTest -Donceport.recordHistories=true}.
 */
class ToolExecutionReplayTest {
  private static final String[] SCENARIOS = {"completed-delivered", "irreversible-needs-review-resolved", "status-query-resolved"};

  @Test
  void committedHistoriesReplayAgainstTheCurrentWorkflow() throws Exception {
    if (Boolean.getBoolean("onceport.recordHistories")) {
      record();
    }
    for (String prefix : new String[] {"", "before-memo-summary-", "before-local-authorization-"}) {
      // "before-memo-summary-" and "before-local-authorization-": recorded before those
      // Workflow.getVersion changes (memo summary; the ladder as a local activity); they must keep replaying.
      for (String scenario : SCENARIOS) {
        String resource = "histories/" + prefix + "tool-execution-" + scenario + ".json";
        assertTrue(getClass().getClassLoader().getResource(resource) != null, "missing " + resource);
        WorkflowReplayer.replayWorkflowExecutionFromResource(resource, ToolExecutionWorkflowImpl.class);
      }
    }
  }

  @Test
  void aChangedDecisionIsCaughtByReplay() throws Exception {
    // The replayer must fail on a history whose commands the code would not produce: take the
    // completed history and replay it as if the first dispatch had been a different activity type.
    String json = new String(getClass().getClassLoader()
        .getResourceAsStream("histories/tool-execution-completed-delivered.json").readAllBytes());
    String tampered = json.replace("\"Dispatch\"", "\"QueryStatus\"");
    assertTrue(!tampered.equals(json), "the history should schedule the Dispatch activity");
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(tampered);
    try {
      WorkflowReplayer.replayWorkflowExecution(history, ToolExecutionWorkflowImpl.class);
    } catch (Exception e) {
      return;
    }
    throw new AssertionError("replay accepted a history with a different activity type");
  }

  private void record() throws IOException {
    Path dir = Path.of("src/test/resources/histories");
    Files.createDirectories(dir);
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      for (String name : io.onceport.frontend.temporal.TemporalConnection.SEARCH_ATTRIBUTES) {
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
      ExecutionRecord b = start(client, "irreversible-needs-review-resolved", ReplayClass.IRREVERSIBLE);
      assertEquals(ExecutionState.NEEDS_REVIEW, b.state());
      ToolExecutionWorkflow stubB = client.newWorkflowStub(ToolExecutionWorkflow.class, b.workflowId(), Optional.of(b.runId()));
      stubB.resolve(new Resolution(Resolution.Decision.COMPLETED, "verified at the target", "ops"));
      stubB.reportDelivery(new DeliveryReport("call-2", true, "2026-01-01T00:00:00Z", ""));
      save(client, dir, "irreversible-needs-review-resolved", b);

      dispatch.then(ScriptedDispatch.unknown());
      dispatch.thenStatus(new StatusResult(StatusResult.Verdict.COMPLETED, ScriptedDispatch.ok(200, "{}"), "found"));
      ExecutionRecord c = start(client, "status-query-resolved", ReplayClass.STATUS_QUERY);
      client.newWorkflowStub(ToolExecutionWorkflow.class, c.workflowId(), Optional.of(c.runId()))
          .reportDelivery(new DeliveryReport("call-3", true, "2026-01-01T00:00:00Z", ""));
      save(client, dir, "status-query-resolved", c);
    }
  }

  private static ExecutionRecord start(WorkflowClient client, String id, ReplayClass replay) {
    ToolContract contract = Contracts.http("t_" + replay.wireName(), replay, "http://127.0.0.1:9", Duration.ofMinutes(5));
    ExecutionInput input = new ExecutionInput("hmac-sha256:" + "0".repeat(64), "{}", contract.tool(), "agent:test", "actor:agent:test",
        null, "s1", "http://127.0.0.1:9/v1/releases", "POST", contract, "{\"service\":\"a\",\"version\":\"1\"}", "{\"service\":\"a\",\"version\":\"1\"}");
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
