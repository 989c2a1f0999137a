package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Empty;
import com.google.protobuf.util.Durations;
import com.google.protobuf.util.Timestamps;
import io.onceport.activity.dispatch.DispatchActivitiesImpl;
import io.onceport.activity.http.HttpChannel;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.app.demo.DemoTarget;
import io.onceport.app.engine.WorkerHost;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Operators;
import io.onceport.workflow.ErrorTypes;
import io.onceport.activity.operator.DecisionStatement;
import io.onceport.workflow.operator.SignedDecision;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Records;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifyCondition;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.api.testservice.v1.SleepRequest;
import io.temporal.api.testservice.v1.TestServiceGrpc;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code attach_window: until_verified} on the embedded engine, whose clock the tests move on by
 * days, against the demo target's credential API over real HTTP (its late rotations land by the
 * engine's clock): a rotation whose answer was lost is not rotated again by a retry days later
 * while its effect is unconfirmed; verified, identical calls attach for the verified window, then
 * one is a new rotation; a rotation that never took effect is never sent again blindly. Each test
 * on a fresh engine (the test server skips time only while no activity runs).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class UntilVerifiedTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCHEMA = """
      {"type":"object","required":["service"],"properties":{"service":{"type":"string"}},"additionalProperties":false}""";
  private final RecordingJournal journal = new RecordingJournal();
  private final List<String> dispatched = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.nio.file.Path operators = tempDirectory();
  private final io.onceport.activity.operator.OperatorKey ops = Operators.register(operators, "ops");
  private EngineHarness harness;
  private DemoTarget target;
  private DispatchActivitiesImpl activities;

  @BeforeEach
  void start() throws IOException {
    EngineHarness[] engine = new EngineHarness[1];
    // The credential API applies late rotations by the engine's clock (skipped days included).
    target = DemoTarget.start("127.0.0.1", 0, () -> engineMillis(engine[0]));
    activities = new DispatchActivitiesImpl(Map.of(ToolContract.Channel.HTTP, new HttpChannel()),
        r -> dispatched.add(r.executionId()), CredentialResolver.NONE);
    String base = target.url();
    engine[0] = new EngineHarness("onceport-verified", new SimplePreparation(
        rotate("rotate_irreversible", ReplayClass.IRREVERSIBLE, base),
        rotate("rotate_keyed", ReplayClass.IDEMPOTENCY_KEY, base),
        rotate("rotate_status", ReplayClass.STATUS_QUERY, base)),
        activities, journal, new AllowAll(), new OperatorActivitiesImpl(new OperatorRegistry(operators)));
    harness = engine[0];
  }

  @AfterEach
  void stop() {
    if (harness != null) {
      harness.close();
    }
    activities.close();
    target.close();
  }

  private static java.nio.file.Path tempDirectory() {
    try {
      return java.nio.file.Files.createTempDirectory("onceport-verified-operators");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A signed verdict on {@code r}'s effect, issued at the engine's time (days ahead of the wall clock here). */
  private VerificationDecision verdict(ExecutionRecord r, VerificationDecision.Decision d, String reason) {
    SignedDecision s = ops.sign(DecisionStatement.issue("verification", r.executionId(), r.fingerprint(), d.wireName(), reason, ops,
        Instant.ofEpochMilli(engineMillis(harness)), Duration.ofMinutes(10)));
    return new VerificationDecision(d, reason, ops.operator(), s.statement(), s.signature());
  }

  private ToolExecutionWorkflow stub(ExecutionRecord r) {
    return harness.connection.client().newWorkflowStub(ToolExecutionWorkflow.class, r.workflowId(), java.util.Optional.of(r.runId()));
  }

  /** The shipped example's contract ({@code contracts/rotate_credential.yaml}) under each class. */
  static ToolContract rotate(String tool, ReplayClass replay, String base) {
    VerifySpec verify = VerifySpec.newBuilder()
        .setHttp("GET", base + "/v1/credentials/{{service}}/active")
        .setEvery(Duration.ofSeconds(30))
        .setGiveUpAfter(Duration.ofDays(7))
        .setVerifiedWindow(Duration.ofMinutes(10))
        .setVerifiedWhen(new VerifyCondition(List.of(200), "/key_id", "/new_key_id", null, null))
        .setNotAppliedWhen(new VerifyCondition(List.of(200), "/key_id", "/old_key_id", null, null))
        .build();
    StatusSpec status = replay == ReplayClass.STATUS_QUERY
        ? new StatusSpec("GET", base + "/v1/credentials/{{service}}/rotations/by-key/{{execution_id}}", List.of(200), List.of(404))
        : null;
    return new ToolContract(tool, "Rotate a service's credential.", SCHEMA, null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", base + "/v1/credentials/{{service}}/rotate", null, Map.of(), "Idempotency-Key", null, 5_000),
        null, new ReplaySpec(replay, Duration.ofMinutes(5), status, verify), List.of(), List.of());
  }

  private static long engineMillis(EngineHarness h) {
    if (h == null) {
      return System.currentTimeMillis();
    }
    return Timestamps.toMillis(TestServiceGrpc.newBlockingStub(h.connection.stubs().getRawChannel())
        .withDeadlineAfter(10, TimeUnit.SECONDS).getCurrentTime(Empty.getDefaultInstance()).getTime());
  }

  /** Moves the engine's clock on by {@code d}: every timer due meanwhile fires (checks run as they come due). */
  private void skip(Duration d) {
    TestServiceGrpc.newBlockingStub(harness.connection.stubs().getRawChannel())
        .withDeadlineAfter(120, TimeUnit.SECONDS)
        .unlockTimeSkippingWithSleep(SleepRequest.newBuilder().setDuration(Durations.fromMillis(d.toMillis())).build());
  }

  /**
   * Moves the clock on in steps of {@code step} until a check verified the effect (a skip is a sleep
   * of the engine's clock: one long skip could run past the verified window as well).
   */
  private ExecutionRecord skipUntilVerified(String id, Duration step, int steps) throws Exception {
    for (int i = 0; i < steps; i++) {
      ExecutionRecord r = await(id, x -> true);
      if (r.verification() != null && r.verification().state().equals(ExecutionRecord.Verification.VERIFIED)) {
        return r;
      }
      skip(step);
    }
    return await(id, r -> r.verification() != null && r.verification().state().equals(ExecutionRecord.Verification.VERIFIED));
  }

  private static ToolCall call(String tool, String service, String jsonRpcId) throws Exception {
    JsonNode args = JSON.readTree("{\"service\":\"" + service + "\"}");
    return new ToolCall("agent:ops", tool, args, null, null, "session-1", jsonRpcId, "2025-06-18", "test/1", "127.0.0.1", 10_000);
  }

  private long rotations(String service) {
    return target.ledger().stream()
        .filter(e -> e.acted() && e.path().equals("/v1/credentials/" + service + "/rotate")).count();
  }

  private ExecutionRecord await(String executionId, java.util.function.Predicate<ExecutionRecord> condition) throws Exception {
    return Records.await(harness.directory, executionId, condition, Duration.ofSeconds(60));
  }

  private List<JournalEntry> journalled(String executionId, String transition) {
    return journal.entries.stream().filter(e -> e.executionId().equals(executionId) && e.transition().equals(transition)).toList();
  }

  @Test
  void aRotationWhoseAnswerIsLostIsNotRotatedAgainByARetryDaysLaterAndAfterTheVerifiedWindowOneIsNew() throws Exception {
    // The rotation is answered at once but takes effect four days later: until then "active" says 202 rotating.
    target.armFault(DemoTarget.APPLY_LATE + Duration.ofDays(4).toMillis(), 1);
    CallResult first = harness.gateway.call(call("rotate_irreversible", "billing", "1"));
    String id = first.record().executionId();
    ExecutionRecord answered = await(id, r -> r.verification() != null);
    assertEquals("completed_verification_pending", answered.view());
    assertEquals("{\"service\":\"billing\",\"old_key_id\":\"billing-key-1\",\"new_key_id\":\"billing-key-2\"}",
        answered.result().body());
    // The answer is lost (no delivery is reported); the agent retries three days later.
    skip(Duration.ofDays(3));
    CallResult retry = harness.gateway.call(call("rotate_irreversible", "billing", "2"));

    assertTrue(retry.attached(), "the retry attaches to the unverified rotation");
    assertEquals(id, retry.record().executionId());
    assertEquals(ExecutionRecord.Verification.PENDING, retry.record().verification().state());
    assertTrue(retry.record().message().contains("not repeated until a check"), retry.record().message());
    assertEquals(1, rotations("billing"), "no second rotation");
    ExecutionRecord.Verification pending = retry.record().verification();
    assertTrue(pending.checkCount() > 10, "checked on its schedule for three days: " + pending.checkCount());
    assertTrue(pending.checkCount() < 100, "backoff capped at an hour, not every 30 s: " + pending.checkCount());
    ExecutionRecord.VerificationCheck last = pending.checks().get(pending.checks().size() - 1);
    assertEquals("not_yet_known", last.verdict());
    assertEquals(202, last.status());

    // The rotation lands on day four: the next check (hourly by now) verifies it.
    skip(Duration.ofDays(1).minusMinutes(30));
    ExecutionRecord verified = skipUntilVerified(id, Duration.ofMinutes(5), 40);
    assertEquals("completed_verified", verified.view());
    ExecutionRecord.VerificationCheck confirming = verified.verification().checks().get(verified.verification().checks().size() - 1);
    assertEquals("verified", confirming.verdict());
    assertTrue(confirming.held().stream().anyMatch(h -> h.pointer().equals("/key_id") && "\"billing-key-2\"".equals(h.value())
        && "\"billing-key-2\"".equals(h.expected())), confirming.held().toString());
    assertEquals(1, journalled(id, "verified").size());
    assertEquals(pending.checkCount() + 0L, journalled(id, "verification_check").stream()
        .filter(e -> e.attempt() <= pending.checkCount()).count(), "every check is journalled");
    CallResult withinWindow = harness.gateway.call(call("rotate_irreversible", "billing", "3"));
    assertEquals(id, withinWindow.record().executionId());
    assertEquals(1, rotations("billing"));

    // After the verified window (10 minutes) an identical call is a new intent: a second rotation, on purpose.
    skip(Duration.ofMinutes(11));
    Records.awaitClosed(harness.directory, id, Duration.ofSeconds(60));
    CallResult later = harness.gateway.call(call("rotate_irreversible", "billing", "4"));
    assertNotEquals(id, later.record().executionId());
    assertFalse(later.attached());
    assertEquals(2, rotations("billing"));
  }

  @Test
  void aWorkerLostBetweenChecksIsReplacedAndTheNewOneCarriesOnTheSchedule() throws Exception {
    target.armFault(DemoTarget.APPLY_LATE + Duration.ofHours(3).toMillis(), 1);
    CallResult first = harness.gateway.call(call("rotate_irreversible", "dns", "1"));
    String id = first.record().executionId();
    skip(Duration.ofMinutes(2));
    ExecutionRecord checked = await(id, r -> r.verification() != null && r.verification().checkCount() >= 2);
    harness.worker.close(); // the worker (and its cached run) is gone between two checks
    // Another worker (no cache: it replays the run's history at its next task) takes over. (The test
    // server does not move its clock while a task waits for a worker, so it starts before the skip.)
    try (DispatchActivitiesImpl fresh = new DispatchActivitiesImpl(Map.of(ToolContract.Channel.HTTP, new HttpChannel()),
            r -> dispatched.add(r.executionId()), CredentialResolver.NONE);
        WorkerHost replacement = WorkerHost.start(harness.connection, "onceport-verified", fresh, journal, new AllowAll(),
            new OperatorActivitiesImpl(new OperatorRegistry(operators)))) {
      skip(Duration.ofHours(4));
      ExecutionRecord verified = await(id, r -> r.verification().state().equals(ExecutionRecord.Verification.VERIFIED));

      assertTrue(verified.verification().checkCount() > checked.verification().checkCount());
      List<Integer> numbers = verified.verification().checks().stream().map(ExecutionRecord.VerificationCheck::number).toList();
      assertEquals(java.util.stream.IntStream.rangeClosed(numbers.get(0), numbers.get(numbers.size() - 1)).boxed().toList(), numbers,
          "the replacement replayed the history and went on numbering the checks");
      assertEquals(1, rotations("dns"));
      assertEquals(1, dispatched.size());
    }
  }

  @Test
  void anIrreversibleRotationThatNeverTookEffectWaitsForAnOperatorAndIsNeverSentAgain() throws Exception {
    target.armFault(DemoTarget.APPLY_NEVER, 1);
    CallResult first = harness.gateway.call(call("rotate_irreversible", "payroll", "1"));
    String id = first.record().executionId();
    skip(Duration.ofMinutes(10));
    ExecutionRecord review = await(id, r -> r.state() == ExecutionState.NEEDS_REVIEW);

    assertEquals(ExecutionRecord.Verification.NOT_APPLIED, review.verification().state());
    assertTrue(review.message().contains("its effect is absent"), review.message());
    ExecutionRecord.VerificationCheck check = review.verification().checks().get(review.verification().checks().size() - 1);
    assertEquals("not_applied", check.verdict());
    assertTrue(check.held().stream().anyMatch(h -> h.condition().equals("not_applied_when") && "\"payroll-key-1\"".equals(h.value())),
        check.held().toString());
    skip(Duration.ofDays(2));
    CallResult retry = harness.gateway.call(call("rotate_irreversible", "payroll", "2"));
    assertEquals(id, retry.record().executionId());
    assertEquals(1, dispatched.size(), "one send, ever");
    assertEquals(1, target.ledger().stream().filter(e -> e.method().equals("POST")).count());
    assertEquals(1, journalled(id, "not_applied").size());
  }

  @Test
  void aKeyedRotationFoundNotAppliedIsSentAgainOnlyUnderTheSameKey() throws Exception {
    target.armFault(DemoTarget.APPLY_NEVER, 1);
    CallResult first = harness.gateway.call(call("rotate_keyed", "ledger", "1"));
    String id = first.record().executionId();
    skip(Duration.ofHours(1));
    ExecutionRecord review = await(id, r -> r.state() == ExecutionState.NEEDS_REVIEW);

    assertTrue(review.sends().size() > 1, "re-sent after the effect was found absent: " + review.sends().size());
    assertEquals(review.sends().size(), target.received(id), "every send carried the execution id as Idempotency-Key");
    assertEquals(1, target.acted(id), "the target replayed the stored answer: one rotation");
    assertEquals(1, rotations("ledger"));
    assertEquals(ExecutionRecord.Verification.NOT_APPLIED, review.verification().state());
  }

  @Test
  void aRotationWhoseConnectionDroppedAfterTheTargetAcceptedItIsFoundByStatusThenVerified() throws Exception {
    target.armFault(DemoTarget.DROP_AFTER_ACCEPT, 1);
    CallResult first = harness.gateway.call(call("rotate_status", "search", "1"));
    String id = first.record().executionId();
    ExecutionRecord verified = skipUntilVerified(id, Duration.ofMinutes(1), 30);

    assertEquals(Outcome.COMPLETED, verified.outcome());
    assertEquals(1, rotations("search"));
    assertEquals(1, dispatched.size());
    CallResult retry = harness.gateway.call(call("rotate_status", "search", "2"));
    assertEquals(id, retry.record().executionId());
    assertEquals(1, rotations("search"));
  }

  @Test
  void checksThatNeverDecideGiveUpToAReviewWithWhatEveryCheckSaw() throws Exception {
    target.armFault(DemoTarget.APPLY_LATE + Duration.ofDays(9).toMillis(), 1);
    CallResult first = harness.gateway.call(call("rotate_irreversible", "mail", "1"));
    String id = first.record().executionId();
    skip(Duration.ofDays(7).plusHours(2));
    ExecutionRecord review = await(id, r -> r.state() == ExecutionState.NEEDS_REVIEW);

    assertEquals(ExecutionRecord.Verification.GIVEN_UP, review.verification().state());
    assertTrue(review.message().contains("onceport executions verify " + id), review.message());
    int checks = review.verification().checkCount();
    assertTrue(checks > 150 && checks <= VerifySpec.MAX_CHECKS + 12, "a week of capped backoff: " + checks);
    assertEquals(checks, journalled(id, "verification_check").size(), "what every check saw is in the journal");
    assertEquals(1, journalled(id, "verification_given_up").size());
    assertEquals(1, rotations("mail"));
    assertTrue(Instant.parse(review.verification().giveUpAt()).isBefore(Instant.ofEpochMilli(engineMillis(harness))));

    // A resolution is not what it waits for; an unsigned verdict is refused and changes nothing; a signed one settles it.
    WorkflowUpdateException resolve = assertThrows(WorkflowUpdateException.class, () -> stub(review).resolve(
        Operators.resolution(ops, review, Resolution.Decision.COMPLETED, "x", Instant.ofEpochMilli(engineMillis(harness)))));
    assertTrue(resolve.getCause().getMessage().contains("onceport executions verify"), resolve.getCause().getMessage());
    WorkflowUpdateException unsigned = assertThrows(WorkflowUpdateException.class, () -> stub(review).verify(
        new VerificationDecision(VerificationDecision.Decision.VERIFIED, "trust me", "mallory", null, null)));
    assertEquals(ErrorTypes.DECISION_REFUSED, ((ApplicationFailure) unsigned.getCause()).getType());
    ExecutionRecord settled = stub(review).verify(verdict(review, VerificationDecision.Decision.VERIFIED, "mail-key-2 seen in the vault"));

    assertEquals("completed_verified", settled.view());
    assertEquals("verified", settled.verification().decision().decision());
    assertEquals("ops", settled.verification().decision().by());
    assertEquals(1, journalled(id, "verification_decided").size());
    assertEquals(1, journalled(id, "decision_refused").size());
    assertEquals(1, rotations("mail"));
  }

  @Test
  void anOperatorsNotAppliedVerdictWhilePendingSendsAnIrreversibleRotationToReviewNotToTheTarget() throws Exception {
    target.armFault(DemoTarget.APPLY_LATE + Duration.ofDays(2).toMillis(), 1);
    CallResult first = harness.gateway.call(call("rotate_irreversible", "vpn", "1"));
    ExecutionRecord pending = await(first.record().executionId(), r -> r.verification() != null);
    ExecutionRecord after = stub(pending).verify(verdict(pending, VerificationDecision.Decision.NOT_APPLIED, "old key still in use"));

    ExecutionRecord review = await(pending.executionId(), r -> r.state() == ExecutionState.NEEDS_REVIEW);
    assertEquals(ExecutionRecord.Verification.NOT_APPLIED, review.verification().state(), after.view());
    assertTrue(review.message().contains("never re-sent automatically"), review.message());
    assertEquals(1, rotations("vpn"));
    assertEquals(1, dispatched.size());
  }
}
