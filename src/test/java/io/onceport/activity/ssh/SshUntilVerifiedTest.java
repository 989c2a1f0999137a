package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.dispatch.DispatchActivitiesImpl;
import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.testing.AllowAll;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Records;
import io.onceport.testing.SecretSearch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifyCondition;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code attach_window: until_verified} for an ssh tool, on the embedded engine (its clock moved on
 * by the test) with OpenSSH's {@code sshd} on 127.0.0.1 as the host: the rotation is a remote
 * command, the check a read-only one ({@code cat} of the service's active key) over the same pinned,
 * key-authenticated connection, its client key from the vault. The host's "key store" is a directory
 * of this test: the rotation command writes its new key there only when the test lets it, so the
 * effect can land late or never.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SshUntilVerifiedTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCHEMA = """
      {"type":"object","required":["service"],"properties":{"service":{"type":"string"}},"additionalProperties":false}""";

  @TempDir Path tmp;
  private final RecordingJournal journal = new RecordingJournal();
  private final List<String> dispatched = new CopyOnWriteArrayList<>();
  private OpenSshServer server;
  private String pem;
  private Path keys;
  private DispatchActivitiesImpl activities;
  private EngineHarness harness;

  @BeforeEach
  void start() throws Exception {
    assumeTrue(OpenSshServer.available(), "/usr/sbin/sshd not installed (apt-get install openssh-server)");
    KeyPair clientKey = TestKeys.ec();
    server = new OpenSshServer(List.of(clientKey), Files.createDirectories(tmp.resolve("server")));
    pem = TestKeys.openSshPrivateKey(clientKey);
    keys = Files.createDirectories(tmp.resolve("keys"));
    CredentialResolver vault = reference -> {
      if (!reference.equals("rotator-ssh")) {
        throw ApplicationFailure.newNonRetryableFailure("no credential " + reference, ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
      return new Credential("rotator-ssh", Credential.Type.SSH_KEY, null, null, pem);
    };
    activities = new DispatchActivitiesImpl(Map.of(ToolContract.Channel.SSH, new SshChannel()),
        r -> dispatched.add(r.executionId()), vault);
    Path operators = Files.createDirectories(tmp.resolve("operators"));
    harness = new EngineHarness("onceport-ssh-verified", new SimplePreparation(rotate()), activities, journal, new AllowAll(),
        new OperatorActivitiesImpl(new OperatorRegistry(operators)));
  }

  @AfterEach
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
    if (activities != null) {
      activities.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * {@code rotate_host_credential}: the command appends to {@code <service>.runs} (one line per
   * rotation that ran), writes the new key to {@code <service>.applied} — which becomes the active
   * key only when the test moves it, i.e. when the rotation "takes effect" — and answers the old and
   * new key ids as JSON. The check prints {@code <service>.json}, the active key.
   */
  private ToolContract rotate() {
    String k = keys + "/{{service}}";
    SshSpec ssh = new SshSpec("127.0.0.1", server.port(), server.user(), server.hostKeyFingerprint(), "rotator-ssh", null,
        List.of("/bin/sh", "-c", "echo run >> \"$1.runs\"; printf '{\"key_id\":\"%s-key-2\"}' \"$2\" > \"$1.applied\"; "
            + "printf '{\"old_key_id\":\"%s-key-1\",\"new_key_id\":\"%s-key-2\"}' \"$2\" \"$2\"", "sh", k, "{{service}}"),
        null, false, null, null, 10_000);
    VerifySpec verify = VerifySpec.newBuilder()
        .setSsh(List.of("cat", k + ".json"))
        .setEvery(Duration.ofSeconds(30))
        .setGiveUpAfter(Duration.ofDays(7))
        .setVerifiedWindow(Duration.ofMinutes(10))
        .setVerifiedWhen(new VerifyCondition(List.of(0), "/key_id", "/new_key_id", null, null))
        .setNotAppliedWhen(new VerifyCondition(List.of(0), "/key_id", "/old_key_id", null, null))
        .build();
    return new ToolContract("rotate_host_credential", "Rotate a host's service credential.", SCHEMA, null,
        ToolContract.Channel.SSH, null, ssh, new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofMinutes(5), null, verify),
        List.of(), List.of());
  }

  private static ToolCall call(String service, String jsonRpcId) throws Exception {
    JsonNode args = JSON.readTree("{\"service\":\"" + service + "\"}");
    return new ToolCall("agent:ops", "rotate_host_credential", args, null, null, "session-1", jsonRpcId, "2025-06-18", "test/1",
        "127.0.0.1", 10_000);
  }

  private long runs(String service) throws Exception {
    Path runs = keys.resolve(service + ".runs");
    return Files.exists(runs) ? Files.readAllLines(runs).size() : 0;
  }

  /** The rotation takes effect on the host: its new key becomes the active one. */
  private void takeEffect(String service) throws Exception {
    Files.move(keys.resolve(service + ".applied"), keys.resolve(service + ".json"));
  }

  private ExecutionRecord await(String id, Predicate<ExecutionRecord> condition) throws Exception {
    return Records.await(harness.directory, id, condition, Duration.ofSeconds(60));
  }

  private List<JournalEntry> journalled(String id, String transition) {
    return journal.entries.stream().filter(e -> e.executionId().equals(id) && e.transition().equals(transition)).toList();
  }

  @Test
  void aRotationThatTakesEffectLateIsVerifiedByTheCheckCommandAndARetryMeanwhileNeverRotatesAgain() throws Exception {
    CallResult first = harness.gateway.call(call("billing", "1"));
    String id = first.record().executionId();
    ExecutionRecord answered = await(id, r -> r.verification() != null);
    assertEquals("completed_verification_pending", answered.view());
    assertEquals("{\"old_key_id\":\"billing-key-1\",\"new_key_id\":\"billing-key-2\"}", answered.result().body());

    // No active key yet: cat exits 1, "not yet known", checked again on the schedule.
    harness.skipTime(Duration.ofMinutes(2));
    ExecutionRecord pending = await(id, r -> r.verification().checkCount() >= 2);
    ExecutionRecord.VerificationCheck notYet = pending.verification().checks().get(0);
    assertEquals("not_yet_known", notYet.verdict());
    assertEquals(1, notYet.status(), "the check's exit status");
    CallResult retry = harness.gateway.call(call("billing", "2"));
    assertTrue(retry.attached(), "the retry attaches to the unverified rotation");
    assertEquals(id, retry.record().executionId());
    assertEquals(ExecutionRecord.Verification.PENDING, retry.record().verification().state());
    assertEquals(1, runs("billing"), "no second rotation");

    takeEffect("billing");
    ExecutionRecord verified = null;
    for (int i = 0; i < 30 && verified == null; i++) {
      harness.skipTime(Duration.ofMinutes(1));
      ExecutionRecord r = await(id, x -> true);
      verified = ExecutionRecord.Verification.VERIFIED.equals(r.verification().state()) ? r : null;
    }
    assertTrue(verified != null, "verified once the new key is active");
    assertEquals("completed_verified", verified.view());
    List<ExecutionRecord.VerificationCheck> checks = verified.verification().checks();
    ExecutionRecord.VerificationCheck confirming = checks.get(checks.size() - 1);
    assertEquals("verified", confirming.verdict());
    assertEquals(0, confirming.status());
    assertTrue(confirming.held().stream().anyMatch(h -> h.pointer().equals("/key_id") && "\"billing-key-2\"".equals(h.value())
        && "\"billing-key-2\"".equals(h.expected())), confirming.held().toString());
    assertEquals(1, journalled(id, "verified").size());
    assertEquals(checks.size(), journalled(id, "verification_check").size(), "every check is journalled");
    CallResult withinWindow = harness.gateway.call(call("billing", "3"));
    assertEquals(id, withinWindow.record().executionId());
    assertEquals(1, runs("billing"));
    assertEquals(1, dispatched.size());

    // The client key (from the vault) is nowhere in the history, the record or the journal.
    SecretSearch search = new SecretSearch();
    for (HistoryEvent event : harness.connection.client().fetchHistory(verified.workflowId(), verified.runId()).getEvents()) {
      search.add("history event " + event.getEventId(), event.toByteArray());
    }
    search.add("record", JSON.writeValueAsString(harness.directory.record(harness.directory.locate(id).orElseThrow())));
    search.add("journal", JSON.writeValueAsString(journal.entries));
    assertTrue(search.size() > 10, "searched " + search.size() + " places");
    for (byte[] secret : SecretSearch.pemSecrets(pem)) {
      assertEquals(List.of(), search.findAll(secret));
    }
    assertTrue(!search.findAll("billing-key-2").isEmpty(), "the search reads what the checks recorded");
  }

  @Test
  void anIrreversibleRotationWhoseOldKeyIsStillActiveWaitsForAnOperatorAndIsNeverRunAgain() throws Exception {
    Files.writeString(keys.resolve("payroll.json"), "{\"key_id\":\"payroll-key-1\"}");
    CallResult first = harness.gateway.call(call("payroll", "1"));
    String id = first.record().executionId();
    harness.skipTime(Duration.ofMinutes(2));
    ExecutionRecord review = await(id, r -> r.state() == ExecutionState.NEEDS_REVIEW);

    assertEquals(ExecutionRecord.Verification.NOT_APPLIED, review.verification().state());
    assertTrue(review.message().contains("its effect is absent"), review.message());
    ExecutionRecord.VerificationCheck check = review.verification().checks().get(review.verification().checks().size() - 1);
    assertEquals("not_applied", check.verdict());
    assertTrue(check.held().stream().anyMatch(h -> h.condition().equals("not_applied_when") && "\"payroll-key-1\"".equals(h.value())),
        check.held().toString());
    harness.skipTime(Duration.ofDays(1));
    CallResult retry = harness.gateway.call(call("payroll", "2"));
    assertEquals(id, retry.record().executionId());
    assertEquals(1, runs("payroll"), "one rotation, ever");
    assertEquals(1, dispatched.size());
    assertEquals(1, journalled(id, "not_applied").size());
  }
}
