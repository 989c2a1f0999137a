package io.onceport.activity.ssh;

import static io.onceport.activity.ssh.ExitWaiter.await;
import static io.onceport.activity.ssh.SshConnector.closeQuietly;
import static io.onceport.activity.ssh.SshConnector.openSession;

import io.onceport.activity.dispatch.DispatchChannel;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.dispatch.StatusResult.Verdict;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyEvaluator;
import io.onceport.workflow.verify.VerifyRequest;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.Session;

/**
 * Runs a contract's argv on a remote host over SSH (SSHJ) and, for {@code marker: true}
 * contracts, asks the remote marker helper what became of an execution.
 *
 * <p>Failure contract, in the order things happen: a bad template or host-key pin is
 * {@code INVALID_REQUEST}; an unusable key is {@code CREDENTIAL_UNAVAILABLE}; a host key other than
 * the pinned one is {@code HOST_KEY_MISMATCH} (non-retryable, nothing ran); any connection,
 * key-exchange, authentication or session-open failure is {@code NOT_SENT} (retryable: the exec
 * request was never sent, so the command cannot have started). {@link DispatchContext#beforeSend()}
 * runs right before the exec request; from then on a lost connection, a timeout or a missing exit
 * status is {@code OUTCOME_UNKNOWN} (non-retryable): the command may be running. With the marker,
 * the remote command is detached and keeps running, and {@link #queryStatus} reads its verdict
 * from the marker.
 *
 * <p>The observed outcome is the exit status (a death by signal N is reported as 128+N, as shells
 * do) with stdout and stderr, each capped at the first {@link DispatchResult#BODY_CAP} bytes
 * (decoded as UTF-8); {@code truncated} says either was cut. The rest is drained and dropped, so a
 * chatty command never blocks on a full channel window.
 *
 * <p>{@link #verify} runs a contract's {@code replay.verify.command} the same way, as a read: the
 * contract author vouches that it changes nothing (Onceport cannot tell), and any failure to get
 * its exit status is a retryable {@code NOT_SENT}, i.e. "not yet known" for the workflow.
 *
 * <p>Stateless: one instance serves every activity thread; each call opens and closes its own
 * connection ({@link SshConnector}) and waits for the exit status with {@link ExitWaiter}.
 */
public final class SshChannel implements DispatchChannel {
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** Used when a contract's {@code timeoutMillis} is 0 or negative. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMinutes(5);
  /** How long a status query may take once connected. */
  public static final Duration STATUS_TIMEOUT = Duration.ofSeconds(30);
  /**
   * How long a verification command may take once connected: a read such as {@code cat} or a
   * CLI's {@code show} answers in well under a second; a check that has not answered in 30 s is
   * "not yet known" and the next one comes on the schedule (30 s at the earliest), so checks never pile up.
   * With the connect bound (10 s) it stays inside the check activity's 60 s start-to-close timeout.
   */
  public static final Duration VERIFY_TIMEOUT = Duration.ofSeconds(30);

  private static final String HELPER_REFUSED = "onceport-run: refused:";
  private static final String HELPER_LOST = "onceport-run: lost:";
  private static final Map<String, Integer> EXPECTED_STATUS_EXIT =
      Map.of("finished", 0, "running", 10, "absent", 11, "lost", 12);

  private final Duration connectTimeout;
  private final Duration defaultCommandTimeout;
  private final Duration verifyTimeout;

  public SshChannel() {
    this(DEFAULT_CONNECT_TIMEOUT, DEFAULT_COMMAND_TIMEOUT);
  }

  /**
   * @param connectTimeout bound on TCP connect, key exchange and authentication
   * @param defaultCommandTimeout bound on a command when its contract sets no timeout
   */
  public SshChannel(Duration connectTimeout, Duration defaultCommandTimeout) {
    this(connectTimeout, defaultCommandTimeout, VERIFY_TIMEOUT);
  }

  /** As above, with the bound on a verification command ({@link #VERIFY_TIMEOUT} by default; tests shorten it). */
  SshChannel(Duration connectTimeout, Duration defaultCommandTimeout, Duration verifyTimeout) {
    this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout == null");
    this.defaultCommandTimeout = Objects.requireNonNull(defaultCommandTimeout, "defaultCommandTimeout == null");
    this.verifyTimeout = Objects.requireNonNull(verifyTimeout, "verifyTimeout == null");
    if (verifyTimeout.isNegative() || verifyTimeout.isZero()) {
      throw new IllegalArgumentException("Invalid verify timeout: " + verifyTimeout);
    }
    if (connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw new IllegalArgumentException("Invalid connect timeout: " + connectTimeout);
    }
    if (defaultCommandTimeout.isNegative() || defaultCommandTimeout.isZero()) {
      throw new IllegalArgumentException("Invalid command timeout: " + defaultCommandTimeout);
    }
  }

  @Override
  public DispatchResult dispatch(DispatchRequest request, DispatchContext context) {
    SshSpec spec = spec(request);
    List<String> argv = RemoteCommand.renderArgv(spec.command(), request.arguments(), request.executionId());
    if (spec.marker()) {
      argv = RemoteCommand.helperRun(spec, request.executionId(), argv);
    }
    String line = RemoteCommand.commandLine(spec.workingDir(), argv);
    Duration timeout = spec.timeoutMillis() > 0 ? Duration.ofMillis(spec.timeoutMillis()) : defaultCommandTimeout;

    SSHClient client = SshConnector.connect(spec, context, connectTimeout);
    try {
      Session session = openSession(client, spec);
      context.beforeSend();
      long started = System.nanoTime();
      Session.Command command;
      try {
        command = session.exec(line);
      } catch (IOException | RuntimeException e) {
        throw unknown("SSH exec request to " + target(spec) + " failed after it was sent: " + e.getMessage(), e);
      }
      Output output = await(client, command, timeout, context, spec);
      long elapsed = Duration.ofNanos(System.nanoTime() - started).toMillis();
      if (spec.marker() && output.exitStatus == 75 && output.stderr.startsWith(HELPER_REFUSED)) {
        throw unknown(request.executionId() + " already has a marker on " + target(spec)
            + ": the command was not started again; query its status", null);
      }
      if (spec.marker() && output.exitStatus == 76 && output.stderr.startsWith(HELPER_LOST)) {
        throw unknown("the marker helper on " + target(spec) + " lost " + request.executionId()
            + " without an exit status", null);
      }
      return DispatchResult.ssh(output.exitStatus, output.stdout, output.stderr, output.truncated, elapsed);
    } finally {
      closeQuietly(client);
    }
  }

  /**
   * Runs {@code <helper_path> status EXECUTION_ID} and maps the marker: finished with exit 0 →
   * COMPLETED, other exit → FAILED (the result carries the exit status, the detail says where the
   * output is kept), started and alive → RUNNING, absent → NOT_EXECUTED, supervisor gone without
   * an exit status → UNKNOWN. Without the marker the host cannot tell: UNKNOWN. Read-only, so any
   * failure to get an answer is a retryable {@code NOT_SENT}; a host-key mismatch is not retryable.
   */
  @Override
  public StatusResult queryStatus(DispatchRequest request, DispatchContext context) {
    SshSpec spec = spec(request);
    if (!spec.marker()) {
      return new StatusResult(Verdict.UNKNOWN, null,
          "the contract runs without marker: true, so " + target(spec) + " cannot tell whether the command ran");
    }
    String line = RemoteCommand.commandLine(null, RemoteCommand.helperStatus(spec, request.executionId()));
    SSHClient client = SshConnector.connect(spec, context, connectTimeout);
    Output output;
    try {
      Session session = openSession(client, spec);
      Session.Command command;
      try {
        command = session.exec(line);
      } catch (IOException | RuntimeException e) {
        throw ApplicationFailure.newFailureWithCause(
            "SSH status query to " + target(spec) + " failed: " + e.getMessage(), ErrorTypes.NOT_SENT, e);
      }
      output = await(client, command, STATUS_TIMEOUT, context, spec);
    } catch (ApplicationFailure e) {
      if (ErrorTypes.OUTCOME_UNKNOWN.equals(e.getType())) {
        throw ApplicationFailure.newFailureWithCause(
            "SSH status query to " + target(spec) + " got no answer: " + e.getOriginalMessage(), ErrorTypes.NOT_SENT, e);
      }
      throw e;
    } finally {
      closeQuietly(client);
    }
    return verdict(output, spec);
  }

  /**
   * One verification check ({@code replay.verify} of an ssh tool): the check's {@code command},
   * rendered and quoted as the tool's own command (same placeholders, working directory, pinned host
   * key, user and key), run directly (never through the marker helper: it is not the action), for at
   * most {@link #VERIFY_TIMEOUT}. The conditions' {@code status} lists the exit status; their
   * pointers read stdout parsed as JSON (stdout that is not JSON: pointer conditions are "not yet
   * known", a status-only condition still decides). Output is capped as a dispatch's. Only the
   * verdict, the exit status and what the pointers held come back; stderr never does. Any failure to
   * get an exit status is a retryable {@code NOT_SENT} ("not yet known"); a host key other than the
   * pinned one stays {@code HOST_KEY_MISMATCH}.
   */
  @Override
  public VerifyAnswer verify(VerifyRequest request, DispatchContext context) {
    ToolContract contract = request.contract();
    if (contract.channel() != ToolContract.Channel.SSH || contract.replay().verify().command() == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "tool " + contract.tool() + " has no ssh verification command", ErrorTypes.INVALID_REQUEST);
    }
    SshSpec spec = contract.ssh();
    VerifySpec verify = contract.replay().verify();
    String line = RemoteCommand.commandLine(spec.workingDir(),
        RemoteCommand.renderArgv(verify.command(), request.arguments(), request.executionId()));
    SSHClient client = SshConnector.connect(spec, context, connectTimeout);
    Output output;
    try {
      Session session = openSession(client, spec);
      context.heartbeat("verifying");
      Session.Command command;
      try {
        command = session.exec(line);
      } catch (IOException | RuntimeException e) {
        throw ApplicationFailure.newFailureWithCause(
            "SSH verification command on " + target(spec) + " failed: " + e.getMessage(), ErrorTypes.NOT_SENT, e);
      }
      output = await(client, command, verifyTimeout, context, spec);
    } catch (ApplicationFailure e) {
      if (ErrorTypes.OUTCOME_UNKNOWN.equals(e.getType())) {
        throw ApplicationFailure.newFailureWithCause(
            "SSH verification command on " + target(spec) + " got no answer: " + e.getOriginalMessage(), ErrorTypes.NOT_SENT, e);
      }
      throw e;
    } finally {
      closeQuietly(client);
    }
    VerifyAnswer answer = VerifyEvaluator.evaluate(verify, output.exitStatus, VerifyEvaluator.parse(output.stdout),
        request.verified(), request.notApplied());
    return output.truncated
        ? new VerifyAnswer(answer.verdict(), answer.status(), answer.held(), answer.detail() + " (output cut at "
            + DispatchResult.BODY_CAP + " bytes)")
        : answer;
  }

  static StatusResult verdict(Output output, SshSpec spec) {
    Map<String, String> fields = new HashMap<>();
    for (String l : output.stdout.split("\n")) {
      int eq = l.indexOf('=');
      if (eq > 0) {
        fields.putIfAbsent(l.substring(0, eq), l.substring(eq + 1).trim());
      }
    }
    String state = fields.getOrDefault("state", "");
    // A verdict counts only if the helper's exit code agrees with its state line: NOT_EXECUTED
    // allows a second dispatch, so garbage must never read as "absent".
    int expected = EXPECTED_STATUS_EXIT.getOrDefault(state, -1);
    if (expected != output.exitStatus) {
      state = "";
    }
    String where = spec.user() + "@" + spec.host() + ":" + fields.getOrDefault("output", "?");
    switch (state) {
      case "finished": {
        int exit;
        try {
          exit = Integer.parseInt(fields.getOrDefault("exit", ""));
        } catch (NumberFormatException e) {
          return new StatusResult(Verdict.UNKNOWN, null, "marker finished without a readable exit status at " + where);
        }
        String detail = "marker: finished with exit " + exit + " at " + fields.getOrDefault("finished", "?")
            + "; output in " + where + "/stdout and /stderr";
        return new StatusResult(exit == 0 ? Verdict.COMPLETED : Verdict.FAILED,
            DispatchResult.ssh(exit, "", "", false, 0), detail);
      }
      case "running":
        return new StatusResult(Verdict.RUNNING, null,
            "marker: running since " + fields.getOrDefault("started", "?") + " (pid " + fields.getOrDefault("pid", "?") + ")");
      case "absent":
        return new StatusResult(Verdict.NOT_EXECUTED, null, "marker: absent on " + target(spec) + "; the command never started");
      case "lost":
        return new StatusResult(Verdict.UNKNOWN, null, "marker: started at " + fields.getOrDefault("started", "?")
            + " but its supervisor vanished without an exit status (host restart?); see " + where);
      default:
        String first = output.stderr.lines().findFirst().orElse("");
        return new StatusResult(Verdict.UNKNOWN, null,
            "marker helper on " + target(spec) + " answered exit " + output.exitStatus + ": " + first);
    }
  }

  private static SshSpec spec(DispatchRequest request) {
    ToolContract contract = request.contract();
    if (contract.channel() != ToolContract.Channel.SSH) {
      throw ApplicationFailure.newNonRetryableFailure(
          "tool " + contract.tool() + " is not an ssh tool", ErrorTypes.INVALID_REQUEST);
    }
    return contract.ssh();
  }

  static ApplicationFailure unknown(String message, Throwable cause) {
    return ApplicationFailure.newNonRetryableFailureWithCause(message, ErrorTypes.OUTCOME_UNKNOWN, cause);
  }

  static String target(SshSpec spec) {
    return spec.host() + ":" + spec.port();
  }

  record Output(int exitStatus, String stdout, String stderr, boolean truncated) {}

}
