package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.journal.JournalReader;
import io.onceport.activity.journal.Journals;
import io.onceport.activity.vault.VaultLock;
import io.onceport.app.demo.DemoTarget;
import io.onceport.frontend.temporal.ExecutionLocation;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.testing.Records;
import io.onceport.testing.Resets;
import io.onceport.testing.Replayer;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import io.onceport.workflow.execution.ToolExecutionWorkflowImpl;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.shared.codec.Payloads;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code temporal workflow reset}, run with the Temporal CLI as any namespace operator could (no
 * payload key, no operator key), of executions of every replay class, to every workflow task of
 * the run — before the send and after it. The demo target counts every request it receives,
 * repeated keys included: it receives a send only as often as the class allows (irreversible and
 * status query: once; a same-key re-send for idempotency-key and read-only executions, at most the
 * policy's 4 sends in all) and acts at most once. The journal holds one {@code dispatched} entry
 * per request the target received. One dev server for the class (the embedded test server has no
 * reset).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ResetOnTemporalServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A status-query tool whose status answers prove something after 2 s, and which gives up on an answer after 2 s. */
  private static final String QUICK = """
      tool: create_release_quick
      description: create_release with short timeouts, for the mid-status-query reset
      input_schema:
        type: object
        required: [service, version]
        properties:
          service: {type: string}
          version: {type: string}
          region:  {type: string, default: us-east-1}
        additionalProperties: false
      channel: http
      http:
        method: POST
        url: http://127.0.0.1:8766/v1/releases
        body: {service: "{{service}}", version: "{{version}}", region: "{{region}}"}
        idempotency_header: Idempotency-Key
        timeout: PT2S
      replay:
        class: status_query
        attach_window: PT1H
        status:
          method: GET
          url: http://127.0.0.1:8766/v1/releases/by-key/{{execution_id}}
          completed_when: [200]
          not_executed_when: [404]
          settle: PT2S
      """;

  /** The reads of list_releases: GETs of the collection, which carry no key (only the read test makes them). */
  private static final String READS = "/v1/releases#GET";

  /** An irreversible notification sent with the vault's credential: the ladder checks the vault before every send. */
  private static final String CREDENTIALED = """
      tool: notify_with_credential
      description: send_notification with a credential from the vault
      input_schema:
        type: object
        required: [message]
        properties:
          message: {type: string}
        additionalProperties: false
      channel: http
      http:
        method: POST
        url: http://127.0.0.1:8766/v1/notifications
        idempotency_header: Idempotency-Key
        credential: deploy
        timeout: PT30S
      replay:
        class: irreversible
        attach_window: PT24H
      """;

  private static Path binary;
  private static GatewayHarness gateway;
  private static McpClient client;
  private static Replayer replayer;

  @BeforeAll
  static void start() throws Exception {
    binary = TemporalCli.binaryOrSkip();
    gateway = GatewayHarness.onTemporalCliWithVault(binary, Duration.ofSeconds(20),
        Map.of("create_release_quick.yaml", QUICK, "notify_with_credential.yaml", CREDENTIALED));
    client = gateway.client();
    replayer = new Replayer(Payloads.dataConverter(true, gateway.data));
  }

  @AfterAll
  static void stop() {
    if (replayer != null) {
      replayer.close();
    }
    if (gateway != null) {
      gateway.close();
    }
  }

  /**
   * One reset and what the target had received and done under the key after the reset run settled.
   *
   * @param beforeSend the reset point is before the first send's result: the new run asks for the
   *     send again (its workflow schedules it, or the server dispatches the still-pending activity
   *     again) and only the journal's ledger stands between it and the target
   */
  record Reset(long eventId, boolean beforeSend, ExecutionRecord record, long received, long acted) {}

  @Test
  void aCompletedIrreversibleCallResetToEveryWorkflowTaskIsNeverSentAgain() throws Exception {
    String id = call("send_notification", "{\"message\":\"reset irreversible\"}", null);
    List<Reset> resets = resetToEveryWorkflowTask("irreversible, completed", id, "/v1/notifications");
    for (Reset r : resets) {
      assertEquals(1, r.received(), "the target received it once: " + r);
      assertEquals(1, r.acted(), r.toString());
      if (r.beforeSend()) {
        assertEquals(ExecutionState.NEEDS_REVIEW, r.record().state(), r.record().message());
        assertEquals(ExecutionRecord.Send.SENT_BEFORE, r.record().sends().get(0).observed());
      } else {
        assertEquals(ExecutionState.COMPLETED, r.record().state(), r.record().message());
      }
    }
    assertJournalMatchesTarget(id, "/v1/notifications");
    assertInvestigateAndVerifyTellTheResets(id, false);
  }

  @Test
  void aCompletedStatusQueryCallResetBeforeItsSendIsSettledByItsStatusNotASecondSend() throws Exception {
    String id = call("create_release", "{\"service\":\"reset-sq\",\"version\":\"1\"}", null);
    for (Reset r : resetToEveryWorkflowTask("status_query, completed", id, "/v1/releases")) {
      assertEquals(1, r.received(), r.toString());
      assertEquals(ExecutionState.COMPLETED, r.record().state(), r.record().message());
      if (r.beforeSend()) {
        assertEquals("completed", r.record().statusChecks().get(0).verdict(), r.record().toString());
      }
    }
    assertJournalMatchesTarget(id, "/v1/releases");
  }

  @Test
  void aCompletedIdempotencyKeyCallIsResentOnlyUnderItsKeyAndActsOnce() throws Exception {
    String id = call("create_release_keyed", "{\"service\":\"reset-key\",\"version\":\"1\"}", null);
    for (Reset r : resetToEveryWorkflowTask("idempotency_key, completed", id, "/v1/releases")) {
      assertTrue(r.received() <= 4, "at most the policy's 4 sends in all, whatever the resets: " + r);
      assertEquals(1, r.acted(), "the target deduplicated every re-send by its key: " + r);
    }
    assertJournalMatchesTarget(id, "/v1/releases");
    assertInvestigateAndVerifyTellTheResets(id, true);
  }

  @Test
  void aReadOnlyExecutionIsResentUnderItsKeyAtMostTheBoundedNumberOfTimes() throws Exception {
    // An intent key makes a read an execution (a key-less read takes the direct path).
    String id = call("list_releases", "{}", "reset-read-1");
    for (Reset r : resetToEveryWorkflowTask("read_only, completed", id, READS)) {
      assertTrue(r.received() <= 4, r.toString());
      assertTrue(r.record().isSettled(), r.record().message());
    }
    assertJournalMatchesTarget(id, READS);
  }

  @Test
  void anIrreversibleCallWaitingInNeedsReviewIsNeverSentAgainByAReset() throws Exception {
    gateway.armFault("drop-after-accept", 1);
    String id = call("send_notification", "{\"message\":\"reset needs review\"}", null);
    ExecutionRecord waiting = gateway.awaitRecord(id, rec -> rec.state() == ExecutionState.NEEDS_REVIEW, Duration.ofSeconds(30));
    assertEquals(1, waiting.sends().size());
    for (Reset r : resetToEveryWorkflowTask("irreversible, needs_review", id, "/v1/notifications")) {
      assertEquals(1, r.received(), r.toString());
      assertEquals(ExecutionState.NEEDS_REVIEW, r.record().state(), r.record().message());
    }
    assertJournalMatchesTarget(id, "/v1/notifications");
  }

  @Test
  void aStatusQueryCallResetWhileItsStatusIsBeingQueriedActsOnce() throws Exception {
    // The target takes 5 s; the gateway gives up after 2 s and polls the status endpoint (202 "processing") until it acted.
    gateway.armFault("delay=5000", 1);
    String id = call("create_release_quick", "{\"service\":\"reset-mid\",\"version\":\"1\"}", null);
    ExecutionRecord done = gateway.awaitRecord(id, rec -> rec.state() == ExecutionState.COMPLETED, Duration.ofSeconds(60));
    assertTrue(done.statusChecks().size() >= 2, "settled through several status checks: " + done.statusChecks());
    for (Reset r : resetToEveryWorkflowTask("status_query, mid-status-query", id, "/v1/releases")) {
      assertEquals(1, r.received(), r.toString());
      assertEquals(1, r.acted(), r.toString());
      assertEquals(ExecutionState.COMPLETED, r.record().state(), r.record().message());
    }
    assertJournalMatchesTarget(id, "/v1/releases");
  }

  @Test
  void aLadderThatRefusesAResetRunKeepsTheSendOnTheRecordAndNeverSaysNothingWasDispatched() throws Exception {
    String id = call("notify_with_credential", "{\"message\":\"reset refused\"}", null);
    gateway.awaitRecord(id, rec -> rec.state() == ExecutionState.COMPLETED, Duration.ofSeconds(30));
    gateway.lockVault(); // the decision verified again after the reset now refuses (as an expired statement would)
    try {
      boolean refusedBeforeTheSend = false;
      for (Reset r : resetToEveryWorkflowTask("irreversible, ladder refuses the reset run", id, "/v1/notifications")) {
        assertEquals(1, r.received(), r.toString());
        if (r.beforeSend() && r.record().authorization() != null && "rejected".equals(r.record().authorization().decision())) {
          refusedBeforeTheSend = true;
          assertEquals("vault_locked", r.record().authorization().rule());
          assertEquals(ExecutionState.NEEDS_REVIEW, r.record().state(), r.record().message());
          assertEquals(Outcome.UNKNOWN, r.record().outcome());
          assertEquals(201, r.record().sends().get(0).status(), "the journal's answer to the earlier send: " + r.record().sends());
        }
      }
      assertTrue(refusedBeforeTheSend, "a reset to before the ladder's decision verified it again");
    } finally {
      VaultLock.unlock(gateway.data);
    }
    assertJournalMatchesTarget(id, "/v1/notifications");
    String investigated = onceport("investigate", id, "--data", gateway.data.toString());
    assertFalse(investigated.contains("never dispatched"), investigated);
  }

  /** Calls a tool and returns the execution id (with an intent key when {@code intentKey} is set). */
  private static String call(String tool, String arguments, String intentKey) throws Exception {
    String body = McpClient.callBody(1, tool, JSON.readTree(arguments));
    var response = intentKey == null ? client.post(body) : client.post(body, "Idempotency-Key", intentKey);
    JsonNode answer = JSON.readTree(response.body());
    String id = answer.at("/result/structuredContent/execution_id").asText();
    assertFalse(id.isEmpty(), answer.toString());
    return id;
  }

  /**
   * Resets the execution's first run to each of its workflow tasks in turn (each reset goes back to
   * the same base run; a reset of it ends the run the previous reset made), waits for the new run
   * to settle, and reads the target's ledger under the execution's key.
   */
  private static List<Reset> resetToEveryWorkflowTask(String what, String id, String path) throws Exception {
    ExecutionRecord first = gateway.awaitRecord(id, ExecutionRecord::isSettled, Duration.ofSeconds(60));
    String workflowId = first.workflowId();
    String baseRun = first.runId();
    // The base run's history is complete only once nothing more happens in it: closed, or settled and idle.
    awaitQuiet(workflowId, baseRun);
    long sendResult = Resets.firstActivityResult(gateway.connection, workflowId, baseRun);
    List<Reset> out = new ArrayList<>();
    for (long eventId : Resets.workflowTasks(gateway.connection, workflowId, baseRun)) {
      Resets.reset(binary, gateway.temporalTarget(), workflowId, baseRun, eventId);
      String newRun = gateway.directory.latestRun(workflowId).runId();
      // Settled and past its first step after the reset point: a run that replays to a settled state
      // (needs_review) answers "settled" from history before that step has read the journal.
      ExecutionRecord settled = awaitRun(workflowId, newRun, rec -> rec.isSettled() && rec.reset() != null);
      awaitQuiet(workflowId, newRun);
      Reset r = new Reset(eventId, eventId < sendResult, settled, received(path, id), acted(path, id));
      assertResetOnTheRecord(r, baseRun, newRun);
      // The reset run's history replays on the current code (its reset-point marker included).
      replayer.replay(gateway.connection.client().fetchHistory(workflowId, newRun), ToolExecutionWorkflowImpl.class);
      System.out.printf("reset %-34s to event %3d (%s the send's result): %s; target received %d, acted %d%n", what, eventId,
          r.beforeSend() ? "before" : "after", settled.view(), r.received(), r.acted());
      out.add(r);
    }
    assertFalse(out.isEmpty());
    assertTrue(out.stream().anyMatch(Reset::beforeSend), "at least one reset point before the send");
    return out;
  }

  /**
   * The reset run's record tells the reset and the sends the journal proves (each by the run that
   * made it), and never says nothing was dispatched; a reset before the send's result has every
   * proven send on the record's sends, as sent before.
   */
  private static void assertResetOnTheRecord(Reset r, String baseRun, String newRun) {
    ExecutionRecord.Reset reset = r.record().reset();
    assertNotNull(reset, "the reset run read the journal: " + r.record().transitions());
    assertEquals(newRun, reset.runId());
    assertEquals(baseRun, reset.originalRunId(), "a reset keeps the original run id");
    assertEquals(baseRun, reset.sends().get(0).runId(), "the first send was the base run's: " + reset.sends());
    assertTrue(r.record().transitions().stream().anyMatch(t -> t.state().equals("reset") && t.detail().contains(baseRun)),
        r.record().transitions().toString());
    assertFalse(r.record().message().contains("nothing was dispatched"), r.record().message());
    if (r.beforeSend()) {
      ExecutionRecord.Send first = r.record().sends().get(0);
      assertEquals(ExecutionRecord.Send.SENT_BEFORE, first.observed(), r.record().sends().toString());
      assertTrue(first.detail().contains("by run " + baseRun), first.detail());
    }
  }

  /** {@code onceport investigate} and {@code onceport audit verify} on the data dir tell the resets and each run's sends. */
  private static void assertInvestigateAndVerifyTellTheResets(String id, boolean sentAgain) {
    String investigated = onceport("investigate", id, "--data", gateway.data.toString());
    assertTrue(investigated.contains("Was an execution reset"), investigated);
    assertTrue(investigated.contains("yes: reset "), investigated);
    assertTrue(investigated.contains("(reset 1)"), investigated);
    String verdict = investigated.lines().filter(l -> l.startsWith("verdict: ")).findFirst().orElseThrow();
    if (sentAgain) {
      assertTrue(verdict.contains("by reset runs, under the same key"), verdict);
    } else {
      assertTrue(verdict.startsWith("verdict: one execution, one dispatch (reset "), verdict);
      assertTrue(verdict.contains("the send was not repeated"), verdict);
    }
    String verified = onceport("audit", "verify", "--data", gateway.data.toString());
    assertTrue(verified.lines().anyMatch(l -> l.startsWith("reset: " + id + ": reset ")), verified);
    assertTrue(verified.lines().anyMatch(l -> l.startsWith("sends: ")), verified);
  }

  private static String onceport(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = OnceportCommand.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    assertEquals(0, status, "onceport " + String.join(" ", args) + ": " + err);
    return out.toString();
  }

  private static ExecutionRecord awaitRun(String workflowId, String runId, Predicate<ExecutionRecord> condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    ExecutionRecord last = null;
    RuntimeException failure = null;
    while (System.nanoTime() < deadline) {
      try {
        last = gateway.directory.record(new ExecutionLocation(null, workflowId, runId));
        if (runId.equals(last.runId()) && condition.test(last)) {
          return last;
        }
      } catch (RuntimeException e) {
        failure = e;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("run " + runId + " did not settle; last: " + (last == null ? failure : last.view() + " — " + last.message()));
  }

  /** Waits until the run has no pending activity or workflow task (what it does next waits for a person or a timer). */
  private static void awaitQuiet(String workflowId, String runId) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      var described = gateway.connection.stubs().blockingStub().describeWorkflowExecution(
          io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
              .setExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder().setWorkflowId(workflowId).setRunId(runId))
              .build());
      boolean closed = described.getWorkflowExecutionInfo().getStatus()
          != io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
      if (closed || (described.getPendingActivitiesCount() == 0 && !described.hasPendingWorkflowTask())) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("run " + runId + " did not become quiet");
  }

  private static long received(String path, String key) {
    return ledger(path, key).size();
  }

  private static long acted(String path, String key) {
    return ledger(path, key).stream().filter(DemoTarget.LedgerEntry::acted).count();
  }

  /** Requests to {@code path} under the execution's key; for the collection's GET (list_releases sends no key), every one. */
  private static List<DemoTarget.LedgerEntry> ledger(String path, String key) {
    return gateway.target.ledger().stream()
        .filter(e -> e.path().equals(path.replace("#GET", "")) && (path.equals(READS) ? e.method().equals("GET") : key.equals(e.key())))
        .toList();
  }

  /** The journal holds one dispatched entry per request the target received, across every run. */
  private static void assertJournalMatchesTarget(String id, String path) throws Exception {
    var records = JournalReader.read(gateway.data, Journals.ACTIVITY).records();
    long dispatched = records.stream().filter(r -> id.equals(r.executionId()) && "dispatched".equals(r.transition())).count();
    assertEquals(received(path, id), dispatched, "dispatched entries of " + id + " vs requests the target received");
  }
}
