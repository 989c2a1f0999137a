package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onceport.activity.vault.Credential;
import io.onceport.testing.SecretSearch;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifyCondition;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyAnswer.Held;
import io.onceport.workflow.verify.VerifyAnswer.Verdict;
import io.onceport.workflow.verify.VerifyRequest;
import io.onceport.workflow.verify.VerifyRequest.Expectation;
import io.temporal.common.converter.DataConverter;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay.verify} of an ssh tool against OpenSSH's {@code sshd} on 127.0.0.1: the check's
 * command is rendered and quoted as the tool's own, run over the tool's pinned, key-authenticated
 * connection, and judged by its exit status and its stdout read as JSON. The "host" is this machine:
 * the rotated key's state is a file under the test's directory that the check command reads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SshVerifyTest {
  private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"service\":{\"type\":\"string\"}}}";
  private static final VerifyCondition NEW_KEY = new VerifyCondition(List.of(0), "/key_id", "/new_key_id", null, null);
  private static final VerifyCondition OLD_KEY = new VerifyCondition(List.of(0), "/key_id", "/old_key_id", null, null);
  private static final Expectation EXPECT_NEW = new Expectation("\"billing-key-2\"", "result /new_key_id", null);
  private static final Expectation EXPECT_OLD = new Expectation("\"billing-key-1\"", "result /old_key_id", null);

  @TempDir Path tmp;
  private KeyPair clientKey;
  private OpenSshServer server;
  private SshFixture fixture;
  private Path keys;
  private final SshChannel channel = new SshChannel(Duration.ofSeconds(5), Duration.ofSeconds(20), Duration.ofSeconds(2));
  private final RecordingContext context = new RecordingContext();

  @BeforeEach
  void startServer() throws Exception {
    assumeTrue(OpenSshServer.available(), "/usr/sbin/sshd not installed (apt-get install openssh-server)");
    clientKey = TestKeys.ec();
    server = new OpenSshServer(List.of(clientKey), Files.createDirectories(tmp.resolve("server")));
    Path keyFile = tmp.resolve("id_ecdsa");
    Files.writeString(keyFile, TestKeys.openSshPrivateKey(clientKey));
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    fixture = new SshFixture(server.port(), server.user(), server.hostKeyFingerprint(), keyFile,
        SshFixture.installHelper(tmp), tmp.resolve("state"));
    keys = Files.createDirectories(tmp.resolve("keys"));
  }

  @AfterEach
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** The active key of {@code service} on the "host", as the check command will print it. */
  private void active(String service, String json) throws Exception {
    Files.writeString(keys.resolve(service + ".json"), json);
  }

  /**
   * A rotation tool whose check prints the service's active key: {@code cat <keys>/{{service}}.json},
   * after writing which execution asked (so the test sees {@code {{execution_id}}} rendered).
   */
  private ToolContract rotate(SshSpec ssh, VerifyCondition verifiedWhen, VerifyCondition notAppliedWhen) {
    VerifySpec verify = VerifySpec.newBuilder()
        .setSsh(List.of("/bin/sh", "-c", "echo \"$2\" > \"$1.asked\"; cat \"$1.json\"", "sh", keys + "/{{service}}", "{{execution_id}}"))
        .setVerifiedWhen(verifiedWhen)
        .setNotAppliedWhen(notAppliedWhen)
        .build();
    return contract(ssh, verify);
  }

  private static ToolContract contract(SshSpec ssh, VerifySpec verify) {
    return new ToolContract("rotate_host_credential", "", SCHEMA, null, ToolContract.Channel.SSH, null, ssh,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null, verify), List.of(), List.of());
  }

  private static VerifyRequest check(ToolContract contract, String service, String executionId, Expectation verified,
      Expectation notApplied) {
    return new VerifyRequest(executionId, "hmac-sha256:ab", contract, "{\"service\":\"" + service + "\"}", 1, verified, notApplied);
  }

  private SshSpec ssh() {
    return fixture.spec(List.of("/usr/local/bin/rotate-key", "{{service}}"), true);
  }

  @Test
  void verifiedWhenTheCommandsOutputShowsTheNewKey() throws Exception {
    active("billing", "{\"service\":\"billing\",\"key_id\":\"billing-key-2\"}\n");
    String id = SshFixture.newExecutionId();

    VerifyAnswer answer = channel.verify(check(rotate(ssh(), NEW_KEY, OLD_KEY), "billing", id, EXPECT_NEW, EXPECT_OLD), context);

    assertEquals(Verdict.VERIFIED, answer.verdict(), answer.detail());
    assertEquals(0, answer.status());
    assertEquals(List.of(new Held("verified_when", "/key_id", "\"billing-key-2\"", "\"billing-key-2\""),
        new Held("not_applied_when", "/key_id", "\"billing-key-2\"", "\"billing-key-1\"")), answer.held());
    assertEquals("the answer (0) matches verified_when (status [0], /key_id = result /new_key_id)", answer.detail());
    assertEquals(id + "\n", Files.readString(keys.resolve("billing.asked")), "{{execution_id}} and {{service}} rendered");
    assertEquals(0, context.beforeSend.get(), "a check is never a send");
    assertFalse(Files.exists(fixture.stateDir.resolve(id)), "not run through the marker helper: it is not the action");
  }

  @Test
  void notAppliedWhenTheOldKeyIsStillActive() throws Exception {
    active("billing", "{\"key_id\":\"billing-key-1\"}");

    VerifyAnswer answer = channel.verify(
        check(rotate(ssh(), NEW_KEY, OLD_KEY), "billing", SshFixture.newExecutionId(), EXPECT_NEW, EXPECT_OLD), context);

    assertEquals(Verdict.NOT_APPLIED, answer.verdict(), answer.detail());
    assertEquals("the answer (0) matches not_applied_when (status [0], /key_id = result /old_key_id)", answer.detail());
  }

  @Test
  void anExitStatusOutsideTheListsIsNotYetKnownAndAStatusOnlyConditionDecidesAlone() throws Exception {
    // No key file: cat exits 1.
    VerifyAnswer missing = channel.verify(
        check(rotate(ssh(), NEW_KEY, OLD_KEY), "payroll", SshFixture.newExecutionId(), EXPECT_NEW, EXPECT_OLD), context);
    assertEquals(Verdict.NOT_YET_KNOWN, missing.verdict());
    assertEquals(1, missing.status());
    assertEquals("not yet known: verified_when: status 1 is not in [0]; not_applied_when: status 1 is not in [0]", missing.detail());

    // A status-only not_applied_when: exit 1 (no such key file) proves the rotation absent.
    VerifyAnswer absent = channel.verify(check(rotate(ssh(), NEW_KEY, VerifyCondition.status(List.of(1))), "payroll",
        SshFixture.newExecutionId(), EXPECT_NEW, null), context);
    assertEquals(Verdict.NOT_APPLIED, absent.verdict(), absent.detail());
  }

  @Test
  void stdoutThatIsNotJsonLeavesPointerConditionsNotYetKnownButAStatusOnlyConditionStillWorks() throws Exception {
    active("billing", "key_id=billing-key-2\n");
    VerifyAnswer text = channel.verify(
        check(rotate(ssh(), NEW_KEY, OLD_KEY), "billing", SshFixture.newExecutionId(), EXPECT_NEW, EXPECT_OLD), context);
    assertEquals(Verdict.NOT_YET_KNOWN, text.verdict());
    assertEquals("not yet known: verified_when: the answer is not JSON; not_applied_when: the answer is not JSON", text.detail());
    assertEquals(List.of(new Held("verified_when", "/key_id", null, "\"billing-key-2\""),
        new Held("not_applied_when", "/key_id", null, "\"billing-key-1\"")), text.held());

    VerifyAnswer statusOnly = channel.verify(check(rotate(ssh(), VerifyCondition.status(List.of(0)), null), "billing",
        SshFixture.newExecutionId(), null, null), context);
    assertEquals(Verdict.VERIFIED, statusOnly.verdict(), statusOnly.detail());

    // Output past the channel's cap is cut (and drained): not JSON any more, and the record says so.
    VerifySpec chatty = VerifySpec.newBuilder()
        .setSsh(List.of("/bin/sh", "-c", "printf '{\"key_id\":\"'; head -c 300000 /dev/zero | tr '\\0' a; printf '\"}'"))
        .setVerifiedWhen(NEW_KEY).build();
    VerifyAnswer cut = channel.verify(check(contract(ssh(), chatty), "billing", SshFixture.newExecutionId(), EXPECT_NEW, null), context);
    assertEquals(Verdict.NOT_YET_KNOWN, cut.verdict());
    assertTrue(cut.detail().endsWith("(output cut at 262144 bytes)"), cut.detail());
  }

  @Test
  void aRefusedConnectionOrACommandThatDoesNotAnswerIsARetryableNotSent() throws Exception {
    int closed = OpenSshServer.freePort();
    ToolContract refused = rotate(SshFixture.with(ssh(), closed, fixture.hostKey), NEW_KEY, OLD_KEY);
    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.verify(check(refused, "billing", SshFixture.newExecutionId(), EXPECT_NEW, EXPECT_OLD), context));
    assertEquals(ErrorTypes.NOT_SENT, e.getType());
    assertFalse(e.isNonRetryable());
    assertTrue(e.getOriginalMessage().startsWith("SSH connection to 127.0.0.1:" + closed + " failed: "), e.getOriginalMessage());

    VerifySpec slow = VerifySpec.newBuilder().setSsh(List.of("/bin/sleep", "20")).setVerifiedWhen(VerifyCondition.status(List.of(0)))
        .build();
    long started = System.nanoTime();
    ApplicationFailure timedOut = assertThrows(ApplicationFailure.class,
        () -> channel.verify(check(contract(ssh(), slow), "billing", SshFixture.newExecutionId(), null, null), context));
    assertEquals(ErrorTypes.NOT_SENT, timedOut.getType());
    assertFalse(timedOut.isNonRetryable());
    assertEquals("SSH verification command on 127.0.0.1:" + fixture.port + " got no answer: no exit status from 127.0.0.1:"
        + fixture.port + " within 2000 ms", timedOut.getOriginalMessage());
    assertTrue(Duration.ofNanos(System.nanoTime() - started).toSeconds() < 15, "bounded by the check's timeout");
  }

  @Test
  void aHostKeyOtherThanThePinnedOneRunsNothing() throws Exception {
    active("billing", "{\"key_id\":\"billing-key-2\"}");
    String wrong = TestKeys.fingerprint(TestKeys.ec());
    ToolContract pinnedElsewhere = rotate(SshFixture.with(ssh(), fixture.port, wrong), NEW_KEY, OLD_KEY);

    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.verify(check(pinnedElsewhere, "billing", SshFixture.newExecutionId(), EXPECT_NEW, EXPECT_OLD), context));

    assertEquals(ErrorTypes.HOST_KEY_MISMATCH, e.getType());
    assertFalse(Files.exists(keys.resolve("billing.asked")), "the command never ran");
  }

  @Test
  void theClientKeyFromTheVaultNeverReachesWhatACheckRecords() throws Exception {
    String pem = TestKeys.openSshPrivateKey(clientKey);
    RecordingContext vault = new RecordingContext(
        Map.of("deploy-ssh", new Credential("deploy-ssh", Credential.Type.SSH_KEY, null, null, pem)));
    SshSpec base = ssh();
    SshSpec withVault = new SshSpec(base.host(), base.port(), base.user(), base.hostKey(), "deploy-ssh", null, base.command(),
        null, true, base.helperPath(), base.stateDir(), 5_000);
    // The check command prints on stderr too (never kept) and the answer holds a value the pointer reads.
    VerifySpec noisy = VerifySpec.newBuilder()
        .setSsh(List.of("/bin/sh", "-c", "echo stderr-is-never-kept >&2; cat \"$1\"", "sh", keys + "/{{service}}.json"))
        .setVerifiedWhen(NEW_KEY).build();
    active("billing", "{\"key_id\":\"billing-key-2\"}");
    List<Object> recorded = new ArrayList<>();
    recorded.add(channel.verify(check(contract(withVault, noisy), "billing", SshFixture.newExecutionId(), EXPECT_NEW, null), vault));
    // A failing check: its message is what the record keeps.
    SshSpec unreachable = SshFixture.with(withVault, OpenSshServer.freePort(), fixture.hostKey);
    recorded.add(assertThrows(ApplicationFailure.class, () -> channel.verify(
        check(contract(unreachable, noisy), "billing", SshFixture.newExecutionId(), EXPECT_NEW, null), vault)).getOriginalMessage());
    assertEquals(Verdict.VERIFIED, ((VerifyAnswer) recorded.get(0)).verdict());

    SecretSearch search = new SecretSearch();
    DataConverter converter = DataConverter.getDefaultInstance();
    search.add("answer", converter.toPayload(recorded.get(0)).orElseThrow().getData().toByteArray());
    search.add("failure", ((String) recorded.get(1)).getBytes(StandardCharsets.UTF_8));
    for (byte[] secret : SecretSearch.pemSecrets(pem)) {
      assertEquals(List.of(), search.findAll(secret));
    }
    assertEquals(List.of(), search.findAll("stderr-is-never-kept"));
    assertEquals(List.of("answer"), search.findAll("billing-key-2"), "the search reads what the check recorded");
  }
}
