package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthorities;
import io.onceport.activity.operator.DecisionStatement;
import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.activity.session.SessionJournalActivitiesImpl;
import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.KdfParameters;
import io.onceport.activity.vault.PassphraseSource;
import io.onceport.activity.vault.Vault;
import io.onceport.activity.vault.VaultLock;
import io.onceport.activity.vault.VaultService;
import io.onceport.app.Main;
import io.onceport.frontend.auth.SessionIds;
import io.onceport.frontend.auth.SessionStart;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.app.runtime.AuthorizationRechecks;
import io.onceport.app.cli.SessionDirectory;
import io.onceport.frontend.temporal.TemporalSessionRegistry;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.RecordingSessionJournal;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.session.SessionRecord;
import io.onceport.testing.Contracts;
import io.onceport.workflow.session.SessionWorkflowIds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every rung of the authorization ladder end to end on the embedded engine: the real
 * {@link AuthorizationActivitiesImpl} on a real vault, the operator session authority on the real
 * session workflow, and the operator's side through the {@code onceport} CLI.
 */
class AuthorizationLadderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PASS = "ladder test passphrase";
  private static final String BASE = "http://127.0.0.1:9";
  private static final ScriptedDispatch dispatch = new ScriptedDispatch();
  private static final RecordingJournal journal = new RecordingJournal();
  private static final RecordingSessionJournal sessionJournal = new RecordingSessionJournal();
  private static final CountingLadder ladder = new CountingLadder();
  private static Path dataDir;
  private static Path keyDir;
  private static OperatorKey ops;
  private static EngineHarness harness;
  private static int counter;

  /** The real ladder, counting decide() per execution; one tool gets a short approval window. */
  static final class CountingLadder implements AuthorizationActivities {
    volatile AuthorizationActivities real;
    final Map<String, AtomicInteger> decides = new ConcurrentHashMap<>();

    @Override
    public AuthorizationDecision decide(AuthorizationRequest request) {
      decides.computeIfAbsent(request.executionId(), k -> new AtomicInteger()).incrementAndGet();
      AuthorizationDecision d = real.decide(request);
      if (request.tool().equals("quick_approval_tool") && d.kind() == AuthorizationDecision.Kind.APPROVAL_REQUIRED) {
        return new AuthorizationDecision(d.kind(), d.rule(), d.reason(), d.by(), 2_000);
      }
      return d;
    }

    @Override
    public AuthorizationDecision recheck(AuthorizationRequest request) {
      return real.recheck(request);
    }

    int decides(String executionId) {
      AtomicInteger n = decides.get(executionId);
      return n == null ? 0 : n.get();
    }
  }

  static ToolContract tool(String name, String credential) {
    return new ToolContract(name, "test tool " + name, Contracts.RELEASE_SCHEMA, null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", BASE + "/v1/releases", null, Map.of(), "Idempotency-Key", credential, 5_000),
        null, new ReplaySpec(ReplayClass.IDEMPOTENCY_KEY, Duration.ofMinutes(5), null), List.of(), List.of());
  }

  @BeforeAll
  static void start() throws IOException {
    dataDir = Files.createTempDirectory("onceport-ladder");
    try (Vault v = Vault.create(dataDir, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, "ghp_not_a_real_token"), false);
      v.put(new Credential("deploy", Credential.Type.BEARER, null, null, "deploy_not_a_real_token"), true);
    }
    VaultService vault = VaultService.open(dataDir, PassphraseSource.fromEnvironment(Map.of(PassphraseSource.ENV, PASS)));
    // Operators are key pairs: the private keys in their own directory, the public keys where the worker reads them.
    keyDir = Files.createTempDirectory("onceport-ladder-keys");
    OperatorRegistry operators = new OperatorRegistry(dataDir);
    for (String name : List.of("alice", "bob", "carol", "dave", "erin", "ops")) {
      OperatorKey key = OperatorKey.generate(name);
      key.write(keyDir.resolve(name + ".key"), false);
      operators.add(key);
      if (name.equals("ops")) {
        ops = key;
      }
    }
    harness = new EngineHarness(
        new SimplePreparation(
            tool("plain_tool", "gh"), tool("approval_tool", "deploy"), tool("quick_approval_tool", "deploy"),
            tool("missing_credential_tool", "nope")),
        client -> {
          ladder.real = new AuthorizationActivitiesImpl(
              vault, SessionAuthorities.forPolicy("operator", client, EngineHarness.TASK_QUEUE), Duration.ofMinutes(10));
          return new Object[] {dispatch, journal, ladder, new SessionJournalActivitiesImpl(sessionJournal),
              new OperatorActivitiesImpl(new OperatorRegistry(dataDir))};
        });
  }

  @AfterAll
  static void stop() throws IOException {
    harness.close();
    for (Path dir : List.of(dataDir, keyDir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @BeforeEach
  void reset() {
    dispatch.reset();
    counter++;
  }

  @AfterEach
  void unlock() {
    VaultLock.unlock(dataDir);
  }

  private static JsonNode args() throws IOException {
    return JSON.readTree("{\"service\":\"catalog\",\"version\":\"v" + counter + "\"}");
  }

  /** A call of an already authorized session unless the test says otherwise. */
  private static ToolCall call(String tool, JsonNode args, String session, String jsonRpcId, long waitMillis) {
    return new ToolCall("agent:deployer", tool, args, null, null, session, jsonRpcId, "2025-06-18", "test/1", "127.0.0.1", waitMillis);
  }

  private static String authorizedSession() {
    String session = "mcp:authorized-" + counter;
    new TemporalSessionRegistry(harness.connection.client(), EngineHarness.TASK_QUEUE, SessionWorkflowIds.unkeyed())
        .started(new SessionStart("agent:deployer", session, "test", "1", "2025-06-18", "127.0.0.1", Instant.now()));
    var signed = ops.sign(DecisionStatement.issueSession(session, "agent:deployer", "authorize", "test", ops, Instant.now(),
        Duration.ofMinutes(10)));
    new SessionDirectory(harness.connection).stub(session).authorize(
        new io.onceport.workflow.session.SessionDecision("ops", "test", signed.statement(), signed.signature()));
    return session;
  }

  private static ExecutionRecord awaitRecord(String executionId, Predicate<ExecutionRecord> done, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    ExecutionRecord r = harness.gateway.find(executionId).orElseThrow();
    while (!done.test(r) && System.nanoTime() < end) {
      Thread.sleep(100);
      r = harness.gateway.find(executionId).orElseThrow();
    }
    assertTrue(done.test(r), "timed out; record is " + r.view() + ": " + r.message());
    return r;
  }

  record Run(int exit, String out, String err) {}

  private static synchronized Run cli(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      boolean decides = List.of("approve", "deny", "sessions", "executions").contains(args[0]) && !List.of("list", "show").contains(args[1]);
      Stream<String> extra = decides ? Stream.of("--temporal", harness.engine.target(), "--key-dir", keyDir.toString())
          : Stream.of("--temporal", harness.engine.target());
      String[] all = Stream.concat(Stream.of(args), extra).toArray(String[]::new);
      int exit = Main.run(all);
      return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  // ---- rung 1 ----

  @Test
  void rung1ALockedVaultRejectsTheCallAndNothingIsDispatched() throws Exception {
    VaultLock.lock(dataDir, "cli:ops", Instant.parse("2026-11-30T06:00:00Z"));
    CallResult r = harness.gateway.call(call("plain_tool", args(), authorizedSession(), "1", 10_000));
    assertEquals(ExecutionState.REJECTED, r.record().state());
    assertEquals("vault_locked", r.record().authorization().rule());
    assertEquals("vault is locked (locked at 2026-11-30T06:00:00Z by cli:ops)", r.record().authorization().reason());
    assertEquals(Outcome.NOT_EXECUTED, r.record().outcome());
    assertEquals(0, dispatch.dispatched.size());
  }

  // ---- rung 2 ----

  @Test
  void rung2ACredentialMissingFromTheVaultRejectsTheCall() throws Exception {
    CallResult r = harness.gateway.call(call("missing_credential_tool", args(), authorizedSession(), "1", 10_000));
    assertEquals(ExecutionState.REJECTED, r.record().state());
    assertEquals("credential_unresolvable", r.record().authorization().rule());
    assertEquals("credential 'nope' is not in the vault", r.record().authorization().reason());
    assertEquals(0, dispatch.dispatched.size());
  }

  // ---- rung 3 ----

  @Test
  void rung3ApproveEachUseWaitsARetryAttachesWithoutASecondPromptAndApprovalDispatchesOnce() throws Exception {
    JsonNode args = args();
    CallResult first = harness.gateway.call(call("approval_tool", args, "mcp:any", "1", 1_000));
    String id = first.record().executionId();
    assertEquals(ExecutionState.AWAITING_APPROVAL, first.record().state());
    assertEquals("approve_each_use", first.record().authorization().rule());
    assertNotNull(first.record().authorization().expiresAt());
    Instant expires = Instant.parse(first.record().authorization().expiresAt());
    Instant at = Instant.parse(first.record().authorization().at());
    assertEquals(Duration.ofMinutes(10), Duration.between(at, expires));

    CallResult retry = harness.gateway.call(call("approval_tool", args, "mcp:any", "2", 500));
    assertEquals(id, retry.record().executionId());
    assertTrue(retry.attached());
    assertEquals(ExecutionState.AWAITING_APPROVAL, retry.record().state());
    assertEquals(1, ladder.decides(id), "a retry must not ask the ladder (and so the operator) again");

    Run run = cli("approve", id, "--yes", "--by", "alice");
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.out().contains("fingerprint  " + first.record().fingerprint()), run.out());
    assertTrue(run.out().contains("retries      1 attached"), run.out());
    assertTrue(run.out().contains("expires      " + first.record().authorization().expiresAt()), run.out());

    ExecutionRecord done = awaitRecord(id, r -> r.state() == ExecutionState.COMPLETED, Duration.ofSeconds(10));
    assertEquals("approved", done.authorization().rule());
    assertEquals("alice", done.authorization().by(), "the operator name exactly as registered");
    assertEquals(1, dispatch.dispatched.size());
    assertEquals(1, ladder.decides(id));
  }

  @Test
  void rung3DenyRejectsAndARetryWithinTheWindowReturnsTheRejectionWithoutDispatching() throws Exception {
    JsonNode args = args();
    CallResult first = harness.gateway.call(call("approval_tool", args, "mcp:any", "1", 1_000));
    String id = first.record().executionId();
    Run run = cli("deny", id, "--reason", "not during the freeze", "--yes", "--by", "bob");
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.out().contains(id + ": rejected"), run.out());

    CallResult retry = harness.gateway.call(call("approval_tool", args, "mcp:any", "2", 1_000));
    assertEquals(id, retry.record().executionId());
    assertEquals(ExecutionState.REJECTED, retry.record().state());
    assertEquals("denied", retry.record().authorization().rule());
    assertEquals("bob", retry.record().authorization().by());
    assertEquals("not during the freeze", retry.record().authorization().reason());
    assertEquals("rejected (denied): not during the freeze; nothing was dispatched", retry.record().message());
    assertEquals(0, dispatch.dispatched.size());
    assertEquals(1, ladder.decides(id));
  }

  @Test
  void rung3WithoutAnApprovalInTimeTheExecutionIsRejected() throws Exception {
    CallResult first = harness.gateway.call(call("quick_approval_tool", args(), "mcp:any", "1", 8_000));
    // The attach answers at once with the wait for an operator, not after the 8 s the caller allowed.
    assertEquals(ExecutionState.AWAITING_APPROVAL, first.record().state());
    ExecutionRecord r = awaitRecord(first.record().executionId(), x -> x.state() == ExecutionState.REJECTED, Duration.ofSeconds(8));
    assertEquals("approval_timeout", r.authorization().rule());
    assertEquals("no operator approved within PT2S", r.authorization().reason());
    assertEquals(0, dispatch.dispatched.size());
  }

  @Test
  void rung3LockingTheVaultRejectsAPendingApprovalOnTheRecheckSignal() throws Exception {
    CallResult first = harness.gateway.call(call("approval_tool", args(), "mcp:any", "1", 500));
    assertEquals(ExecutionState.AWAITING_APPROVAL, first.record().state());
    VaultLock.lock(dataDir, "cli:ops", Instant.parse("2026-11-30T06:10:00Z"));
    assertTrue(AuthorizationRechecks.signalWaiting(harness.connection, "vault locked") >= 1);
    ExecutionRecord r = awaitRecord(first.record().executionId(), x -> x.state() == ExecutionState.REJECTED, Duration.ofSeconds(5));
    assertEquals("vault_locked", r.authorization().rule());
    assertEquals("vault is locked (locked at 2026-11-30T06:10:00Z by cli:ops)", r.authorization().reason());
    assertEquals(0, dispatch.dispatched.size());
  }

  @Test
  void aWaitingApprovalCostsNoWorkflowTasksUntilAnEventThatMattersArrives() throws Exception {
    CallResult first = harness.gateway.call(call("approval_tool", args(), "mcp:any", "1", 500));
    assertEquals(ExecutionState.AWAITING_APPROVAL, first.record().state());
    String workflowId = first.record().workflowId();
    String runId = first.record().runId();
    int before = harness.connection.client().fetchHistory(workflowId, runId).getEvents().size();
    // The earlier workflow re-checked the gate every 10 s: a timer, a local activity and a task each time.
    Thread.sleep(12_000); // a negative claim: nothing may happen over more than one old re-check period
    int after = harness.connection.client().fetchHistory(workflowId, runId).getEvents().size();
    assertEquals(before, after, "history grew while nothing happened");
    assertEquals(ExecutionState.AWAITING_APPROVAL, harness.gateway.find(first.record().executionId()).orElseThrow().state());
    // The vault-lock watcher's signal is the event that matters: it is re-checked then.
    VaultLock.lock(dataDir, "cli:ops", Instant.parse("2026-11-30T06:20:00Z"));
    assertTrue(AuthorizationRechecks.signalWaiting(harness.connection, "vault locked") >= 1);
    ExecutionRecord r = awaitRecord(first.record().executionId(), x -> x.state() == ExecutionState.REJECTED, Duration.ofSeconds(5));
    assertEquals("vault_locked", r.authorization().rule());
    assertEquals(0, dispatch.dispatched.size());
  }

  @Test
  void approvingWithoutAConsoleAndWithoutYesIsRefusedAndSendsNothing() throws Exception {
    CallResult first = harness.gateway.call(call("approval_tool", args(), "mcp:any", "1", 500));
    String id = first.record().executionId();
    Run run = cli("approve", id, "--by", "alice");
    assertEquals(1, run.exit());
    assertEquals("onceport: no console to confirm on; re-run with --yes to decide without confirmation\n", run.err());
    assertEquals(ExecutionState.AWAITING_APPROVAL, harness.gateway.find(id).orElseThrow().state());
    harness.connection.client().newWorkflowStub(ToolExecutionWorkflow.class, first.record().workflowId())
        .cancel(new CancelRequest("test", "cleanup", "call-cleanup"));
  }

  @Test
  void approvingAnExecutionThatDoesNotAwaitApprovalIsRefused() throws Exception {
    CallResult r = harness.gateway.call(call("missing_credential_tool", args(), "mcp:any", "1", 10_000));
    Run run = cli("approve", r.record().executionId(), "--yes", "--by", "alice");
    assertEquals(1, run.exit());
    assertEquals("onceport: execution " + r.record().executionId() + " is rejected, not awaiting approval; nothing to approve\n", run.err());
  }

  // ---- rung 4 ----

  @Test
  void rung4ANewSessionWaitsUntilAnOperatorAuthorizesItThenDispatchesOnce() throws Exception {
    String session = SessionIds.forCall("agent:deployer", "fresh-" + counter, null, "test", "1");
    new TemporalSessionRegistry(harness.connection.client(), EngineHarness.TASK_QUEUE, SessionWorkflowIds.unkeyed())
        .started(new SessionStart("agent:deployer", session, "test", "1", "2025-06-18", "127.0.0.1", Instant.now()));
    JsonNode args = args();
    CallResult first = harness.gateway.call(call("plain_tool", args, session, "1", 1_000));
    String id = first.record().executionId();
    assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, first.record().state());
    assertEquals("session_authorization", first.record().authorization().rule());

    SessionRecord waiting = new SessionDirectory(harness.connection).find(session).orElseThrow();
    assertEquals(List.of(first.record().workflowId()), waiting.waiting());
    assertEquals("test/1", waiting.clientInfo());

    CallResult retry = harness.gateway.call(call("plain_tool", args, session, "2", 300));
    assertEquals(id, retry.record().executionId());
    assertEquals(1, ladder.decides(id), "a retry must not ask again");

    Run list = cli("sessions", "list");
    assertEquals(0, list.exit(), list.err());
    assertTrue(list.out().contains(session), list.out());
    Run run = cli("sessions", "authorize", session, "--yes", "--by", "carol");
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.out().contains(session + ": authorized by carol; 1 waiting execution(s) told"), run.out());

    ExecutionRecord done = awaitRecord(id, r -> r.state() == ExecutionState.COMPLETED, Duration.ofSeconds(10));
    assertEquals(1, dispatch.dispatched.size());
    assertEquals(2, ladder.decides(id), "once when accepted, once more when the session was authorized");

    // The next call of the same session passes rung 4 at once.
    JsonNode other = JSON.readTree("{\"service\":\"billing\",\"version\":\"v" + counter + "\"}");
    CallResult next = harness.gateway.call(call("plain_tool", other, session, "3", 10_000));
    assertTrue(!next.record().executionId().equals(id));
    assertEquals(ExecutionState.COMPLETED, next.record().state());
    assertEquals(1, ladder.decides(next.record().executionId()));
    assertEquals("allowed", next.record().authorization().rule());
    assertEquals(2, dispatch.dispatched.size());
    assertNotNull(done.authorizedAt());

    new TemporalSessionRegistry(harness.connection.client(), EngineHarness.TASK_QUEUE, SessionWorkflowIds.unkeyed())
        .ended("agent:deployer", session, "client deleted the session");
    long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (!sessionJournal.events(session).contains("ended") && System.nanoTime() < end) {
      Thread.sleep(100);
    }
    assertEquals(List.of("started", "execution_waiting", "authorized", "ended"), sessionJournal.events(session));
    assertTrue(!new io.onceport.activity.auth.OperatorSessionAuthority(harness.connection.client(), EngineHarness.TASK_QUEUE)
        .isAuthorized(session, "agent:deployer"), "an authorization ends with its session");
    assertEquals(4, sessionJournal.appends.stream().filter(a -> session.equals(a.entry().get("session")))
        .map(RecordingSessionJournal.Append::appendKey).distinct().count());
  }

  @Test
  void rung4ADeniedSessionRejectsItsWaitingExecution() throws Exception {
    String session = SessionIds.forCall("agent:deployer", null, "run-" + counter, null, null);
    CallResult first = harness.gateway.call(call("plain_tool", args(), session, "1", 1_000));
    assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, first.record().state());
    Run run = cli("sessions", "deny", session, "--reason", "unknown agent", "--yes", "--by", "dave");
    assertEquals(0, run.exit(), run.err());
    ExecutionRecord r = awaitRecord(first.record().executionId(), x -> x.state() == ExecutionState.REJECTED, Duration.ofSeconds(5));
    assertEquals("session_denied", r.authorization().rule());
    assertEquals("dave", r.authorization().by());
    assertEquals("unknown agent", r.authorization().reason());

    // A later call of the denied session registers after the decision and is rejected at once.
    JsonNode other = JSON.readTree("{\"service\":\"billing\",\"version\":\"v" + counter + "\"}");
    CallResult later = harness.gateway.call(call("plain_tool", other, session, "2", 5_000));
    // The attach answers as soon as the execution waits for an operator; the denial follows at once.
    ExecutionRecord laterRecord = awaitRecord(later.record().executionId(), x -> x.state() == ExecutionState.REJECTED, Duration.ofSeconds(5));
    assertEquals("session_denied", laterRecord.authorization().rule());
    assertEquals(0, dispatch.dispatched.size());
  }

  @Test
  void aSessionWhoseWaitingExecutionIsGoneIsStillAuthorizedAndStaysUsable() {
    String session = "mcp:gone-" + counter;
    new io.onceport.activity.auth.OperatorSessionAuthority(harness.connection.client(), EngineHarness.TASK_QUEUE)
        .awaitAuthorization(session, "agent:deployer", "onceport-fp-no-such-execution");
    Run run = cli("sessions", "authorize", session, "--yes", "--by", "erin");
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.out().contains(session + ": authorized by erin; 1 waiting execution(s) told"), run.out());
    Run show = cli("sessions", "show", session);
    assertEquals(0, show.exit(), show.err());
    assertTrue(show.out().contains("decision    authorized by erin"), show.out());
    assertTrue(new io.onceport.activity.auth.OperatorSessionAuthority(harness.connection.client(), EngineHarness.TASK_QUEUE)
        .isAuthorized(session, "agent:deployer"));
    assertTrue(!new io.onceport.activity.auth.OperatorSessionAuthority(harness.connection.client(), EngineHarness.TASK_QUEUE)
        .isAuthorized(session, "agent:someone-else"), "a session is authorized for its own actor only");
  }

  @Test
  void showingAnUnknownSessionSaysSo() {
    Run run = cli("sessions", "show", "mcp:nobody");
    assertEquals(1, run.exit());
    assertEquals("onceport: no session mcp:nobody in namespace default at " + harness.engine.target() + "\n", run.err());
  }

  // ---- rung 5 ----

  @Test
  void rung5AnAuthorizedSessionWithAPlainCredentialIsAllowed() throws Exception {
    CallResult r = harness.gateway.call(call("plain_tool", args(), authorizedSession(), "1", 10_000));
    assertEquals(ExecutionState.COMPLETED, r.record().state());
    assertEquals("allowed", r.record().authorization().rule());
    assertEquals(1, dispatch.dispatched.size());
    assertEquals(Optional.empty(), Optional.ofNullable(r.record().authorization().expiresAt()));
  }
}
