package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code onceport executions verify} through {@code Main.run}, against the gateway as {@code serve}
 * wires it (embedded engine, a worker, the MCP front end, the demo target's credential API): a
 * rotation kept until verified whose checks never match (the rotation is armed to take effect ten days
 * later, so every check says "rotating") is settled by the operator's signed verdict, which is on the
 * record and in the journal; every bad input is a clear message and a non-zero exit, and records nothing.
 */
@Timeout(180)
class ExecutionsVerifyEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TASK_QUEUE = "onceport-verify-cli";
  private static Path dir;
  private static Path data;
  private static Path keys;
  private static DemoTarget target;
  private static EmbeddedEngine engine;
  private static TemporalConnection connection;
  private static WorkerRuntime worker;
  private static FrontendRuntime frontend;
  private static ExecutionDirectory directory;
  private static McpClient agent;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("onceport-verify-cli");
    data = Files.createDirectories(dir.resolve("data"));
    keys = dir.resolve("operator-keys");
    target = DemoTarget.start("127.0.0.1", 0);
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    for (String name : List.of("rotate_credential.yaml", "send_notification.yaml")) {
      // Checks from 1 s after the outcome (then 2, 4, 8 … s) instead of the shipped 30 s: the test sees them without waiting.
      Files.writeString(contracts.resolve(name), Files.readString(Path.of("contracts", name))
          .replace("${DEMO_TARGET:-http://127.0.0.1:8766}", target.url()).replace("every: PT30S", "every: PT1S"));
    }
    ContractSet tools = new ContractLoader().load(contracts);
    assertEquals(Duration.ofSeconds(1), tools.find("rotate_credential").orElseThrow().replay().verify().every());
    String token = new AgentRegistry(data).add("agent:ops");
    OperatorKey carol = Operators.register(data, "carol");
    carol.write(keys.resolve("carol.key"), false);

    engine = EmbeddedEngine.start("127.0.0.1", 0);
    Metrics metrics = new Metrics();
    connection = TemporalConnection.connect(engine.target(), "default", true,
        io.onceport.shared.codec.Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope());
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    worker = WorkerRuntime.start(connection, TASK_QUEUE, data, null, "auto", Duration.ofMinutes(5), "verify-cli");
    frontend = FrontendRuntime.start(connection, TASK_QUEUE, data, tools, FrontendSettings.loopback(Duration.ofSeconds(2), "auto"),
        metrics);
    directory = new ExecutionDirectory(connection);
    agent = new McpClient(frontend.port(), token).initialize();
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

  private record Run(int exit, String out, String err) {}

  /** The operator's CLI: {@code executions …} against this gateway, signing as carol. */
  private static Run cli(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      boolean decides = args.length > 1 && args[1].equals("verify");
      Stream<String> signing = decides ? Stream.of("--key-dir", keys.toString(), "--operator", "carol") : Stream.of();
      String[] all = Stream.of(Stream.of(args), Stream.of("--temporal", engine.target(), "--data", data.toString()), signing)
          .flatMap(x -> x).toArray(String[]::new);
      int exit = Main.run(all);
      return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  /** Calls {@code rotate_credential} for {@code service}; the rotation takes effect ten days later. */
  private static String rotate(String service, int id) throws Exception {
    target.armFault(DemoTarget.APPLY_LATE + Duration.ofDays(10).toMillis(), 1);
    JsonNode response = agent.call(id, "rotate_credential", JSON.createObjectNode().put("service", service));
    String executionId = response.at("/result/structuredContent/execution_id").asText();
    assertTrue(executionId.startsWith("act_"), response.toString());
    return executionId;
  }

  private static ExecutionRecord pending(String executionId) throws InterruptedException {
    return Records.await(directory, executionId, r -> r.verification() != null
        && ExecutionRecord.Verification.PENDING.equals(r.verification().state()), Duration.ofSeconds(60));
  }

  private static ExecutionRecord record(String executionId) {
    return directory.record(directory.locate(executionId).orElseThrow());
  }

  /** The journal lines (all writers) of {@code executionId} with {@code transition}. */
  private static List<String> journalled(String executionId, String transition) {
    List<String> lines = new ArrayList<>();
    Path journal = data.resolve("journal/activity");
    try (Stream<Path> files = Files.list(journal)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".jsonl")).toList()) {
        for (String line : Files.readAllLines(f)) {
          if (line.contains(executionId) && line.contains("\"" + transition + "\"")) {
            lines.add(line);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lines;
  }

  @Test
  void aRotationWhoseChecksNeverMatchIsSettledByTheOperatorsSignedVerdict() throws Exception {
    String id = rotate("billing", 1);
    pending(id);
    // The first check comes a second after the outcome: it does not match (nor will any other, for ten days).
    ExecutionRecord waiting = Records.await(directory, id, r -> r.verification().checkCount() >= 1, Duration.ofSeconds(60));
    assertEquals("completed_verification_pending", waiting.view());
    ExecutionRecord.VerificationCheck first = waiting.verification().checks().get(0);
    assertEquals("not_yet_known", first.verdict());
    assertEquals(202, first.status(), "the rotation is not active yet");
    Run list = cli("executions", "list");
    assertEquals(0, list.exit(), list.err());
    assertTrue(list.out().contains(id) && list.out().contains("completed_verification_pending"), list.out());
    Run before = cli("executions", "show", id);
    assertEquals(0, before.exit(), before.err());
    assertTrue(before.out().contains("verification pending — GET " + target.url() + "/v1/credentials/{{service}}/active"), before.out());
    assertTrue(before.out().contains("  check 1 " + first.at() + " not_yet_known 202 ["), before.out());

    Run verified = cli("executions", "verify", id, "--verified", "--reason", "billing-key-2 is in the vault");

    assertEquals(0, verified.exit(), verified.out() + verified.err());
    assertTrue(verified.out().startsWith(id + ": completed_verified — "), verified.out());
    ExecutionRecord settled = record(id);
    assertEquals("completed_verified", settled.view());
    assertEquals(ExecutionRecord.Verification.VERIFIED, settled.verification().state());
    assertEquals("verified", settled.verification().decision().decision());
    assertEquals("carol", settled.verification().decision().by());
    assertEquals("billing-key-2 is in the vault", settled.verification().decision().reason());
    List<String> decided = journalled(id, "verification_decided");
    for (long until = System.nanoTime() + Duration.ofSeconds(30).toNanos(); decided.isEmpty() && System.nanoTime() - until < 0; ) {
      Thread.sleep(50); // the journal line is written by the worker's activity, after the update answered
      decided = journalled(id, "verification_decided");
    }
    assertEquals(1, decided.size(), decided.toString());
    assertTrue(decided.get(0).contains("carol") && decided.get(0).contains("billing-key-2 is in the vault"), decided.get(0));
    Run shown = cli("executions", "show", id);
    assertEquals(0, shown.exit(), shown.err());
    assertTrue(shown.out().contains("verification verified"), shown.out());
    assertTrue(shown.out().contains("verdict verified by carol: billing-key-2 is in the vault"), shown.out());
    assertEquals(1, target.ledger().stream().filter(e -> e.method().equals("POST")).count(), "one rotation");

    // Settled: a second verdict has nothing to verify and changes nothing.
    Run again = cli("executions", "verify", id, "--not-applied", "--reason", "changed my mind");
    assertNotEquals(0, again.exit());
    assertTrue(again.err().contains("execution " + id + " is completed_verified; its verification is verified, nothing to verify"),
        again.err());
    assertEquals("verified", record(id).verification().decision().decision());
    assertEquals(1, journalled(id, "verification_decided").size());
  }

  @Test
  void badInputIsAClearMessageAndANonZeroExitAndRecordsNothing() throws Exception {
    String id = rotate("payroll", 2);
    pending(id);

    Run unknown = cli("executions", "verify", "act_01JZZZZZZZZZZZZZZZZZZZZZZZ", "--verified", "--reason", "x");
    assertNotEquals(0, unknown.exit());
    assertTrue(unknown.err().contains("no execution act_01JZZZZZZZZZZZZZZZZZZZZZZZ"), unknown.err());

    Run both = cli("executions", "verify", id, "--verified", "--not-applied", "--reason", "x");
    assertNotEquals(0, both.exit());
    assertTrue(both.err().contains("--verified") && both.err().contains("--not-applied") && both.err().contains("mutually exclusive"),
        both.err());

    Run neither = cli("executions", "verify", id, "--reason", "x");
    assertNotEquals(0, neither.exit());
    assertTrue(neither.err().contains("Missing required argument") && neither.err().contains("--verified"), neither.err());

    Run noReason = cli("executions", "verify", id, "--verified");
    assertNotEquals(0, noReason.exit());
    assertTrue(noReason.err().contains("Missing required option: '--reason=<reason>'"), noReason.err());

    Run blankReason = cli("executions", "verify", id, "--verified", "--reason", " ");
    assertNotEquals(0, blankReason.exit());
    assertTrue(blankReason.err().contains("--reason must not be empty"), blankReason.err());

    // An execution not kept until verified: nothing to verify.
    JsonNode sent = agent.call(3, "send_notification", JSON.createObjectNode().put("message", "deploy window opens"));
    String notification = sent.at("/result/structuredContent/execution_id").asText();
    Records.await(directory, notification, r -> r.outcome() != null, Duration.ofSeconds(60));
    Run notKept = cli("executions", "verify", notification, "--verified", "--reason", "x");
    assertNotEquals(0, notKept.exit());
    assertTrue(notKept.err().contains("execution " + notification + " is ")
        && notKept.err().contains("it is not kept until verified (or its outcome is not known yet), nothing to verify"), notKept.err());

    // None of it reached the executions: still pending, no verdict, nothing journalled.
    ExecutionRecord after = record(id);
    assertEquals(ExecutionRecord.Verification.PENDING, after.verification().state());
    assertNull(after.verification().decision());
    assertEquals(List.of(), journalled(id, "verification_decided"));
    assertEquals(List.of(), journalled(notification, "verification_decided"));
    assertNull(record(notification).verification());
  }
}
