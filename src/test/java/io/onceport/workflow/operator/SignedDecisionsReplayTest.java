package io.onceport.workflow.operator;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.testing.Contracts;
import io.onceport.testing.Operators;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ApprovalDecision;
import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionInput;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Resolution;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.execution.ToolExecutionWorkflowImpl;
import io.onceport.workflow.session.AgentSessionInput;
import io.onceport.workflow.session.AgentSessionWorkflow;
import io.onceport.workflow.session.AgentSessionWorkflowImpl;
import io.onceport.workflow.session.SessionDecision;
import io.onceport.workflow.session.SessionEnded;
import io.onceport.workflow.session.SessionJournalActivities;
import io.onceport.workflow.session.SessionRecord;
import io.onceport.workflow.session.SessionStarted;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.BatchRequest;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Replays histories recorded after decisions were signed — a session authorized after an unsigned
 * attempt was refused, an execution approved after a forged approval was refused, a review resolved
 * after an unsigned resolution was refused — against the current workflows. The verdicts are local
 * activity markers in these histories, so replay needs neither the registry nor the keys.
 * Re-record only on purpose: {@code mvn test -Dtest=SignedDecisionsReplayTest -Donceport.recordHistories=true}.
 */
class SignedDecisionsReplayTest {
  static final String SESSION = "histories/signed-decisions-agent-session-refused-then-authorized.json";
  static final String APPROVAL = "histories/signed-decisions-tool-execution-refused-then-approved.json";
  static final String RESOLUTION = "histories/signed-decisions-tool-execution-refused-then-resolved.json";

  @Test
  void historiesWithSignedAndRefusedDecisionsReplayAgainstTheCurrentWorkflows() throws Exception {
    if (Boolean.getBoolean("onceport.recordHistories")) {
      record();
    }
    for (String resource : List.of(SESSION, APPROVAL, RESOLUTION)) {
      assertTrue(getClass().getClassLoader().getResource(resource) != null, "missing " + resource);
    }
    WorkflowReplayer.replayWorkflowExecutionFromResource(SESSION, AgentSessionWorkflowImpl.class);
    WorkflowReplayer.replayWorkflowExecutionFromResource(APPROVAL, ToolExecutionWorkflowImpl.class);
    WorkflowReplayer.replayWorkflowExecutionFromResource(RESOLUTION, ToolExecutionWorkflowImpl.class);
  }

  /** Approval for t_approval, otherwise allowed; the gate stays open. */
  static final class Ladder implements AuthorizationActivities {
    @Override
    public AuthorizationDecision decide(AuthorizationRequest request) {
      return request.tool().equals("t_approval")
          ? new AuthorizationDecision(AuthorizationDecision.Kind.APPROVAL_REQUIRED, "approve_each_use", "needs approval", "policy", 600_000)
          : AuthorizationDecision.allow("allowed", "policy");
    }

    @Override
    public AuthorizationDecision recheck(AuthorizationRequest request) {
      return AuthorizationDecision.allow("allowed", "policy");
    }
  }

  private void record() throws IOException, InterruptedException {
    Path dir = Path.of("src/test/resources/histories");
    Path operators = Files.createTempDirectory("onceport-replay-operators");
    OperatorKey ops = Operators.register(operators, "ops");
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build())) {
      for (String name : ExecutionSearchAttributes.NAMES) {
        env.registerSearchAttribute(name, io.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
      }
      ScriptedDispatch dispatch = new ScriptedDispatch();
      Worker worker = env.newWorker("replay");
      worker.registerWorkflowImplementationTypes(ToolExecutionWorkflowImpl.class, AgentSessionWorkflowImpl.class);
      worker.registerActivitiesImplementations(dispatch, new RecordingJournal(), new Ladder(), (SessionJournalActivities) entry -> {},
          new OperatorActivitiesImpl(new OperatorRegistry(operators)));
      env.start();
      WorkflowClient client = env.getWorkflowClient();

      AgentSessionWorkflow session = client.newWorkflowStub(AgentSessionWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId("onceport-session-replay").setTaskQueue("replay").build());
      BatchRequest batch = client.newSignalWithStartRequest();
      batch.add(session::run, new AgentSessionInput("mcp:replay", "agent:test"));
      batch.add(session::started, new SessionStarted("mcp:replay", "agent:test", "test", "1", "2025-06-18", "127.0.0.1", Instant.now().toString()));
      client.signalWithStart(batch);
      session.registerWaiting("onceport-fp-gone");
      assertThrows(WorkflowUpdateException.class, () -> session.authorize(new SessionDecision("operator:mallory", "trust me")));
      SessionRecord authorized = session.authorize(Operators.session(ops, "mcp:replay", "agent:test", "authorize", "known agent"));
      assertEquals("ops", authorized.authorization().by());
      session.ended(new SessionEnded("client deleted the session", Instant.now().toString()));
      WorkflowStub.fromTyped(session).getResult(SessionRecord.class);
      Files.writeString(dir.resolve(Path.of(SESSION).getFileName()), client.fetchHistory("onceport-session-replay").toJson(true));

      ExecutionRecord waiting = start(client, "t_approval", ReplayClass.IDEMPOTENCY_KEY, "replay-signed-approval");
      waitFor(client, waiting, ExecutionState.AWAITING_APPROVAL);
      ToolExecutionWorkflow approval = client.newWorkflowStub(ToolExecutionWorkflow.class, waiting.workflowId(), Optional.of(waiting.runId()));
      OperatorKey impostor = OperatorKey.generate("ops");
      SignedDecision forged = Operators.sign(impostor, "approval", waiting.executionId(), waiting.fingerprint(), "approve", "x");
      assertThrows(WorkflowUpdateException.class, () -> approval.decideApproval(new ApprovalDecision(
          waiting.executionId(), waiting.fingerprint(), true, "x", "ops", forged.statement(), forged.signature())));
      approval.decideApproval(Operators.approval(ops, waiting, true, "ticket 7"));
      waitFor(client, waiting, ExecutionState.COMPLETED);
      approval.reportDelivery(new DeliveryReport("call-replay-signed-approval", true, Instant.now().toString(), ""));
      WorkflowStub.fromTyped(approval).getResult(ExecutionRecord.class);
      Files.writeString(dir.resolve(Path.of(APPROVAL).getFileName()), client.fetchHistory(waiting.workflowId(), waiting.runId()).toJson(true));

      dispatch.then(ScriptedDispatch.unknown());
      ExecutionRecord review = start(client, "t_irreversible", ReplayClass.IRREVERSIBLE, "replay-signed-resolution");
      waitFor(client, review, ExecutionState.NEEDS_REVIEW);
      ToolExecutionWorkflow resolve = client.newWorkflowStub(ToolExecutionWorkflow.class, review.workflowId(), Optional.of(review.runId()));
      assertThrows(WorkflowUpdateException.class,
          () -> resolve.resolve(new Resolution(Resolution.Decision.REDISPATCH, "trust me", "operator:mallory")));
      resolve.resolve(Operators.resolution(ops, review, Resolution.Decision.COMPLETED, "seen in the target's log", Instant.now()));
      resolve.reportDelivery(new DeliveryReport("call-replay-signed-resolution", true, Instant.now().toString(), ""));
      WorkflowStub.fromTyped(resolve).getResult(ExecutionRecord.class);
      Files.writeString(dir.resolve(Path.of(RESOLUTION).getFileName()), client.fetchHistory(review.workflowId(), review.runId()).toJson(true));
    }
  }

  private static ExecutionRecord start(WorkflowClient client, String tool, ReplayClass replay, String workflowId) {
    // The shortest late-arrival tail: recorded in real time (signed statements), each run closes ~30 s after delivery.
    ToolContract contract = Contracts.http(tool, replay, "http://127.0.0.1:9", Duration.ofMinutes(5), ReplaySpec.MIN_DEDUPE_AFTER_DELIVERY);
    ExecutionInput input = ExecutionInput.of("hmac-sha256:" + "3".repeat(64), contract.tool(), "agent:test", "actor:agent:test",
        null, "mcp:replay", "http://127.0.0.1:9/v1/releases", "POST", contract, "{\"service\":\"a\",\"version\":\"1\"}", null);
    ToolExecutionWorkflow stub = client.newWorkflowStub(ToolExecutionWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId).setTaskQueue("replay")
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING).build());
    return WorkflowClient.executeUpdateWithStart(stub::attach,
        new AttachRequest("call-" + workflowId, input.fingerprint(), "1", "mcp:replay", null, null, "2025-06-18", "test/1", "127.0.0.1", "fe",
            Instant.now().toString(), 10_000),
        UpdateOptions.<ExecutionRecord>newBuilder().setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
        new WithStartWorkflowOperation<>(stub::run, input));
  }

  private static void waitFor(WorkflowClient client, ExecutionRecord r, ExecutionState state) throws InterruptedException {
    ToolExecutionWorkflow stub = client.newWorkflowStub(ToolExecutionWorkflow.class, r.workflowId(), Optional.of(r.runId()));
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (stub.record().state() != state && System.nanoTime() < end) {
      Thread.sleep(50);
    }
    assertEquals(state, stub.record().state());
  }
}
