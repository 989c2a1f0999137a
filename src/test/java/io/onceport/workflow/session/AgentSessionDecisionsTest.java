package io.onceport.workflow.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.operator.DecisionStatement;
import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.activity.session.SessionJournalActivitiesImpl;
import io.onceport.testing.Operators;
import io.onceport.testing.RecordingSessionJournal;
import io.onceport.workflow.operator.SignedDecision;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session workflow acts only on signed, correctly bound, current, first-time statements of a
 * registered operator; every refusal fails the update with the reason, changes nothing and is
 * journalled with what was presented. Real registry and key files, the Temporal test server.
 */
@Timeout(120)
class AgentSessionDecisionsTest {
  private static final String SESSION = "mcp:decisions";
  @TempDir Path data;
  private final RecordingSessionJournal journal = new RecordingSessionJournal();
  private TestWorkflowEnvironment env;
  private AgentSessionWorkflow session;
  private OperatorKey carol;

  @BeforeEach
  void start() {
    carol = Operators.register(data, "carol");
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    Worker worker = env.newWorker("sessions");
    worker.registerWorkflowImplementationTypes(AgentSessionWorkflowImpl.class);
    worker.registerActivitiesImplementations(new SessionJournalActivitiesImpl(journal), new OperatorActivitiesImpl(new OperatorRegistry(data)));
    env.start();
    WorkflowClient client = env.getWorkflowClient();
    session = client.newWorkflowStub(AgentSessionWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId("onceport-session-test").setTaskQueue("sessions").build());
    BatchRequest batch = client.newSignalWithStartRequest();
    batch.add(session::run, new AgentSessionInput(SESSION, "alice"));
    batch.add(session::started, new SessionStarted(SESSION, "alice", "claude", "1.2", "2025-06-18", "127.0.0.1", Instant.now().toString()));
    client.signalWithStart(batch);
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private static String refusal(WorkflowUpdateException e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof ApplicationFailure app ? app.getType() + ": " + app.getOriginalMessage() : String.valueOf(t);
  }

  private String refused(SessionDecision decision, boolean authorize) {
    WorkflowUpdateException e = assertThrows(WorkflowUpdateException.class,
        () -> { if (authorize) session.authorize(decision); else session.deny(decision); });
    return refusal(e);
  }

  private Map<?, ?> lastRefusalDetail() {
    var last = journal.appends.stream().filter(a -> "decision_refused".equals(a.entry().get("event"))).reduce((a, b) -> b).orElseThrow();
    return (Map<?, ?>) last.entry().get("detail");
  }

  private static SessionDecision decision(OperatorKey key, String subject, String decision, Instant issued, Duration validity) {
    SignedDecision s = key.sign(DecisionStatement.issueSession(subject, "alice", decision, "why", key, issued, validity));
    return new SessionDecision(key.operator(), "why", s.statement(), s.signature());
  }

  @Test
  void aSignedAuthorizationAppliesAndRecordsTheOperatorExactlyAsRegistered() {
    SessionRecord r = session.authorize(Operators.session(carol, SESSION, "alice", "authorize", "known agent"));
    assertEquals(new SessionRecord.Authorization("authorized", "carol", r.authorization().at(), "known agent"), r.authorization());
    var authorized = journal.appends.stream().filter(a -> "authorized".equals(a.entry().get("event"))).findFirst().orElseThrow();
    assertEquals(Map.of("by", "carol", "reason", "known agent"), authorized.entry().get("detail"));
  }

  @Test
  void anUnsignedDecisionIsRefusedJournalledAndChangesNothing() {
    assertEquals("DecisionRefused: session " + SESSION + ": decision refused: unsigned: no signed statement was presented "
        + "(sign it with onceport sessions authorize, or onceport operator sign session)",
        refused(new SessionDecision("operator:mallory", "let me in"), true));
    assertNull(session.session().authorization());
    assertEquals(Map.of("decision", "authorize", "refusal", "unsigned: no signed statement was presented (sign it with onceport "
        + "sessions authorize, or onceport operator sign session)", "presented_by", "operator:mallory", "statement", "(none)"),
        lastRefusalDetail());
  }

  @Test
  void expiredWronglyBoundAndWrongDecisionStatementsAreRefused() {
    Instant now = Instant.now();
    SessionDecision expired = decision(carol, SESSION, "authorize", now.minus(Duration.ofMinutes(20)), Duration.ofMinutes(10));
    assertTrue(refused(expired, true).startsWith("DecisionRefused: session " + SESSION + ": decision refused: the statement expired at "));
    assertEquals(expired.statement(), lastRefusalDetail().get("statement"), "the journal keeps what was presented");
    assertEquals("carol", lastRefusalDetail().get("presented_by"));

    SessionDecision other = decision(carol, "mcp:other", "authorize", now, Duration.ofMinutes(10));
    assertEquals("DecisionRefused: session " + SESSION + ": decision refused: the statement is bound to mcp:other, not " + SESSION,
        refused(other, true));

    SessionDecision deny = Operators.session(carol, SESSION, "alice", "deny", "no");
    assertEquals("DecisionRefused: session " + SESSION + ": decision refused: the statement decides deny, which does not apply here "
        + "(expected authorize)", refused(deny, true));
    assertNull(session.session().authorization());
    assertEquals(3, journal.events(SESSION).stream().filter("decision_refused"::equals).count());
  }

  @Test
  void aStatementAlreadyAppliedIsRefusedWhenPresentedAgain() {
    SessionDecision authorize = Operators.session(carol, SESSION, "alice", "authorize", "ok");
    session.authorize(authorize);
    session.deny(Operators.session(carol, SESSION, "alice", "deny", "changed my mind"));
    String nonce = DecisionStatement.parse(authorize.statement()).nonce();
    assertEquals("DecisionRefused: session " + SESSION + ": decision refused: replayed: this statement (nonce " + nonce
        + ") was already applied to session " + SESSION, refused(authorize, true));
    assertEquals("denied", session.session().authorization().decision());
  }

  @Test
  void statementsOfARemovedOrRotatedKeyOrAnUnregisteredKeyAreRefused() throws Exception {
    SessionDecision beforeRotation = Operators.session(carol, SESSION, "alice", "authorize", "ok");
    new OperatorRegistry(data).rotate(OperatorKey.generate("carol"));
    assertTrue(refused(beforeRotation, true).startsWith("DecisionRefused: session " + SESSION + ": decision refused: signed with key "
        + carol.keyId() + " of carol, which was rotated at "));

    OperatorKey dave = Operators.register(data, "dave");
    SessionDecision byDave = Operators.session(dave, SESSION, "alice", "authorize", "ok");
    new OperatorRegistry(data).remove("dave");
    assertTrue(refused(byDave, true).startsWith("DecisionRefused: session " + SESSION + ": decision refused: operator dave is not registered (removed at "));

    OperatorKey impostor = OperatorKey.generate("erin");
    assertEquals("DecisionRefused: session " + SESSION + ": decision refused: operator erin is not registered",
        refused(Operators.session(impostor, SESSION, "alice", "authorize", "ok"), true));
    assertNull(session.session().authorization());
  }

  @Test
  void aStatementAboutTheSameSessionIdForAnotherActorIsRefused() {
    SignedDecision signed = carol.sign(DecisionStatement.issueSession(SESSION, "bob", "authorize", "ok", carol, Instant.now(),
        Duration.ofMinutes(10)));
    SessionDecision forBob = new SessionDecision("carol", "ok", signed.statement(), signed.signature());
    assertEquals("DecisionRefused: session " + SESSION + ": decision refused: the statement is for actor bob, not alice: a decision "
        + "on one actor's session never applies to another's", refused(forBob, true));
    assertNull(session.session().authorization());
  }

  @Test
  void anExecutionOfAnotherActorIsNotRegisteredAndNeverToldTheSessionsDecision() throws Exception {
    session.executionWaiting(new WaitingExecution("onceport-fp-mallory", "agent:mallory"));
    session.executionWaiting(new WaitingExecution("onceport-fp-alice", "alice"));
    io.onceport.testing.Conditions.await("both registrations are handled", Duration.ofSeconds(30),
        () -> journal.events(SESSION).contains("registration_refused") && session.session().waiting().contains("onceport-fp-alice"));
    SessionRecord r = session.session();
    assertEquals(java.util.List.of("onceport-fp-alice"), r.waiting(), "only the session's own actor's execution waits on it");
    assertEquals(java.util.List.of("onceport-fp-alice"), r.executions());
    var refusal = journal.appends.stream().filter(a -> "registration_refused".equals(a.entry().get("event"))).findFirst().orElseThrow();
    assertEquals(Map.of("execution_workflow", "onceport-fp-mallory", "actor", "agent:mallory",
        "refusal", "the execution's actor agent:mallory is not this session's actor alice"), refusal.entry().get("detail"));
    // Authorized afterwards: only alice's execution is told (the signal to a missing workflow is logged, not fatal).
    SessionRecord authorized = session.authorize(Operators.session(carol, SESSION, "alice", "authorize", "ok"));
    assertEquals(java.util.List.of(), authorized.waiting());
    assertEquals(java.util.List.of("onceport-fp-alice"), authorized.executions());
  }
}
