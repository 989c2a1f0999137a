package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.dispatch.StatusResult.Verdict;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The SSH channel's behaviour against one real SSH server on 127.0.0.1; subclasses pick the server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class SshChannelScenarios {
  @TempDir Path tmp;
  KeyPair clientKey;
  KeyPair rsaKey;
  KeyPair bcKey;
  SshServer server;
  SshFixture fixture;
  final SshChannel channel = new SshChannel(Duration.ofSeconds(5), Duration.ofSeconds(20));
  final RecordingContext context = new RecordingContext();
  private final ExecutorService executor = Executors.newCachedThreadPool();

  /** Starts a server that authorizes {@code authorized} for the fixture's user. */
  abstract SshServer start(List<KeyPair> authorized, Path dir) throws Exception;

  @BeforeEach
  void startServer() throws Exception {
    clientKey = TestKeys.ec();
    rsaKey = TestKeys.rsa();
    bcKey = TestKeys.ecFromBouncyCastle();
    Path serverDir = Files.createDirectories(tmp.resolve("server"));
    server = start(List.of(clientKey, rsaKey, bcKey), serverDir);
    Path keyFile = tmp.resolve("id_ecdsa");
    Files.writeString(keyFile, TestKeys.openSshPrivateKey(clientKey));
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    fixture = new SshFixture(server.port(), server.user(), server.hostKeyFingerprint(), keyFile,
        SshFixture.installHelper(tmp), tmp.resolve("state"));
  }

  @AfterEach
  void stopServer() throws Exception {
    executor.shutdownNow();
    if (server != null) { // null when start() was skipped (no sshd outside CI): the skip stays a skip
      server.close();
    }
  }

  /**
   * sh -c: appends "start" to startedFile, sleeps, writes to stdout and stderr (which kills it with
   * SIGPIPE if its output still went to a dropped session), then appends "ran" to runsFile.
   */
  static List<String> startThenRun(String startedFile, String runsFile, int sleepSeconds) {
    return List.of("/bin/sh", "-c", "echo start >> \"$1\"; sleep " + sleepSeconds
            + "; echo progress; echo progress >&2; echo ran >> \"$2\"; echo finished",
        "sh", startedFile, runsFile);
  }

  private static List<String> lines(Path file) throws Exception {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }

  private static void awaitFile(Path file) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a forked worker JVM on a busy 2-core host
    while (!Files.exists(file)) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + file);
      Thread.sleep(20);
    }
  }

  private StatusResult awaitSettled(SshSpec spec, String id) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a forked worker JVM on a busy 2-core host
    while (true) {
      StatusResult status = channel.queryStatus(SshFixture.request(spec, "{}", id), context);
      if (status.verdict() != Verdict.RUNNING) {
        return status;
      }
      assertTrue(System.nanoTime() < deadline, "still running: " + status.detail());
      Thread.sleep(200);
    }
  }

  private static ApplicationFailure failure(Future<?> future) throws Exception {
    ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof ApplicationFailure, String.valueOf(e.getCause()));
    return (ApplicationFailure) e.getCause();
  }

  @Test
  void commandExitingZeroReturnsItsStdout() {
    SshSpec spec = fixture.spec(List.of("/bin/sh", "-c", "printf 'hello %s' \"$1\"", "sh", "{{name}}"), false);

    DispatchResult result = channel.dispatch(SshFixture.request(spec, "{\"name\":\"world\"}", SshFixture.newExecutionId()), context);

    assertEquals(0, result.exitStatus());
    assertEquals("hello world", result.body());
    assertEquals("", result.stderr());
    assertFalse(result.truncated());
    assertTrue(result.succeeded());
    assertNull(result.status());
    assertEquals(1, context.beforeSend.get());
  }

  @Test
  void exitStatusThreeIsTheObservedOutcome() {
    SshSpec spec = fixture.spec(List.of("/bin/sh", "-c", "echo partial; echo broken >&2; exit 3"), false);

    DispatchResult result = channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context);

    assertEquals(3, result.exitStatus());
    assertEquals("partial\n", result.body());
    assertEquals("broken\n", result.stderr());
    assertFalse(result.succeeded());
  }

  @Test
  void commandThroughTheMarkerReturnsItsOutputAndExitStatus() throws Exception {
    SshSpec spec = fixture.spec(List.of("/bin/sh", "-c", "echo out; echo err >&2; exit 4"), true);
    String id = SshFixture.newExecutionId();

    DispatchResult result = channel.dispatch(SshFixture.request(spec, "{}", id), context);

    assertEquals(4, result.exitStatus());
    assertEquals("out\n", result.body());
    assertEquals("err\n", result.stderr());
    StatusResult status = channel.queryStatus(SshFixture.request(spec, "{}", id), context);
    assertEquals(Verdict.FAILED, status.verdict());
    assertEquals(4, status.result().exitStatus());
    assertTrue(status.detail().startsWith("marker: finished with exit 4 at "), status.detail());
    assertTrue(status.detail().endsWith(":" + fixture.stateDir.resolve(id) + "/stdout and /stderr"), status.detail());
    assertEquals("out\n", Files.readString(fixture.stateDir.resolve(id).resolve("stdout")));
  }

  @Test
  void metacharacterArgumentsArriveAsOneLiteralArgumentEach() throws Exception {
    for (boolean marker : new boolean[] {false, true}) {
      Path workDir = Files.createDirectories(tmp.resolve("work-" + marker));
      Path argvFile = tmp.resolve("argv-" + marker);
      List<String> values = List.of("; rm -rf /", "it's \"quoted\" '' \\'", "line1\nline2\n", "$(touch pwned)",
          "`touch pwned2`", "*", "  spaced  ", "", "\\back\\slash", "{{b}}", "$HOME ${PATH} $1", "a|b&c>d<e", "ünïcødé ☃");
      List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
          "for a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$0\"", argvFile.toString()));
      StringBuilder args = new StringBuilder("{");
      for (int i = 0; i < values.size(); i++) {
        command.add("{{a" + i + "}}");
        args.append(i == 0 ? "" : ",").append("\"a").append(i).append("\":")
            .append(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(values.get(i)));
      }
      args.append("}");
      SshSpec base = fixture.spec(command, marker);
      SshSpec spec = new SshSpec(base.host(), base.port(), base.user(), base.hostKey(), null, base.keyFile(), command,
          workDir.toString(), marker, base.helperPath(), base.stateDir(), base.timeoutMillis());

      DispatchResult result = channel.dispatch(SshFixture.request(spec, args.toString(), SshFixture.newExecutionId()), context);

      assertEquals(0, result.exitStatus(), result.stderr());
      String written = Files.readString(argvFile, StandardCharsets.UTF_8);
      List<String> received = Arrays.asList(written.substring(0, written.length() - 1).split("\0", -1));
      assertEquals(values, received);
      assertFalse(Files.exists(workDir.resolve("pwned")));
      assertFalse(Files.exists(workDir.resolve("pwned2")));
    }
  }

  @Test
  void wrongPinnedHostKeyFailsWithHostKeyMismatchAndNothingRuns() throws Exception {
    Path ran = tmp.resolve("ran");
    String wrong = TestKeys.fingerprint(TestKeys.ec());
    SshSpec spec = SshFixture.with(fixture.spec(List.of("/usr/bin/touch", ran.toString()), false), fixture.port, wrong);

    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context));

    assertEquals(ErrorTypes.HOST_KEY_MISMATCH, e.getType());
    assertTrue(e.isNonRetryable());
    assertEquals("host key of 127.0.0.1:" + fixture.port + " is " + fixture.hostKey + ", not the pinned " + wrong
        + "; refusing to connect", e.getOriginalMessage());
    assertEquals(0, context.beforeSend.get());
    Thread.sleep(300);
    assertFalse(Files.exists(ran));
  }

  @Test
  void journalFailureBeforeSendStopsTheCommandFromBeingSent() throws Exception {
    Path ran = tmp.resolve("ran");
    SshSpec spec = fixture.spec(List.of("/usr/bin/touch", ran.toString()), true);
    String id = SshFixture.newExecutionId();
    RecordingContext journalDown = new RecordingContext() {
      @Override
      public void beforeSend() {
        throw ApplicationFailure.newFailure("journal down", ErrorTypes.JOURNAL_UNAVAILABLE);
      }
    };

    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(spec, "{}", id), journalDown));

    assertEquals(ErrorTypes.JOURNAL_UNAVAILABLE, e.getType());
    Thread.sleep(300);
    assertFalse(Files.exists(ran));
    assertEquals(Verdict.NOT_EXECUTED, channel.queryStatus(SshFixture.request(spec, "{}", id), context).verdict());
  }

  @Test
  void pinnedHostKeyWithBase64PaddingStillMatches() {
    SshSpec spec = SshFixture.with(fixture.spec(List.of("/bin/echo", "ok"), false), fixture.port, fixture.hostKey + "=");

    assertEquals("ok\n", channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context).body());
  }

  @Test
  void connectionRefusedIsNotSentAndRetryable() throws Exception {
    int closed = OpenSshServer.freePort();
    SshSpec spec = SshFixture.with(fixture.spec(List.of("/bin/true"), false), closed, fixture.hostKey);

    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context));

    assertEquals(ErrorTypes.NOT_SENT, e.getType());
    assertFalse(e.isNonRetryable());
    assertTrue(e.getOriginalMessage().startsWith("SSH connection to 127.0.0.1:" + closed + " failed: "), e.getOriginalMessage());
    assertEquals(0, context.beforeSend.get());
  }

  @Test
  void unauthorizedKeyIsNotSent() throws Exception {
    Path other = tmp.resolve("other_key");
    Files.writeString(other, TestKeys.openSshPrivateKey(TestKeys.ec()));
    SshSpec base = fixture.spec(List.of("/bin/true"), false);
    SshSpec spec = new SshSpec(base.host(), base.port(), base.user(), base.hostKey(), null, other.toString(),
        base.command(), null, false, null, null, 5_000);

    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context));

    assertEquals(ErrorTypes.NOT_SENT, e.getType());
    assertTrue(e.getOriginalMessage().startsWith("SSH authentication as " + fixture.user + " to 127.0.0.1:"), e.getOriginalMessage());
    assertEquals(0, context.beforeSend.get());
  }

  @Test
  void privateKeyFromTheVaultAuthenticatesInOpenSshPkcs8AndTraditionalPemForms() throws Exception {
    for (String secret : List.of(TestKeys.openSshPrivateKey(clientKey), TestKeys.openSshPrivateKey(rsaKey),
        TestKeys.pkcs8PrivateKey(rsaKey), TestKeys.pkcs8PrivateKey(clientKey),
        TestKeys.traditionalPem(rsaKey), TestKeys.traditionalPem(bcKey))) {
      RecordingContext vault = new RecordingContext(
          Map.of("deploy-ssh", new Credential("deploy-ssh", Credential.Type.SSH_KEY, null, null, secret)));
      SshSpec base = fixture.spec(List.of("/bin/echo", "vault"), false);
      SshSpec spec = new SshSpec(base.host(), base.port(), base.user(), base.hostKey(), "deploy-ssh", null,
          base.command(), null, false, null, null, 5_000);

      assertEquals("vault\n", channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), vault).body(),
          secret.lines().findFirst().orElse(""));
    }
  }

  @Test
  void unreadableVaultKeyIsCredentialUnavailableWithoutEchoingIt() {
    String secret = "-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-key-SECRET\n-----END OPENSSH PRIVATE KEY-----\n";
    RecordingContext vault = new RecordingContext(
        Map.of("deploy-ssh", new Credential("deploy-ssh", Credential.Type.SSH_KEY, null, null, secret)));
    SshSpec base = fixture.spec(List.of("/bin/true"), false);
    SshSpec spec = new SshSpec(base.host(), base.port(), base.user(), base.hostKey(), "deploy-ssh", null,
        base.command(), null, false, null, null, 5_000);

    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), vault));

    assertEquals(ErrorTypes.CREDENTIAL_UNAVAILABLE, e.getType());
    assertTrue(e.isNonRetryable());
    assertEquals("credential deploy-ssh does not hold a readable unencrypted private key", e.getOriginalMessage());
    assertNull(e.getCause());
    assertEquals(0, vault.beforeSend.get());
  }

  @Test
  void stdoutBeyondTheCapIsTruncated() {
    SshSpec spec = fixture.spec(List.of("/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' a; echo tail >&2"), false);

    DispatchResult result = channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context);

    assertEquals(0, result.exitStatus());
    assertEquals(DispatchResult.BODY_CAP, result.body().length());
    assertEquals("tail\n", result.stderr());
    assertTrue(result.truncated());
  }

  @Test
  void commandOutlivingItsTimeoutIsOutcomeUnknown() {
    SshSpec base = fixture.spec(List.of("/bin/sleep", "5"), false);
    SshSpec spec = new SshSpec(base.host(), base.port(), base.user(), base.hostKey(), null, base.keyFile(),
        base.command(), null, false, null, null, 1_500);

    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, e.getType());
    assertTrue(e.isNonRetryable());
    assertEquals("no exit status from 127.0.0.1:" + fixture.port + " within 1500 ms", e.getOriginalMessage());
    assertEquals(1, context.beforeSend.get());
    assertTrue(context.heartbeats.get() >= 2, "heartbeats: " + context.heartbeats.get());
  }

  @Test
  void markerReportsRunningWhileTheCommandRunsThenCompleted() throws Exception {
    Path started = tmp.resolve("started");
    Path runs = tmp.resolve("runs");
    SshSpec spec = fixture.spec(startThenRun(started.toString(), runs.toString(), 2), true);
    String id = SshFixture.newExecutionId();

    Future<DispatchResult> dispatch = executor.submit(() -> channel.dispatch(SshFixture.request(spec, "{}", id), context));
    awaitFile(started);
    StatusResult running = channel.queryStatus(SshFixture.request(spec, "{}", id), new RecordingContext());

    assertEquals(Verdict.RUNNING, running.verdict());
    assertTrue(running.detail().startsWith("marker: running since 20"), running.detail());
    assertEquals("progress\nfinished\n", dispatch.get(30, TimeUnit.SECONDS).body());
    StatusResult done = channel.queryStatus(SshFixture.request(spec, "{}", id), context);
    assertEquals(Verdict.COMPLETED, done.verdict());
    assertEquals(0, done.result().exitStatus());
  }

  @Test
  void statusOfAnExecutionThatNeverStartedIsNotExecuted() {
    SshSpec spec = fixture.spec(List.of("/bin/true"), true);

    StatusResult status = channel.queryStatus(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context);

    assertEquals(Verdict.NOT_EXECUTED, status.verdict());
    assertNull(status.result());
    assertEquals("marker: absent on 127.0.0.1:" + fixture.port + "; the command never started", status.detail());
  }

  @Test
  void statusFromAMissingHelperIsUnknown() {
    SshSpec base = fixture.spec(List.of("/bin/true"), true);
    SshSpec spec = new SshSpec(base.host(), base.port(), base.user(), base.hostKey(), null, base.keyFile(),
        base.command(), null, true, tmp.resolve("no-such-helper").toString(), base.stateDir(), 5_000);

    StatusResult status = channel.queryStatus(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context);

    assertEquals(Verdict.UNKNOWN, status.verdict());
    assertTrue(status.detail().startsWith("marker helper on 127.0.0.1:" + fixture.port + " answered exit 127: "),
        status.detail());
  }

  @Test
  void statusWithoutMarkerIsUnknown() {
    SshSpec spec = fixture.spec(List.of("/bin/true"), false);

    StatusResult status = channel.queryStatus(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context);

    assertEquals(Verdict.UNKNOWN, status.verdict());
    assertEquals("the contract runs without marker: true, so 127.0.0.1:" + fixture.port
        + " cannot tell whether the command ran", status.detail());
  }

  @Test
  void connectionCutAfterStartLeavesOneRunThatTheMarkerResolvesAndARetryRefuses() throws Exception {
    Path started = tmp.resolve("started");
    Path runs = tmp.resolve("runs");
    SshSpec direct = fixture.spec(startThenRun(started.toString(), runs.toString(), 3), true);
    String id = SshFixture.newExecutionId();
    try (TcpProxy proxy = new TcpProxy(fixture.port)) {
      SshSpec viaProxy = SshFixture.with(direct, proxy.port(), fixture.hostKey);
      Future<DispatchResult> dispatch = executor.submit(() -> channel.dispatch(SshFixture.request(viaProxy, "{}", id), context));
      awaitFile(started);

      proxy.cut();

      ApplicationFailure e = failure(dispatch);
      assertEquals(ErrorTypes.OUTCOME_UNKNOWN, e.getType());
      assertTrue(e.isNonRetryable());
      assertEquals(List.of(), lines(runs), "the command must still be running when the client gives up");
    }

    StatusResult status = awaitSettled(direct, id);
    assertEquals(Verdict.COMPLETED, status.verdict());
    assertEquals(0, status.result().exitStatus());
    assertEquals(List.of("ran"), lines(runs));

    ApplicationFailure again = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(direct, "{}", id), context));
    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, again.getType());
    assertEquals(id + " already has a marker on 127.0.0.1:" + fixture.port
        + ": the command was not started again; query its status", again.getOriginalMessage());
    assertEquals(List.of("start"), lines(started));
    assertEquals(List.of("ran"), lines(runs));
  }

  @Test
  void workerKilledMidCommandLeavesTheCommandToFinishOnceAndTheMarkerResolvesIt() throws Exception {
    Path started = tmp.resolve("started");
    Path runs = tmp.resolve("runs");
    String id = SshFixture.newExecutionId();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path log = tmp.resolve("child.log");
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        SshDispatchChild.class.getName(), String.valueOf(fixture.port), fixture.user, fixture.hostKey,
        fixture.keyFile.toString(), fixture.helper.toString(), fixture.stateDir.toString(), id,
        started.toString(), runs.toString())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    try {
      awaitFile(started);
      assertTrue(child.isAlive(), Files.readString(log));

      child.destroyForcibly();
      assertTrue(child.waitFor(10, TimeUnit.SECONDS));
      assertEquals(137, child.exitValue());
      assertEquals(List.of(), lines(runs), "the command must still be running when the worker dies");
    } finally {
      child.destroyForcibly();
    }

    SshSpec spec = fixture.spec(startThenRun(started.toString(), runs.toString(), 3), true);
    StatusResult status = awaitSettled(spec, id);
    assertEquals(Verdict.COMPLETED, status.verdict(), status.detail());
    assertEquals(List.of("ran"), lines(runs));
    ApplicationFailure again = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(spec, "{}", id), context));
    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, again.getType());
    assertEquals(List.of("start"), lines(started));
    assertEquals(List.of("ran"), lines(runs));
    assertNotNull(Files.readString(fixture.stateDir.resolve(id).resolve("finished")));
  }
}
