package io.onceport.workflow.session;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.Contracts;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Replayer;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ApprovalDecision;
import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionInput;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.execution.ToolExecutionWorkflowImpl;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.BatchRequest;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Replays committed histories of the session workflow and of an execution approved by an operator.
 * Re-record only on purpose: {@code mvn test -Dtest=AgentSessionReplayTest -Donceport.recordHistories=true}.
 */
class AgentSessionReplayTest {
  private static final String SESSION = "histories/agent-session-authorized-ended.json";
  private static final String APPROVED = "histories/tool-execution-approved-delivered.json";

  @Test
  void committedSessionAndApprovalHistoriesReplayAgainstTheCurrentWorkflows() throws Exception {
    if (Boolean.getBoolean("onceport.recordHistories")) {
      record();
    }
    assertTrue(getClass().getClassLoader().getResource(SESSION) != null, "missing " + SESSION);
    assertTrue(getClass().getClassLoader().getResource(APPROVED) != null, "missing " + APPROVED);
    try (Replayer replayer = new Replayer()) {
      replayer.replayResource(SESSION, AgentSessionWorkflowImpl.class);
      replayer.replayResource(APPROVED, ToolExecutionWorkflowImpl.class);
    }
  }

  /** Approval required for every call; the gate stays open. */
  static final class ApprovalLadder implements AuthorizationActivities {
    @Override
    public AuthorizationDecision decide(AuthorizationRequest request) {
      return new AuthorizationDecision(AuthorizationDecision.Kind.APPROVAL_REQUIRED, "approve_each_use", "needs approval", "policy", 600_000);
    }

    @Override
    public AuthorizationDecision recheck(AuthorizationRequest request) {
      return AuthorizationDecision.allow("allowed", "policy");
    }
  }

  private void record() throws IOException {
    Path dir = Path.of("src/test/resources/histories");
    Files.createDirectories(dir);
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(
        TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build())) {
      for (String name : ExecutionSearchAttributes.NAMES) {
        env.registerSearchAttribute(name, io.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
      }
      Worker worker = env.newWorker("replay");
      worker.registerWorkflowImplementationTypes(ToolExecutionWorkflowImpl.class, AgentSessionWorkflowImpl.class);
      worker.registerActivitiesImplementations(new ScriptedDispatch(), new RecordingJournal(), new ApprovalLadder(),
          (SessionJournalActivities) entry -> {});
      env.start();
      WorkflowClient client = env.getWorkflowClient();

      AgentSessionWorkflow session = client.newWorkflowStub(AgentSessionWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(AgentSessionWorkflow.workflowId("mcp:replay")).setTaskQueue("replay").build());
      BatchRequest batch = client.newSignalWithStartRequest();
      batch.add(session::run, new AgentSessionInput("mcp:replay", "agent:test"));
      batch.add(session::started, new SessionStarted("mcp:replay", "agent:test", "test", "1", "2025-06-18", "127.0.0.1", "2026-01-01T00:00:00Z"));
      client.signalWithStart(batch);
      session.registerWaiting("onceport-fp-gone"); // no such execution: the forwarded signal fails and is logged
      SessionRecord authorized = session.authorize(new SessionDecision("operator:ops", "known agent"));
      assertEquals("authorized", authorized.authorization().decision());
      session.ended(new SessionEnded("client deleted the session", "2026-01-01T00:05:00Z"));
      WorkflowStub untyped = WorkflowStub.fromTyped(session);
      untyped.getResult(SessionRecord.class);
      Files.writeString(dir.resolve("agent-session-authorized-ended.json"),
          client.fetchHistory(AgentSessionWorkflow.workflowId("mcp:replay")).toJson(true));

      ToolContract contract = Contracts.http("t_approved", ReplayClass.IDEMPOTENCY_KEY, "http://127.0.0.1:9", Duration.ofMinutes(5));
      ExecutionInput input = new ExecutionInput("hmac-sha256:" + "1".repeat(64), "{}", contract.tool(), "agent:test", "actor:agent:test",
          null, "mcp:replay", "http://127.0.0.1:9/v1/releases", "POST", contract, "{\"service\":\"a\",\"version\":\"1\"}", "{\"service\":\"a\",\"version\":\"1\"}");
      ToolExecutionWorkflow stub = client.newWorkflowStub(ToolExecutionWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId("replay-approved").setTaskQueue("replay")
          .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING).build());
      ExecutionRecord accepted = WorkflowClient.executeUpdateWithStart(stub::attach,
          new AttachRequest("call-approved", input.fingerprint(), "1", "mcp:replay", null, null, "2025-06-18", "test/1", "127.0.0.1", "fe",
              "2026-01-01T00:00:00Z", 0),
          UpdateOptions.<ExecutionRecord>newBuilder().setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
          new WithStartWorkflowOperation<>(stub::run, input));
      long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (stub.record().state() != ExecutionState.AWAITING_APPROVAL && System.nanoTime() < end) {
        sleep(50);
      }
      ToolExecutionWorkflow run = client.newWorkflowStub(ToolExecutionWorkflow.class, accepted.workflowId(), Optional.of(accepted.runId()));
      run.decideApproval(new ApprovalDecision(accepted.executionId(), input.fingerprint(), true, "checked", "operator:ops"));
      while (stub.record().state() != ExecutionState.COMPLETED && System.nanoTime() < end) {
        sleep(50);
      }
      run.reportDelivery(new DeliveryReport("call-approved", true, "2026-01-01T00:00:00Z", ""));
      WorkflowStub.fromTyped(run).getResult(ExecutionRecord.class);
      Files.writeString(dir.resolve("tool-execution-approved-delivered.json"),
          client.fetchHistory(accepted.workflowId(), accepted.runId()).toJson(true));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
