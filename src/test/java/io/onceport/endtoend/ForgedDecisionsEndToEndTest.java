package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.vault.Credential;
import io.onceport.testing.Contracts;
import io.onceport.testing.McpClient;
import io.onceport.testing.Operators;
import io.onceport.testing.Records;
import io.onceport.testing.ServedGateway;
import io.onceport.workflow.execution.ApprovalDecision;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Resolution;
import io.onceport.workflow.execution.SessionAuthorization;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.session.AgentSessionWorkflow;
import io.onceport.workflow.session.SessionDecision;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The attacks of issue 11, sent through a plain Temporal client — no payload key, no operator key —
 * at the whole gateway wired as {@code serve} wires it (embedded engine, a worker with a vault and
 * the operator session policy, the MCP front end, the demo target recording every request): (a) a
 * {@code resolve} with REDISPATCH of an irreversible execution in {@code needs_review}, (b) a
 * {@code decideApproval} of an execution waiting on an approve-each-use credential, (c) a session
 * authorization for a waiting agent session. Each is refused and nothing is dispatched. The same
 * forgeries from a client that holds the payload keys (but no operator key) are refused by the
 * workflows' verification and journalled with what was presented; the decisions signed by a
 * registered operator through the CLI then work.
 */
@Timeout(180)
class ForgedDecisionsEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TASK_QUEUE = "onceport-forged";
  private static final String PASS = "forged decisions passphrase";
  private static ServedGateway gateway;
  private static WorkflowClient plain;
  private static int version;

  @BeforeAll
  static void start() throws Exception {
    gateway = ServedGateway.newBuilder(TASK_QUEUE).contracts("send_notification.yaml", "create_release.yaml")
        .contract("deploy_approved.yaml", target -> Contracts.deployApprovedYaml(target.url()))
        .vault(PASS, v -> v.put(new Credential("deploy", Credential.Type.BEARER, null, null, "deploy_not_a_real_token"), true))
        .sessionPolicy("operator").agents("agent:deployer").journalWriter("forged").start();
    // The attacker: a plain Temporal client on the same frontend, default data converter, no keys at all.
    plain = WorkflowClient.newInstance(gateway.connection().stubs(), WorkflowClientOptions.newBuilder().setNamespace("default").build());
  }

  @AfterAll
  static void stop() throws Exception {
    if (gateway != null) {
      gateway.close();
    }
  }

  private static long acted(String path, String key) {
    return gateway.target().ledger().stream().filter(e -> e.path().equals(path) && key.equals(e.key())).count();
  }

  private static String executionId(JsonNode response) {
    String id = response.at("/result/structuredContent/execution_id").asText();
    assertTrue(id.startsWith("act_"), response.toString());
    return id;
  }

  private static ExecutionRecord await(String executionId, ExecutionState state) throws InterruptedException {
    return Records.await(gateway.directory(), executionId, r -> r.state() == state, Duration.ofSeconds(20));
  }

  private static String sessionIdOf(McpClient client) throws Exception {
    String payload = client.session().substring(0, client.session().indexOf('.'));
    JsonNode claims = JSON.readTree(java.util.Base64.getUrlDecoder().decode(payload));
    // The session names the token's credential generation ("g"): sessions end with the token.
    return io.onceport.frontend.auth.SessionIds.forCall("agent:deployer", claims.path("g").asText(null), claims.get("n").asText(),
        null, null, null);
  }

  /** Signs as carol through the CLI, as an operator would. */
  private static String cli(String... args) {
    Stream<String> yes = args[0].equals("executions") ? Stream.of() : Stream.of("--yes"); // resolve never asks
    return gateway.signed(Stream.concat(Stream.of(args), yes).toArray(String[]::new)).expect(0).out();
  }

  /** The activity journal's decision_refused entries of one execution, as the worker wrote them. */
  private static List<io.onceport.activity.journal.JournalReader.Record> journalledRefusals(String executionId) throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    List<io.onceport.activity.journal.JournalReader.Record> found = List.of();
    while (System.nanoTime() < end) {
      found = io.onceport.activity.journal.JournalReader.read(gateway.data(), io.onceport.activity.journal.Journals.ACTIVITY).records().stream()
          .filter(r -> executionId.equals(r.executionId()) && "decision_refused".equals(r.transition())).toList();
      if (!found.isEmpty()) {
        return found;
      }
      Thread.sleep(100);
    }
    return found;
  }

  private static String refusal(WorkflowUpdateException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure app) {
        return app.getOriginalMessage();
      }
    }
    return String.valueOf(e.getMessage());
  }

  /** A new MCP session of the agent, authorized by carol through the CLI (signed). */
  private static McpClient authorizedSession() throws Exception {
    McpClient client = new McpClient(gateway.frontend().port(), gateway.token("agent:deployer")).initialize();
    String session = sessionIdOf(client);
    // A session's workflow starts with its first durable call (not with initialize): that call waits for carol.
    String opening = executionId(client.call(0, "send_notification", JSON.readTree("{\"message\":\"opens the session\"}")));
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (new io.onceport.app.cli.SessionDirectory(gateway.connection()).find(session).isEmpty() && System.nanoTime() < end) {
      Thread.sleep(50);
    }
    assertTrue(cli("sessions", "authorize", session).contains(session + ": authorized by carol"));
    await(opening, ExecutionState.COMPLETED); // sent before the test arms a fault for its own call
    return client;
  }

  @Test
  void aForgedRedispatchOfAnIrreversibleExecutionInNeedsReviewIsRefusedAndNothingIsSentAgain() throws Exception {
    McpClient client = authorizedSession();
    arm("drop-after-accept");
    String id = executionId(client.call(1, "send_notification", JSON.readTree("{\"message\":\"forged-" + (++version) + "\"}")));
    ExecutionRecord review = await(id, ExecutionState.NEEDS_REVIEW);
    assertEquals(1, acted("/v1/notifications", id));

    ToolExecutionWorkflow forged = plain.newWorkflowStub(ToolExecutionWorkflow.class, review.workflowId(), Optional.of(review.runId()));
    WorkflowUpdateException e = assertThrows(WorkflowUpdateException.class,
        () -> forged.resolve(new Resolution(Resolution.Decision.REDISPATCH, "it did not run", "operator:mallory")));
    assertTrue(refusal(e).startsWith("refused a payload Onceport did not encrypt"), refusal(e));

    assertEquals(ExecutionState.NEEDS_REVIEW, gateway.directory().record(gateway.directory().locate(id).orElseThrow()).state());
    assertEquals(1, acted("/v1/notifications", id), "the target received it once, not a second time");

    // With the payload keys but no operator key: the workflow refuses the unsigned decision itself.
    ToolExecutionWorkflow keyed = gateway.connection().client().newWorkflowStub(ToolExecutionWorkflow.class, review.workflowId(), Optional.of(review.runId()));
    WorkflowUpdateException unsigned = assertThrows(WorkflowUpdateException.class,
        () -> keyed.resolve(new Resolution(Resolution.Decision.REDISPATCH, "it did not run", "operator:mallory")));
    assertTrue(refusal(unsigned).startsWith("execution " + id + ": decision refused: unsigned: no signed statement was presented"),
        refusal(unsigned));
    var journalled = journalledRefusals(id);
    assertEquals(1, journalled.size());
    assertEquals("operator:mallory", journalled.get(0).detail().get("presented_by"));
    assertEquals("(none)", journalled.get(0).detail().get("statement"));
    assertEquals(1, acted("/v1/notifications", id), "still sent once");

    String out = cli("executions", "resolve", id, "--failed", "--reason", "not in the channel's log");
    assertTrue(out.contains(id + ": failed"), out);
    ExecutionRecord resolved = await(id, ExecutionState.FAILED);
    assertEquals("carol", resolved.review().by());
    assertEquals(1, acted("/v1/notifications", id));
  }

  @Test
  void aForgedApprovalOfAnApproveEachUseExecutionIsRefusedAndNothingIsDispatchedUntilAnOperatorSigns() throws Exception {
    McpClient client = new McpClient(gateway.frontend().port(), gateway.token("agent:deployer")).initialize();
    String id = executionId(client.call(1, "deploy_approved", JSON.readTree("{\"service\":\"catalog\",\"version\":\"forged-" + (++version) + "\"}")));
    ExecutionRecord waiting = await(id, ExecutionState.AWAITING_APPROVAL);

    ToolExecutionWorkflow forged = plain.newWorkflowStub(ToolExecutionWorkflow.class, waiting.workflowId(), Optional.of(waiting.runId()));
    WorkflowUpdateException e = assertThrows(WorkflowUpdateException.class,
        () -> forged.decideApproval(new ApprovalDecision(id, waiting.fingerprint(), true, "looks fine", "operator:mallory")));
    assertTrue(refusal(e).startsWith("refused a payload Onceport did not encrypt"), refusal(e));
    assertEquals(ExecutionState.AWAITING_APPROVAL, gateway.directory().record(gateway.directory().locate(id).orElseThrow()).state());
    assertEquals(0, acted("/v1/releases", id), "nothing was dispatched");

    // With the payload keys and a key of its own that is not registered: refused by verification.
    OperatorKey mallory = OperatorKey.generate("mallory");
    var forgedStatement = Operators.sign(mallory, "approval", id, waiting.fingerprint(), "approve", "looks fine");
    ToolExecutionWorkflow keyed = gateway.connection().client().newWorkflowStub(ToolExecutionWorkflow.class, waiting.workflowId(), Optional.of(waiting.runId()));
    WorkflowUpdateException notRegistered = assertThrows(WorkflowUpdateException.class, () -> keyed.decideApproval(new ApprovalDecision(
        id, waiting.fingerprint(), true, "looks fine", "mallory", forgedStatement.statement(), forgedStatement.signature())));
    assertEquals("execution " + id + ": decision refused: operator mallory is not registered", refusal(notRegistered));
    var journalled = journalledRefusals(id);
    assertEquals(forgedStatement.statement(), journalled.get(0).detail().get("statement"), "journalled with what was presented");
    assertEquals(0, acted("/v1/releases", id), "nothing was dispatched");

    String out = cli("approve", id, "--reason", "change ticket 7");
    assertTrue(out.contains(id + ": "), out);
    ExecutionRecord done = await(id, ExecutionState.COMPLETED);
    assertEquals("carol", done.authorization().by());
    assertEquals("change ticket 7", done.authorization().reason(), "approve --reason is kept on the record");
    assertEquals(1, acted("/v1/releases", id));
  }

  @Test
  void aForgedSessionAuthorizationIsRefusedAndTheWaitingExecutionStaysWaiting() throws Exception {
    McpClient client = new McpClient(gateway.frontend().port(), gateway.token("agent:deployer")).initialize();
    String session = sessionIdOf(client);
    String id = executionId(client.call(1, "create_release", JSON.readTree("{\"service\":\"catalog\",\"version\":\"forged-" + (++version) + "\"}")));
    ExecutionRecord waiting = await(id, ExecutionState.AWAITING_SESSION_AUTHORIZATION);

    // The attacker lists the session workflows (their ids are keyed, but visible) and authorizes each.
    var sessions = gateway.connection().stubs().blockingStub().listOpenWorkflowExecutions(ListOpenWorkflowExecutionsRequest.newBuilder()
            .setNamespace("default").setTypeFilter(WorkflowTypeFilter.newBuilder().setName(AgentSessionWorkflow.TYPE)).build())
        .getExecutionsList().stream().filter(i -> i.getType().getName().equals(AgentSessionWorkflow.TYPE)).toList();
    assertTrue(!sessions.isEmpty());
    for (var s : sessions) {
      AgentSessionWorkflow forged = plain.newWorkflowStub(AgentSessionWorkflow.class, s.getExecution().getWorkflowId());
      WorkflowUpdateException e = assertThrows(WorkflowUpdateException.class,
          () -> forged.authorize(new SessionDecision("operator:mallory", "trust me")));
      assertTrue(refusal(e).startsWith("refused a payload Onceport did not encrypt"), refusal(e));
    }
    // ...and tells the waiting execution directly that its session was authorized.
    plain.newWorkflowStub(ToolExecutionWorkflow.class, waiting.workflowId())
        .sessionAuthorization(new SessionAuthorization(session, true, "operator:mallory", "trust me"));
    awaitTaskAfterLastSignal(waiting.workflowId());
    ExecutionRecord still = gateway.directory().record(gateway.directory().locate(id).orElseThrow());
    assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, still.state());
    assertEquals(0, acted("/v1/releases", id), "nothing was dispatched");
    assertTrue(new io.onceport.app.cli.SessionDirectory(gateway.connection()).find(session).orElseThrow().authorization() == null);

    // With the payload keys: the unsigned signal reaches the execution and is refused there, journalled.
    gateway.connection().client().newWorkflowStub(ToolExecutionWorkflow.class, waiting.workflowId())
        .sessionAuthorization(new SessionAuthorization(session, true, "operator:mallory", "trust me"));
    var journalled = journalledRefusals(id);
    assertEquals(1, journalled.size());
    assertTrue(String.valueOf(journalled.get(0).detail().get("refusal")).startsWith("unsigned: no signed statement was presented"));
    assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, gateway.directory().record(gateway.directory().locate(id).orElseThrow()).state());
    assertEquals(0, acted("/v1/releases", id), "nothing was dispatched");

    String out = cli("sessions", "authorize", session);
    assertTrue(out.contains(session + ": authorized by carol; 1 waiting execution(s) told"), out);
    ExecutionRecord released = await(id, ExecutionState.COMPLETED);
    assertEquals("carol", released.authorization().by(), "released by the operator, not by policy");
    assertEquals(1, acted("/v1/releases", id));
  }

  /** Waits until the worker completed a workflow task after the newest signal: the signal was handled (or dropped). */
  static void awaitTaskAfterLastSignal(String workflowId) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < end) {
      var events = gateway.connection().client().fetchHistory(workflowId).getHistory().getEventsList();
      long signal = events.stream().filter(e -> e.getEventType() == io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
          .mapToLong(io.temporal.api.history.v1.HistoryEvent::getEventId).max().orElse(Long.MAX_VALUE);
      if (events.stream().anyMatch(e -> e.getEventType() == io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
          && e.getEventId() > signal)) {
        assertTrue(events.stream().noneMatch(e -> e.getEventType() == io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED),
            "the forged signal did not fail a workflow task");
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no workflow task completed after the signal to " + workflowId);
  }

  private static void arm(String fault) throws Exception {
    var http = java.net.http.HttpClient.newHttpClient();
    var r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(gateway.target().url() + "/admin/faults"))
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"next\":\"" + fault + "\",\"count\":1}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(2, r.statusCode() / 100, r.body());
  }
}
