package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.dispatch.StatusResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The execution state machine on the embedded engine over gRPC, with a scripted dispatch activity:
 * what the workflow decides for each replay class and each kind of failure.
 */
class ToolExecutionWorkflowTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ScriptedDispatch dispatch = new ScriptedDispatch();
  private static final RecordingJournal journal = new RecordingJournal();
  private static EngineHarness harness;
  private static int counter;
  private static java.nio.file.Path operators;
  private static io.onceport.activity.operator.OperatorKey ops;

  @BeforeAll
  static void start() throws java.io.IOException {
    operators = java.nio.file.Files.createTempDirectory("onceport-operators");
    ops = io.onceport.testing.Operators.register(operators, "ops");
    String base = "http://127.0.0.1:9";
    harness = new EngineHarness(
        new SimplePreparation(
            Contracts.http("status_tool", ReplayClass.STATUS_QUERY, base, Duration.ofMinutes(5)),
            Contracts.http("irreversible_tool", ReplayClass.IRREVERSIBLE, base, Duration.ofMinutes(5)),
            Contracts.http("keyed_tool", ReplayClass.IDEMPOTENCY_KEY, base, Duration.ofMinutes(5)),
            Contracts.http("short_window_tool", ReplayClass.STATUS_QUERY, base, Duration.ofSeconds(2))),
        dispatch, journal, new AllowAll(),
        new io.onceport.activity.operator.OperatorActivitiesImpl(new io.onceport.activity.operator.OperatorRegistry(operators)));
  }

  @AfterAll
  static void stop() throws java.io.IOException {
    harness.close();
    try (var files = java.nio.file.Files.walk(operators)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @BeforeEach
  void reset() {
    dispatch.reset();
    counter++;
  }

  private JsonNode args() throws Exception {
    return JSON.readTree("{\"service\":\"catalog\",\"version\":\"v" + counter + "\"}");
  }

  private static ToolCall call(String tool, JsonNode args, String jsonRpcId, long waitMillis) {
    return new ToolCall("agent:deployer", tool, args, null, null, "session-1", jsonRpcId, "2025-06-18", "test/1", "127.0.0.1", waitMillis);
  }

  private static void deliver(CallResult result) {
    harness.gateway.reportDelivery(result.record().executionId(),
        new DeliveryReport(result.callId(), true, Instant.now().toString(), ""));
  }

  @Test
  void retryWithNewJsonRpcIdWhileInFlightAttachesToTheFirstExecution() throws Exception {
    dispatch.fallback = ScriptedDispatch.slow(1500, ScriptedDispatch.ok(201, "{\"id\":\"rel_7\"}"));
    JsonNode args = args();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CompletableFuture<CallResult> first = CompletableFuture.supplyAsync(() -> harness.gateway.call(call("status_tool", args, "41", 10_000)), pool);
      Thread.sleep(300);
      CompletableFuture<CallResult> retry = CompletableFuture.supplyAsync(() -> harness.gateway.call(call("status_tool", args, "42", 10_000)), pool);
      CallResult a = first.get();
      CallResult b = retry.get();
      assertEquals(a.record().executionId(), b.record().executionId());
      assertEquals(ExecutionState.COMPLETED, b.record().state());
      assertEquals("{\"id\":\"rel_7\"}", b.record().result().body());
      assertEquals(1, dispatch.dispatched.size());
      assertFalse(a.attached());
      assertTrue(b.attached());
      List<String> ids = b.record().calls().stream().map(AttachedCall::jsonRpcId).toList();
      assertEquals(List.of("41", "42"), ids);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void undeliveredResultIsReturnedToARetryWithoutDispatching() throws Exception {
    JsonNode args = args();
    CallResult first = harness.gateway.call(call("status_tool", args, "1", 10_000));
    harness.gateway.reportDelivery(first.record().executionId(),
        new DeliveryReport(first.callId(), false, Instant.now().toString(), "client gone"));
    CallResult retry = harness.gateway.call(call("status_tool", args, "2", 10_000));
    assertEquals(first.record().executionId(), retry.record().executionId());
    assertEquals(Delivery.NOT_DELIVERED, retry.record().delivery());
    assertEquals("completed_result_not_delivered", retry.record().view());
    assertEquals(1, dispatch.dispatched.size());
  }

  @Test
  void identicalCallWithinTheLateArrivalTailIsAnsweredFromTheExecutionAndNotSentAgain() throws Exception {
    JsonNode args = args();
    CallResult first = harness.gateway.call(call("status_tool", args, "1", 10_000));
    deliver(first);
    ExecutionRecord delivered = harness.gateway.awaitChange(first.record().executionId(), first.record().version(),
        Duration.ofSeconds(5));
    assertEquals(Delivery.DELIVERED, delivered.delivery());
    CallResult second = harness.gateway.call(call("status_tool", args, "2", 10_000));
    assertEquals(first.record().executionId(), second.record().executionId());
    assertTrue(second.attached(), "told that it was answered from the execution");
    assertEquals(ExecutionState.COMPLETED, second.record().state());
    assertEquals(1, dispatch.dispatched.size(), "not sent again");
  }

  @Test
  void irreversibleUnknownOutcomeWaitsForReviewAndARetryDoesNotResend() throws Exception {
    dispatch.then(ScriptedDispatch.unknown());
    JsonNode args = args();
    CallResult first = harness.gateway.call(call("irreversible_tool", args, "1", 10_000));
    assertEquals(ExecutionState.NEEDS_REVIEW, first.record().state());
    assertEquals(Outcome.UNKNOWN, first.record().outcome());
    CallResult retry = harness.gateway.call(call("irreversible_tool", args, "2", 2_000));
    assertEquals(first.record().executionId(), retry.record().executionId());
    assertEquals(ExecutionState.NEEDS_REVIEW, retry.record().state());
    assertEquals(1, dispatch.dispatched.size());

    ToolExecutionWorkflow stub = harness.connection.client().newWorkflowStub(
        ToolExecutionWorkflow.class, first.record().workflowId(), java.util.Optional.of(first.record().runId()));
    ExecutionRecord resolved = stub.resolve(io.onceport.testing.Operators.resolution(
        ops, first.record(), Resolution.Decision.COMPLETED, "checked the ledger", java.time.Instant.now()));
    assertEquals(ExecutionState.COMPLETED, resolved.state());
    assertEquals("completed", resolved.review().decision());
    assertEquals("ops", resolved.review().by());
    assertEquals("checked the ledger", resolved.review().reason());
    assertEquals(1, dispatch.dispatched.size());
  }

  @Test
  void statusQueryResolvesAnUnknownOutcome() throws Exception {
    dispatch.then(ScriptedDispatch.unknown());
    dispatch.thenStatus(new StatusResult(StatusResult.Verdict.COMPLETED, ScriptedDispatch.ok(200, "{\"id\":\"rel_9\"}"), "found by key"));
    CallResult result = harness.gateway.call(call("status_tool", args(), "1", 10_000));
    assertEquals(ExecutionState.COMPLETED, result.record().state());
    assertEquals(200, result.record().targetStatus());
    assertEquals(1, dispatch.dispatched.size());
    assertEquals(1, dispatch.statusQueries.size());
    assertEquals("completed", result.record().statusChecks().get(0).verdict());
  }

  @Test
  void statusQueryProvingNothingRanDispatchesAgainUnderTheSameExecutionIdOnlyAfterTheSettleTime() throws Exception {
    // The contract's settle time is its HTTP timeout (5 s): a 404 right after the unknown outcome
    // proves nothing (the first request may still be running at the target); the one asked after
    // the settle time does.
    dispatch.then(ScriptedDispatch.unknown());
    dispatch.thenStatus(new StatusResult(StatusResult.Verdict.NOT_EXECUTED, null, "404"));
    dispatch.thenStatus(new StatusResult(StatusResult.Verdict.NOT_EXECUTED, null, "404"));
    CallResult result = harness.gateway.call(call("status_tool", args(), "1", 20_000));
    assertEquals(ExecutionState.COMPLETED, result.record().state());
    assertEquals(2, dispatch.dispatched.size());
    assertEquals(2, dispatch.statusQueries.size());
    assertEquals(dispatch.dispatched.get(0).executionId(), dispatch.dispatched.get(1).executionId());
    assertEquals(2, dispatch.dispatched.get(1).attempt());
    List<ExecutionRecord.Send> sends = result.record().sends();
    assertEquals(List.of("outcome_unknown", "answered"), sends.stream().map(ExecutionRecord.Send::observed).toList());
    assertEquals(2, result.record().dispatchAttempts());
    long firstEnded = Instant.parse(sends.get(0).endedAt()).toEpochMilli();
    long proofAt = Instant.parse(result.record().statusChecks().get(1).at()).toEpochMilli();
    long resentAt = Instant.parse(sends.get(1).startedAt()).toEpochMilli();
    assertTrue(proofAt - firstEnded >= 5_000, "proof asked " + (proofAt - firstEnded) + " ms after the first send ended");
    assertTrue(resentAt >= proofAt);
    assertEquals("query_status", sends.get(0).decision());
    assertEquals("settle_completed", sends.get(1).decision());
  }

  @Test
  void aStatusAnswerInNeitherListNeverLeadsToAResend() throws Exception {
    dispatch.then(ScriptedDispatch.unknown());
    for (int i = 0; i < 20; i++) {
      dispatch.thenStatus(new StatusResult(StatusResult.Verdict.UNKNOWN, ScriptedDispatch.ok(202, "processing"), "202 in neither list"));
    }
    CallResult result = harness.gateway.call(call("status_tool", args(), "1", 3_000));
    ExecutionRecord record = result.record();
    assertTrue(record.state() == ExecutionState.VERIFYING || record.state() == ExecutionState.NEEDS_REVIEW, record.state().toString());
    assertEquals(1, dispatch.dispatched.size());
    assertTrue(dispatch.statusQueries.size() >= 2, "polled: " + dispatch.statusQueries.size());
    // It would poll on (bounded) and take the next tests' scripted verdicts: stop it here.
    harness.connection.client().newUntypedWorkflowStub(record.workflowId(), java.util.Optional.of(record.runId()), java.util.Optional.empty())
        .terminate("test finished");
  }

  @Test
  void aWorkerLostMidSendAndTheResendUnderTheSameKeyAreTwoSends() throws Exception {
    // The first send never answers and never heartbeats, as a killed worker: the server times it
    // out (heartbeat, 15 s); the replay policy re-sends an idempotency_key tool under the same key.
    dispatch.then(ScriptedDispatch.slow(25_000, ScriptedDispatch.ok(201, "{}")));
    CallResult first = harness.gateway.call(call("keyed_tool", args(), "1", 1_000));
    ExecutionRecord r = io.onceport.testing.Records.await(harness.directory, first.record().executionId(),
        x -> x.state() == ExecutionState.COMPLETED, Duration.ofSeconds(40));
    assertEquals(List.of("worker_lost", "answered"), r.sends().stream().map(ExecutionRecord.Send::observed).toList());
    assertEquals(2, r.dispatchAttempts());
    assertEquals(r.executionId(), r.sends().get(0).key());
    assertEquals(r.executionId(), r.sends().get(1).key());
    assertEquals("resend_same_key", r.sends().get(0).decision());
    assertEquals(2, dispatch.dispatched.size());
    assertEquals(dispatch.dispatched.get(0).executionId(), dispatch.dispatched.get(1).executionId());
    assertTrue(journal.entries.stream().anyMatch(e -> e.executionId().equals(r.executionId())
        && e.transition().equals("outcome_unknown") && "worker_lost".equals(e.detail().get("observed"))));
  }

  @Test
  void anUnknownOutcomeOfAnIdempotencyKeyToolIsResentUnderTheSameKeyThenReviewed() throws Exception {
    for (int i = 0; i < 4; i++) {
      dispatch.then(ScriptedDispatch.unknown());
    }
    CallResult first = harness.gateway.call(call("keyed_tool", args(), "1", 20_000));
    assertEquals(ExecutionState.NEEDS_REVIEW, first.record().state(), first.record().message());
    assertEquals(4, first.record().sends().size());
    assertEquals(4, dispatch.dispatched.size());
    assertTrue(dispatch.dispatched.stream().allMatch(d -> d.executionId().equals(first.record().executionId())));
  }

  @Test
  void connectionRefusedBeforeAnyByteIsRetriedAndCompletes() throws Exception {
    dispatch.then(ScriptedDispatch.notSent()).then(ScriptedDispatch.notSent());
    CallResult result = harness.gateway.call(call("irreversible_tool", args(), "1", 20_000));
    assertEquals(ExecutionState.COMPLETED, result.record().state());
    assertEquals(3, dispatch.dispatched.size());
  }

  @Test
  void intentKeySameKeySameExecutionNewKeyNewExecutionDifferentArgumentsRefused() throws Exception {
    JsonNode args = args();
    ToolCall keyed = new ToolCall("agent:deployer", "status_tool", args, null, "key-" + counter, null, "1", null, null, null, 10_000);
    CallResult a = harness.gateway.call(keyed);
    CallResult b = harness.gateway.call(keyed);
    assertEquals(a.record().executionId(), b.record().executionId());
    ToolCall otherKey = new ToolCall("agent:deployer", "status_tool", args, null, "key-other-" + counter, null, "2", null, null, null, 10_000);
    assertNotEquals(a.record().executionId(), harness.gateway.call(otherKey).record().executionId());
    ToolCall changed = new ToolCall("agent:deployer", "status_tool", JSON.readTree("{\"service\":\"billing\",\"version\":\"x\"}"),
        null, "key-" + counter, null, "3", null, null, null, 10_000);
    int before = dispatch.dispatched.size();
    GatewayException e = assertThrows(GatewayException.class, () -> harness.gateway.call(changed));
    assertEquals(GatewayException.Kind.INTENT_KEY_MISMATCH, e.kind());
    assertTrue(e.getMessage().contains("for a different request"), e.getMessage());
    assertEquals(before, dispatch.dispatched.size());
  }

  @Test
  void pendingCallReturnsTheTruthAndTheExecutionCanBeFoundById() throws Exception {
    dispatch.fallback = ScriptedDispatch.slow(2000, ScriptedDispatch.ok(201, "{}"));
    CallResult pending = harness.gateway.call(call("status_tool", args(), "1", 500));
    assertFalse(pending.record().isSettled(), pending.record().state().toString());
    assertEquals(Outcome.PENDING, pending.record().outcome());
    ExecutionRecord later = harness.gateway.awaitChange(pending.record().executionId(), pending.record().version(), Duration.ofSeconds(5));
    assertTrue(later.version() > pending.record().version());
    ExecutionRecord found = harness.gateway.find(pending.record().executionId()).orElseThrow();
    assertEquals(pending.record().fingerprint(), found.fingerprint());
  }

  @Test
  void unknownToolIsRefusedBeforeAnything() {
    GatewayException e = assertThrows(GatewayException.class, () -> harness.gateway.call(call("nope", JSON.createObjectNode(), "1", 100)));
    assertEquals(GatewayException.Kind.UNKNOWN_TOOL, e.kind());
  }

  private static void awaitClosed(String executionId) throws InterruptedException {
    io.onceport.testing.Records.awaitClosed(harness.directory, executionId, Duration.ofSeconds(15));
  }

}
