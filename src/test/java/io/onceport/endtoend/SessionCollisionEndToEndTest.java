package io.onceport.endtoend;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.app.Main;
import io.onceport.app.demo.DemoTarget;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.ops.Metrics;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.testing.McpClient;
import io.onceport.testing.Operators;
import io.onceport.testing.Records;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The attack of issue 25 item 2, exactly: actor {@code agent:ci} with run id {@code prod:nightly}
 * and actor {@code agent:ci:prod} with run id {@code nightly} once had one session id
 * ({@code run:agent:ci:prod:nightly}), so one session workflow; the operator authorized only the
 * victim's session and the attacker's irreversible call was sent. Here, the whole gateway as
 * {@code serve} wires it (embedded engine, a worker with the operator session policy, the MCP front
 * end, the demo target recording every request), both agents call the irreversible tool over MCP
 * 2026-07-28 with their run ids, an operator authorizes the victim's session through the CLI: the
 * victim's call is sent once, the attacker's stays waiting and never reaches the target.
 */
@Timeout(180)
class SessionCollisionEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TASK_QUEUE = "onceport-collision";
  private static final String MODERN = "2026-07-28";
  private static Path dir;
  private static Path data;
  private static Path keys;
  private static DemoTarget target;
  private static EmbeddedEngine engine;
  private static TemporalConnection connection;
  private static WorkerRuntime worker;
  private static FrontendRuntime frontend;
  private static ExecutionDirectory directory;
  private static String attackerToken;
  private static String victimToken;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("onceport-collision");
    data = Files.createDirectories(dir.resolve("data"));
    keys = dir.resolve("operator-keys");
    target = DemoTarget.start("127.0.0.1", 0);
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    Files.writeString(contracts.resolve("send_notification.yaml"), Files.readString(Path.of("contracts", "send_notification.yaml"))
        .replace("${DEMO_TARGET:-http://127.0.0.1:8766}", target.url()));
    ContractSet tools = new ContractLoader().load(contracts);
    AgentRegistry agents = new AgentRegistry(data);
    attackerToken = agents.add("agent:ci");
    victimToken = agents.add("agent:ci:prod");
    OperatorKey carol = Operators.register(data, "carol");
    carol.write(keys.resolve("carol.key"), false);

    engine = EmbeddedEngine.start("127.0.0.1", 0);
    Metrics metrics = new Metrics();
    connection = TemporalConnection.connect(engine.target(), "default", true,
        io.onceport.shared.codec.Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope());
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    worker = WorkerRuntime.start(connection, TASK_QUEUE, data, null, "operator", Duration.ofMinutes(5), "collision");
    frontend = FrontendRuntime.start(connection, TASK_QUEUE, data, tools,
        FrontendSettings.loopback(Duration.ofSeconds(2), "operator"), metrics);
    directory = new ExecutionDirectory(connection);
  }

  @AfterAll
  static void stop() throws Exception {
    if (frontend != null) {
      frontend.close();
    }
    if (worker != null) {
      worker.close();
    }
    if (connection != null) {
      connection.close();
    }
    if (engine != null) {
      engine.close();
    }
    if (target != null) {
      target.close();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** A 2026-07-28 {@code tools/call} of {@code send_notification} in run {@code runId}. */
  private static JsonNode callInRun(String token, int id, String runId, String message) throws Exception {
    ObjectNode body = (ObjectNode) JSON.readTree(McpClient.callBody(id, "send_notification",
        JSON.createObjectNode().put("message", message)));
    ObjectNode meta = ((ObjectNode) body.get("params")).putObject("_meta");
    meta.put("io.modelcontextprotocol/protocolVersion", MODERN);
    meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "nightly-job").put("version", "1");
    meta.putObject("io.modelcontextprotocol/clientCapabilities");
    meta.put("onceport/run", runId);
    var response = new McpClient(frontend.port(), token).post(body.toString(),
        "MCP-Protocol-Version", MODERN, "Mcp-Method", "tools/call", "Mcp-Name", "send_notification");
    assertEquals(200, response.statusCode(), response.body());
    return JSON.readTree(response.body());
  }

  private static String executionId(JsonNode response) {
    String id = response.at("/result/structuredContent/execution_id").asText();
    assertTrue(id.startsWith("act_"), response.toString());
    return id;
  }

  private static ExecutionRecord await(String executionId, ExecutionState state) throws InterruptedException {
    return Records.await(directory, executionId, r -> r.state() == state, Duration.ofSeconds(30));
  }

  private static long sent(String executionId) {
    return target.ledger().stream().filter(e -> e.path().equals("/v1/notifications") && executionId.equals(e.key())).count();
  }

  /** The operator's CLI, signing as carol. */
  private static String cli(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      boolean decides = args.length > 1 && List.of("authorize", "deny", "revoke").contains(args[1]);
      Stream<String> signing = decides ? Stream.of("--key-dir", keys.toString(), "--operator", "carol") : Stream.of();
      String[] all = Stream.of(Stream.of(args), Stream.of("--temporal", engine.target(), "--data", data.toString()), signing)
          .flatMap(x -> x).toArray(String[]::new);
      int exit = Main.run(all);
      assertEquals(0, exit, o.toString(StandardCharsets.UTF_8) + e.toString(StandardCharsets.UTF_8));
      return o.toString(StandardCharsets.UTF_8);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @Test
  void anotherActorWhoseNameAndRunJoinToTheVictimsSessionIdCannotUseTheVictimsAuthorization() throws Exception {
    String victim = executionId(callInRun(victimToken, 1, "nightly", "victim: deploy window opens"));
    String attacker = executionId(callInRun(attackerToken, 1, "prod:nightly", "attacker: wire the money"));
    ExecutionRecord victimWaiting = await(victim, ExecutionState.AWAITING_SESSION_AUTHORIZATION);
    ExecutionRecord attackerWaiting = await(attacker, ExecutionState.AWAITING_SESSION_AUTHORIZATION);

    String out = cli("sessions", "authorize", victimWaiting.sessionId(), "--yes", "--reason", "the victim's nightly run");
    assertTrue(out.contains(victimWaiting.sessionId() + ": authorized by carol"), out);
    await(victim, ExecutionState.COMPLETED);
    assertEquals(1, sent(victim), "the victim's authorized call was sent once");

    // The attacker's execution was never told of the victim's decision: it still waits, and nothing of it was sent.
    ExecutionRecord still = Records.await(directory, attacker, r -> true, Duration.ofSeconds(5));
    assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, still.state(), still.view() + " — " + still.message());
    assertEquals(0, sent(attacker), "the attacker's irreversible call never reached the target");
    assertNotEquals(victimWaiting.sessionId(), attackerWaiting.sessionId(), "two actors' runs are two sessions");
    String shown = cli("sessions", "show", attackerWaiting.sessionId());
    assertTrue(shown.contains("agent:ci\n") || shown.contains("actor       agent:ci"), shown);
    assertTrue(shown.contains("status      pending"), shown);
  }

  @Test
  void theSessionsOfBothActorsAreListedApartWithTheirOwnActor() throws Exception {
    executionId(callInRun(victimToken, 2, "weekly", "victim weekly"));
    executionId(callInRun(attackerToken, 2, "prod:weekly", "attacker weekly"));
    String list = cli("sessions", "list", "--json");
    JsonNode sessions = JSON.readTree(list);
    List<String> ids = new java.util.ArrayList<>();
    for (JsonNode s : sessions) {
      ids.add(s.path("sessionId").asText());
    }
    long weekly = ids.stream().filter(i -> i.contains("weekly")).count();
    assertEquals(2, weekly, list);
    assertEquals(2, ids.stream().filter(i -> i.contains("weekly")).distinct().count(), list);
    for (JsonNode s : sessions) {
      String id = s.path("sessionId").asText();
      if (id.contains("weekly")) {
        assertTrue(id.contains(s.path("actor").asText()), "the session id names its actor: " + id);
      }
    }
  }

  /**
   * Issue 25 item 8: after {@code agent remove} and {@code agent add} the old session and its
   * authorization once worked with the new token. Now the run's session is the old token's: it is
   * ended when the token goes, and the same run id with the new token is a new, undecided session.
   */
  @Test
  void aRemovedAndReaddedAgentStartsWithNoSessionAndNoAuthorization() throws Exception {
    AgentRegistry agents = new AgentRegistry(data);
    String first = agents.add("agent:rotated");
    String before = executionId(callInRun(first, 1, "nightly", "rotated: before"));
    ExecutionRecord waiting = await(before, ExecutionState.AWAITING_SESSION_AUTHORIZATION);
    cli("sessions", "authorize", waiting.sessionId(), "--yes", "--reason", "the rotated agent's nightly run");
    await(before, ExecutionState.COMPLETED);

    assertTrue(agents.remove("agent:rotated")); // as `onceport agent remove` in another process: the front end reads the file
    String[] shown = {""};
    io.onceport.testing.Conditions.await("the old token's session ended", Duration.ofSeconds(30), () -> {
      shown[0] = cli("sessions", "show", waiting.sessionId());
      return shown[0].contains("credential was removed");
    });
    String second = agents.add("agent:rotated");
    String after = executionId(callInRun(second, 2, "nightly", "rotated: after"));
    ExecutionRecord again = await(after, ExecutionState.AWAITING_SESSION_AUTHORIZATION);
    assertNotEquals(waiting.sessionId(), again.sessionId(), "the same run with the new token is another session");
    assertEquals(0, sent(after), "the old authorization does not carry over to the new token");
    assertTrue(cli("sessions", "show", again.sessionId()).contains("status      pending"));
  }
}
