package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.Main;
import io.onceport.app.demo.DemoTarget;
import io.onceport.testing.McpClient;
import io.onceport.testing.Records;
import io.onceport.testing.ServedGateway;
import io.onceport.testing.ServedGateway.Run;
import io.onceport.workflow.execution.ExecutionRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
  private static ServedGateway gateway;
  private static McpClient agent;

  @BeforeAll
  static void start() throws Exception {
    // Checks from 1 s after the outcome (then 2, 4, 8 … s) instead of the shipped 30 s: the test sees them without waiting.
    gateway = ServedGateway.newBuilder(TASK_QUEUE).contracts("rotate_credential.yaml", "send_notification.yaml")
        .editContracts(yaml -> yaml.replace("every: PT30S", "every: PT1S")).agents("agent:ops").journalWriter("verify-cli").start();
    assertEquals(Duration.ofSeconds(1), gateway.contracts().find("rotate_credential").orElseThrow().replay().verify().every());
    agent = new McpClient(gateway.frontend().port(), gateway.token("agent:ops")).initialize();
  }

  @AfterAll
  static void stop() throws Exception {
    if (gateway != null) {
      gateway.close();
    }
  }

  /** The operator's CLI: {@code executions …} against this gateway, signing as carol ({@code verify}). */
  private static Run cli(String... args) {
    boolean decides = args.length > 1 && args[1].equals("verify");
    return decides ? gateway.signed(args) : gateway.cli(args);
  }

  /** Calls {@code rotate_credential} for {@code service}; the rotation takes effect ten days later. */
  private static String rotate(String service, int id) throws Exception {
    gateway.target().armFault(DemoTarget.APPLY_LATE + Duration.ofDays(10).toMillis(), 1);
    JsonNode response = agent.call(id, "rotate_credential", JSON.createObjectNode().put("service", service));
    String executionId = response.at("/result/structuredContent/execution_id").asText();
    assertTrue(executionId.startsWith("act_"), response.toString());
    return executionId;
  }

  private static ExecutionRecord pending(String executionId) throws InterruptedException {
    return Records.await(gateway.directory(), executionId, r -> r.verification() != null
        && ExecutionRecord.Verification.PENDING.equals(r.verification().state()), Duration.ofSeconds(60));
  }

  private static ExecutionRecord record(String executionId) {
    return gateway.directory().record(gateway.directory().locate(executionId).orElseThrow());
  }

  /** The journal lines (all writers) of {@code executionId} with {@code transition}. */
  private static List<String> journalled(String executionId, String transition) {
    List<String> lines = new ArrayList<>();
    Path journal = gateway.data().resolve("journal/activity");
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
    ExecutionRecord waiting = Records.await(gateway.directory(), id, r -> r.verification().checkCount() >= 1, Duration.ofSeconds(60));
    assertEquals("completed_verification_pending", waiting.view());
    ExecutionRecord.VerificationCheck first = waiting.verification().checks().get(0);
    assertEquals("not_yet_known", first.verdict());
    assertEquals(202, first.status(), "the rotation is not active yet");
    Run list = cli("executions", "list");
    assertEquals(0, list.exit(), list.err());
    assertTrue(list.out().contains(id) && list.out().contains("completed_verification_pending"), list.out());
    Run before = cli("executions", "show", id);
    assertEquals(0, before.exit(), before.err());
    assertTrue(before.out().contains("verification pending — GET " + gateway.target().url() + "/v1/credentials/{{service}}/active"), before.out());
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
    assertEquals(1, gateway.target().ledger().stream().filter(e -> e.method().equals("POST")).count(), "one rotation");

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
    Records.await(gateway.directory(), notification, r -> r.outcome() != null, Duration.ofSeconds(60));
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
