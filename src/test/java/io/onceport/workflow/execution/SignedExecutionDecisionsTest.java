package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.operator.DecisionStatement;
import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.Operators;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Records;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.operator.SignedDecision;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A ToolExecution acts on an approval, a resolution or a session decision only when the operator's
 * statement verifies; everything else — unsigned, expired, replayed, bound to another execution or
 * fingerprint, signed by a removed key — is refused, changes nothing, fails the update with the
 * reason and is journalled with what was presented. The caller here holds the payload keys (the
 * embedded engine without encryption) but no operator key: the codec's refusal is not what stops it.
 */
@Timeout(180)
class SignedExecutionDecisionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BASE = "http://127.0.0.1:9";
  private static final ScriptedDispatch dispatch = new ScriptedDispatch();
  private static final RecordingJournal journal = new RecordingJournal();
  private static Path operators;
  private static OperatorKey ops;
  private static EngineHarness harness;
  private static int counter;

  /** Approval for approval_tool, session authorization for session_tool, otherwise allowed; the gate stays open. */
  static final class Ladder implements AuthorizationActivities {
    @Override
    public AuthorizationDecision decide(AuthorizationRequest request) {
      return switch (request.tool()) {
        case "approval_tool" -> new AuthorizationDecision(AuthorizationDecision.Kind.APPROVAL_REQUIRED, "approve_each_use", "", "policy", 600_000);
        case "session_tool" -> new AuthorizationDecision(AuthorizationDecision.Kind.SESSION_AUTHORIZATION_REQUIRED, "session_authorization",
            "", "policy", 600_000);
        default -> AuthorizationDecision.allow("allowed", "policy");
      };
    }

    @Override
    public AuthorizationDecision recheck(AuthorizationRequest request) {
      return AuthorizationDecision.allow("allowed", "policy");
    }
  }

  @BeforeAll
  static void start() throws Exception {
    operators = Files.createTempDirectory("onceport-signed");
    ops = Operators.register(operators, "ops");
    dispatch.journal = journal;
    harness = new EngineHarness(
        new SimplePreparation(
            Contracts.http("approval_tool", ReplayClass.IDEMPOTENCY_KEY, BASE, Duration.ofMinutes(5)),
            Contracts.http("session_tool", ReplayClass.IDEMPOTENCY_KEY, BASE, Duration.ofMinutes(5)),
            Contracts.http("irreversible_tool", ReplayClass.IRREVERSIBLE, BASE, Duration.ofMinutes(5))),
        dispatch, journal, new Ladder(), new OperatorActivitiesImpl(new OperatorRegistry(operators)));
  }

  @AfterAll
  static void stop() throws Exception {
    harness.close();
    try (Stream<Path> files = Files.walk(operators)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @BeforeEach
  void reset() {
    dispatch.reset();
    dispatch.journal = journal;
    counter++;
  }

  private static JsonNode args() throws Exception {
    return JSON.readTree("{\"service\":\"catalog\",\"version\":\"s" + counter + "\"}");
  }

  private static CallResult call(String tool, long waitMillis) throws Exception {
    return harness.gateway.call(new ToolCall("agent:deployer", tool, args(), null, null, "mcp:signed-" + counter, "1", "2025-06-18",
        "test/1", "127.0.0.1", waitMillis));
  }

  private static ToolExecutionWorkflow stub(ExecutionRecord r) {
    return harness.connection.client().newWorkflowStub(ToolExecutionWorkflow.class, r.workflowId(), Optional.of(r.runId()));
  }

  private static ExecutionRecord await(String id, ExecutionState state) throws InterruptedException {
    return Records.await(harness.directory, id, r -> r.state() == state, Duration.ofSeconds(15));
  }

  private static String refusal(Runnable update) {
    WorkflowUpdateException e = assertThrows(WorkflowUpdateException.class, update::run);
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure app) {
        return app.getType() + ": " + app.getOriginalMessage();
      }
    }
    throw new AssertionError("no ApplicationFailure in " + e);
  }

  private static <T> T awaitValue(java.util.function.Supplier<T> value, java.util.function.Predicate<T> done, Duration timeout)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    T v = value.get();
    while (!done.test(v) && System.nanoTime() < end) {
      Thread.sleep(50);
      v = value.get();
    }
    assertTrue(done.test(v), "timed out; last: " + v);
    return v;
  }

  private static List<JournalEntry> refusals(String executionId) {
    return journal.entries.stream().filter(e -> e.executionId().equals(executionId) && e.transition().equals("decision_refused")).toList();
  }

  private static ApprovalDecision approval(SignedDecision s, ExecutionRecord r) {
    return new ApprovalDecision(r.executionId(), r.fingerprint(), true, "", "ops", s.statement(), s.signature());
  }

  @Test
  void anApprovalMustBeSignedBoundCurrentAndByARegisteredKeyAndTheGoodOneKeepsItsReason() throws Exception {
    CallResult first = call("approval_tool", 500);
    ExecutionRecord r = await(first.record().executionId(), ExecutionState.AWAITING_APPROVAL);
    String id = r.executionId();
    String prefix = "DecisionRefused: execution " + id + ": decision refused: ";

    assertEquals(prefix + "unsigned: no signed statement was presented (sign it with onceport approve|deny, or onceport operator sign approval)",
        refusal(() -> stub(r).decideApproval(new ApprovalDecision(id, r.fingerprint(), true, "trust me", "operator:mallory"))));
    SignedDecision otherFingerprint = Operators.sign(ops, "approval", id, "hmac-sha256:" + "0".repeat(64), "approve", "x");
    assertEquals(prefix + "the statement is bound to fingerprint hmac-sha256:" + "0".repeat(64) + ", not this execution's " + r.fingerprint(),
        refusal(() -> stub(r).decideApproval(approval(otherFingerprint, r))));
    SignedDecision otherExecution = Operators.sign(ops, "approval", "act_someone_else", r.fingerprint(), "approve", "x");
    assertEquals(prefix + "the statement is bound to act_someone_else, not " + id, refusal(() -> stub(r).decideApproval(approval(otherExecution, r))));
    SignedDecision expired = ops.sign(DecisionStatement.issue("approval", id, r.fingerprint(), "approve", "x", ops,
        Instant.now().minus(Duration.ofMinutes(30)), Duration.ofMinutes(10)));
    assertTrue(refusal(() -> stub(r).decideApproval(approval(expired, r))).startsWith(prefix + "the statement expired at "));
    OperatorKey gone = Operators.register(operators, "gone");
    SignedDecision byRemoved = Operators.sign(gone, "approval", id, r.fingerprint(), "approve", "x");
    new OperatorRegistry(operators).remove("gone");
    assertTrue(refusal(() -> stub(r).decideApproval(approval(byRemoved, r))).startsWith(prefix + "operator gone is not registered (removed at "));

    assertEquals(ExecutionState.AWAITING_APPROVAL, harness.gateway.find(id).orElseThrow().state());
    assertEquals(0, dispatch.dispatched.size(), "nothing was dispatched");
    List<JournalEntry> journalled = awaitValue(() -> refusals(id), l -> l.size() == 5, Duration.ofSeconds(10));
    assertEquals("(none)", journalled.get(0).detail().get("statement"));
    assertEquals("operator:mallory", journalled.get(0).detail().get("presented_by"));
    assertEquals(otherFingerprint.statement(), journalled.get(1).detail().get("statement"));
    assertEquals("ops", journalled.get(1).detail().get("presented_by"));

    ExecutionRecord approved = stub(r).decideApproval(Operators.approval(ops, r, true, "change ticket 7"));
    assertTrue(approved.state() != ExecutionState.AWAITING_APPROVAL);
    ExecutionRecord done = await(id, ExecutionState.COMPLETED);
    assertEquals(new ExecutionRecord.Authorization("authorized", "approved", done.authorization().at(), "ops", "change ticket 7", null),
        done.authorization());
    assertEquals(1, dispatch.dispatched.size());
    assertEquals(5, done.transitions().stream().filter(t -> t.state().equals("decision_refused")).count());
  }

  @Test
  void aRedispatchStatementDecidesOnceAndItsReplayIsRefused() throws Exception {
    dispatch.then(ScriptedDispatch.unknown()).then(ScriptedDispatch.unknown());
    CallResult first = call("irreversible_tool", 10_000);
    ExecutionRecord review = await(first.record().executionId(), ExecutionState.NEEDS_REVIEW);
    String id = review.executionId();
    Resolution redispatch = Operators.resolution(ops, review, Resolution.Decision.REDISPATCH, "provably did not run", Instant.now());
    stub(review).resolve(redispatch);
    ExecutionRecord again = await(id, ExecutionState.NEEDS_REVIEW);
    assertEquals(2, dispatch.dispatched.size());
    assertTrue(again.transitions().stream().filter(t -> t.state().equals("needs_review")).count() >= 2);

    String nonce = DecisionStatement.parse(redispatch.statement()).nonce();
    assertEquals("DecisionRefused: execution " + id + ": decision refused: replayed: this statement (nonce " + nonce
        + ") was already applied to execution " + id, refusal(() -> stub(again).resolve(redispatch)));
    assertEquals(2, dispatch.dispatched.size(), "the replayed redispatch sent nothing");

    ExecutionRecord failed = stub(again).resolve(Operators.resolution(ops, again, Resolution.Decision.FAILED, "not in the log", Instant.now()));
    assertEquals(ExecutionState.FAILED, failed.state());
    assertEquals(new ExecutionRecord.Review("failed", "not in the log", "ops", failed.review().at()), failed.review());
    assertEquals(2, dispatch.dispatched.size());
  }

  @Test
  void aResolutionForAnotherExecutionOrAnUnsignedOneIsRefusedAndTheReviewStays() throws Exception {
    dispatch.then(ScriptedDispatch.unknown());
    CallResult first = call("irreversible_tool", 10_000);
    ExecutionRecord review = await(first.record().executionId(), ExecutionState.NEEDS_REVIEW);
    String id = review.executionId();
    assertTrue(refusal(() -> stub(review).resolve(new Resolution(Resolution.Decision.REDISPATCH, "trust me", "operator:mallory")))
        .startsWith("DecisionRefused: execution " + id + ": decision refused: unsigned: no signed statement was presented"));
    SignedDecision elsewhere = Operators.sign(ops, "resolution", "act_other", review.fingerprint(), "redispatch", "x");
    assertEquals("DecisionRefused: execution " + id + ": decision refused: the statement is bound to act_other, not " + id,
        refusal(() -> stub(review).resolve(new Resolution(null, null, null, elsewhere.statement(), elsewhere.signature()))));
    assertEquals(ExecutionState.NEEDS_REVIEW, harness.gateway.find(id).orElseThrow().state());
    assertEquals(1, dispatch.dispatched.size(), "nothing was sent again");
    stub(review).resolve(Operators.resolution(ops, review, Resolution.Decision.COMPLETED, "seen", Instant.now()));
  }

  @Test
  void aForgedSessionSignalChangesNothingAndTheOperatorsForwardedStatementReleasesTheExecution() throws Exception {
    CallResult first = call("session_tool", 500);
    ExecutionRecord waiting = await(first.record().executionId(), ExecutionState.AWAITING_SESSION_AUTHORIZATION);
    String id = waiting.executionId();
    String session = waiting.sessionId();
    stub(waiting).sessionAuthorization(new SessionAuthorization(session, true, "operator:mallory", "trust me"));
    OperatorKey impostor = OperatorKey.generate("ops"); // claims a registered name with its own key
    SignedDecision forged = Operators.signSession(impostor, session, waiting.actor(), "authorize", "x");
    stub(waiting).sessionAuthorization(new SessionAuthorization(session, true, "ops", "x", forged.statement(), forged.signature()));
    List<JournalEntry> journalled = awaitValue(() -> refusals(id), l -> l.size() == 2, Duration.ofSeconds(10));
    assertTrue(String.valueOf(journalled.get(0).detail().get("refusal")).startsWith("unsigned: no signed statement was presented"));
    assertEquals("signed with key " + impostor.keyId() + ", which is not ops's registered key " + ops.keyId(),
        journalled.get(1).detail().get("refusal"));
    assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, harness.gateway.find(id).orElseThrow().state());
    assertEquals(0, dispatch.dispatched.size());

    // A genuine statement about the same session id for another actor is refused: a decision names its actor.
    SignedDecision otherActor = Operators.signSession(ops, session, waiting.actor() + ":prod", "authorize", "known agent");
    stub(waiting).sessionAuthorization(new SessionAuthorization(session, true, "ops", "x", otherActor.statement(), otherActor.signature()));
    List<JournalEntry> third = awaitValue(() -> refusals(id), l -> l.size() == 3, Duration.ofSeconds(10));
    assertEquals("the statement is for actor " + waiting.actor() + ":prod, not " + waiting.actor()
        + ": a decision on one actor's session never applies to another's", third.get(2).detail().get("refusal"));
    assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, harness.gateway.find(id).orElseThrow().state());
    assertEquals(0, dispatch.dispatched.size());

    SignedDecision real = Operators.signSession(ops, session, waiting.actor(), "authorize", "known agent");
    stub(waiting).sessionAuthorization(new SessionAuthorization(session, true, "ops", "known agent", real.statement(), real.signature()));
    ExecutionRecord done = await(id, ExecutionState.COMPLETED);
    assertEquals("session_authorized", done.authorization().rule());
    assertEquals("ops", done.authorization().by(), "released by the operator, not by policy");
    assertEquals("known agent", done.authorization().reason());
    assertEquals(1, dispatch.dispatched.size());
  }
}
