package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.auth.OperatorSessionAuthority;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.app.cli.SessionDirectory;
import io.onceport.testing.McpClient;
import io.onceport.testing.Operators;
import io.onceport.testing.Records;
import io.onceport.testing.ServedGateway;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.ids.AgentSessionId;
import io.onceport.workflow.operator.SignedDecision;
import io.onceport.workflow.session.SessionDecision;
import io.onceport.workflow.session.SessionWorkflowIds;
import io.temporal.client.WorkflowUpdateException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code onceport sessions authorize --agent agent:deployer --for P7D} (issue 29 item 6): the whole
 * gateway as {@code serve} wires it with the operator session policy; the operator grants the agent
 * once through the CLI, and the agent's new sessions (new run ids, a new MCP session) go through
 * without waiting; the grant is listed, journalled, bound to its signed end and to the token, and
 * {@code sessions revoke --agent} ends it. An OAuth actor (not in {@code agents.json}) is granted as
 * its name. Without a console and without {@code --yes} the CLI says what to pass.
 */
@Timeout(180)
class AgentGrantEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TASK_QUEUE = "onceport-grant";
  private static ServedGateway gateway;

  @BeforeAll
  static void start() throws Exception {
    gateway = ServedGateway.newBuilder(TASK_QUEUE).contracts("send_notification.yaml").sessionPolicy("operator")
        .agents("agent:deployer", "agent:other").journalWriter("collision").start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (gateway != null) {
      gateway.close();
    }
  }

  private static String executionId(JsonNode response) {
    String id = response.at("/result/structuredContent/execution_id").asText();
    assertTrue(id.startsWith("act_"), response.toString());
    return id;
  }

  private static ExecutionRecord await(String executionId, ExecutionState state) throws InterruptedException {
    return Records.await(gateway.directory(), executionId, r -> r.state() == state, Duration.ofSeconds(30));
  }

  private static long sent(String executionId) {
    return gateway.target().ledger().stream().filter(e -> e.path().equals("/v1/notifications") && executionId.equals(e.key())).count();
  }

  /** The operator's CLI, signing as carol. */
  private static String cli(String... args) {
    return cliExpecting(0, args);
  }

  private static String cliExpecting(int expectedExit, String... args) {
    boolean decides = args.length > 1 && List.of("authorize", "deny", "revoke").contains(args[1]);
    ServedGateway.Run run = (decides ? gateway.signed(args) : gateway.cli(args)).expect(expectedExit);
    return run.out() + run.err();
  }

  private static String deployer() {
    return gateway.token("agent:deployer");
  }

  @Test
  void aGrantLetsNewSessionsOfTheAgentThroughUntilItIsRevoked() throws Exception {
    String out = cli("sessions", "authorize", "--agent", "agent:deployer", "--for", "P7D", "--yes", "--reason", "nightly scripts", "--task-queue", TASK_QUEUE);
    String generation = new AgentRegistry(gateway.data()).generation("agent:deployer").orElseThrow();
    String grantId = "grant:agent:deployer~" + generation;
    assertTrue(out.contains(grantId + ": authorized until "), out);

    // New sessions — two runs and an MCP session — need no operator.
    for (String run : List.of("deploy-1", "deploy-2")) {
      String id = executionId(gateway.callInRun(deployer(), 1, run, "granted " + run));
      await(id, ExecutionState.COMPLETED);
    }
    McpClient mcp = new McpClient(gateway.frontend().port(), deployer()).initialize("deploy-script", "2");
    JsonNode answered = mcp.call(2, "send_notification", JSON.createObjectNode().put("message", "granted mcp"));
    await(executionId(answered), ExecutionState.COMPLETED);
    // Another agent is not covered.
    String other = executionId(gateway.callInRun(gateway.token("agent:other"), 1, "deploy-1", "not granted"));
    await(other, ExecutionState.AWAITING_SESSION_AUTHORIZATION);

    String list = cli("sessions", "list");
    assertTrue(list.contains(grantId), list);
    assertTrue(list.lines().anyMatch(l -> l.startsWith(grantId) && l.contains("authorized until")), list);
    assertTrue(journal().contains(grantId) && journal().contains("\"until\""), "journalled: " + journal());

    String revoked = cli("sessions", "revoke", "--agent", "agent:deployer", "--reason", "scripts done", "--yes");
    assertTrue(revoked.contains(grantId + ": revoked"), revoked);
    String after = executionId(gateway.callInRun(deployer(), 3, "deploy-3", "after revoke"));
    await(after, ExecutionState.AWAITING_SESSION_AUTHORIZATION);
    assertEquals(0, sent(after));
  }

  @Test
  void theGrantsEndIsSignedAndCannotBeStretched() throws Exception {
    OperatorKey carol = OperatorKey.load(gateway.operatorKeys().resolve("carol.key"));
    String until = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS).toString();
    String grantId = AgentSessionId.grant("agent:stretch", null).id();
    SignedDecision signed = Operators.signSession(carol, AgentSessionId.grantUntil("agent:stretch", null, until).id(),
        "agent:stretch", "authorize", "an hour");
    var stub = sessions().grant(grantId, "agent:stretch", TASK_QUEUE, "test");
    String stretched = Instant.parse(until).plus(Duration.ofDays(30)).toString();
    WorkflowUpdateException e = assertThrows(WorkflowUpdateException.class, () -> stub.authorize(
        new SessionDecision("carol", "an hour", signed.statement(), signed.signature(), stretched)));
    assertTrue(String.valueOf(rootMessage(e)).contains("refused"), rootMessage(e));
    var ok = stub.authorize(new SessionDecision("carol", "an hour", signed.statement(), signed.signature(), until));
    assertEquals(until, ok.authorization().until());
  }

  @Test
  void anOAuthActorIsGrantedByItsNameAndTheLadderSeesIt() throws Exception {
    String actor = "oauth:corp/00u1abc";
    String out = cli("sessions", "authorize", "--agent", actor, "--for", "PT8H", "--yes", "--reason", "IdP robot", "--task-queue", TASK_QUEUE);
    assertTrue(out.contains("grant:oauth:corp%2F00u1abc: authorized until "), out);
    OperatorSessionAuthority authority = new OperatorSessionAuthority(gateway.connection().client(), TASK_QUEUE,
        SessionWorkflowIds.keyed(FingerprintKey.loadOrCreate(gateway.data())::hmac));
    assertTrue(authority.isAuthorized(AgentSessionId.run(actor, null, "nightly").id(), actor));
    assertTrue(!authority.isAuthorized(AgentSessionId.run("oauth:corp/00u2xyz", null, "nightly").id(), "oauth:corp/00u2xyz"));
  }

  @Test
  void withoutAConsoleAndWithoutYesTheCliSaysWhatToPass() {
    String out = cliExpecting(1, "sessions", "authorize", "--agent", "agent:deployer", "--for", "P7D", "--reason", "x");
    assertTrue(out.contains("--yes") && out.contains("onceport sessions authorize --agent agent:deployer --for PT168H --yes"), out);
    String both = cliExpecting(1, "sessions", "authorize", "run:agent:deployer/x", "--agent", "agent:deployer", "--for", "P7D",
        "--yes");
    assertTrue(both.contains("either one SESSION_ID, or an agent for a period"), both);
  }

  private static SessionDirectory sessions() throws Exception {
    return new SessionDirectory(gateway.connection(), SessionWorkflowIds.keyed(FingerprintKey.loadOrCreate(gateway.data())::hmac));
  }

  private static String rootMessage(Throwable t) {
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t.getMessage();
  }

  private static String journal() throws Exception {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(gateway.data())) {
      for (Path f : files.filter(Files::isRegularFile).filter(p -> p.toString().contains("sessions")).toList()) {
        all.append(new String(Files.readAllBytes(f), StandardCharsets.UTF_8));
      }
    }
    return all.toString();
  }
}
