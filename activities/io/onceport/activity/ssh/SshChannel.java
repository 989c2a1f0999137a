package io.onceport.activity.ssh;

import io.onceport.activity.dispatch.DispatchChannel;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.dispatch.StatusResult.Verdict;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import net.schmizz.keepalive.KeepAliveProvider;
import net.schmizz.sshj.DefaultConfig;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.Session;
import net.schmizz.sshj.connection.channel.direct.Signal;
import net.schmizz.sshj.userauth.keyprovider.KeyProvider;

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
 * <p>Stateless: one instance serves every activity thread; each call opens and closes its own
 * connection.
 */
public final class SshChannel implements DispatchChannel {
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** Used when a contract's {@code timeoutMillis} is 0 or negative. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMinutes(5);
  /** How long a status query may take once connected. */
  public static final Duration STATUS_TIMEOUT = Duration.ofSeconds(30);

  private static final long HEARTBEAT_NANOS = Duration.ofSeconds(1).toNanos();
  private static final String HELPER_REFUSED = "onceport-run: refused:";
  private static final String HELPER_LOST = "onceport-run: lost:";
  private static final Map<String, Integer> EXPECTED_STATUS_EXIT =
      Map.of("finished", 0, "running", 10, "absent", 11, "lost", 12);

  private final Duration connectTimeout;
  private final Duration defaultCommandTimeout;

  public SshChannel() {
    this(DEFAULT_CONNECT_TIMEOUT, DEFAULT_COMMAND_TIMEOUT);
  }

  /**
   * @param connectTimeout bound on TCP connect, key exchange and authentication
   * @param defaultCommandTimeout bound on a command when its contract sets no timeout
   */
  public SshChannel(Duration connectTimeout, Duration defaultCommandTimeout) {
    this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout == null");
    this.defaultCommandTimeout = Objects.requireNonNull(defaultCommandTimeout, "defaultCommandTimeout == null");
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

    SSHClient client = connect(spec, context);
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
    SSHClient client = connect(spec, context);
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

  private SSHClient connect(SshSpec spec, DispatchContext context) {
    PinnedHostKeyVerifier verifier = new PinnedHostKeyVerifier(spec.hostKey());
    if (!verifier.valid()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "host_key of " + target(spec) + " must be an OpenSSH SHA256 fingerprint (SHA256:...)", ErrorTypes.INVALID_REQUEST);
    }
    DefaultConfig config = new DefaultConfig();
    config.setKeepAliveProvider(KeepAliveProvider.KEEP_ALIVE);
    SSHClient client = new SSHClient(config);
    try {
      KeyProvider keys = keys(client, spec, context);
      client.addHostKeyVerifier(verifier);
      client.setConnectTimeout((int) connectTimeout.toMillis());
      client.getTransport().setTimeoutMs((int) connectTimeout.toMillis());
      context.heartbeat("ssh: connecting");
      try {
        client.connect(spec.host(), spec.port());
      } catch (IOException | RuntimeException e) {
        if (verifier.rejected() != null) {
          throw ApplicationFailure.newNonRetryableFailure("host key of " + target(spec) + " is " + verifier.rejected()
              + ", not the pinned " + verifier.pinned() + "; refusing to connect", ErrorTypes.HOST_KEY_MISMATCH);
        }
        throw ApplicationFailure.newFailureWithCause(
            "SSH connection to " + target(spec) + " failed: " + e.getMessage(), ErrorTypes.NOT_SENT, e);
      }
      client.getConnection().getKeepAlive().setKeepAliveInterval(15);
      try {
        client.authPublickey(spec.user(), keys);
      } catch (IOException | RuntimeException e) {
        throw ApplicationFailure.newFailureWithCause(
            "SSH authentication as " + spec.user() + " to " + target(spec) + " failed: " + e.getMessage(), ErrorTypes.NOT_SENT, e);
      }
      return client;
    } catch (RuntimeException e) {
      closeQuietly(client);
      throw e;
    }
  }

  private static Session openSession(SSHClient client, SshSpec spec) {
    try {
      return client.startSession();
    } catch (IOException | RuntimeException e) {
      throw ApplicationFailure.newFailureWithCause(
          "SSH session to " + target(spec) + " could not be opened: " + e.getMessage(), ErrorTypes.NOT_SENT, e);
    }
  }

  /** The private key, parsed now so a bad key fails before connecting. Its text is never logged or echoed. */
  private static KeyProvider keys(SSHClient client, SshSpec spec, DispatchContext context) {
    if (spec.credential() != null && !spec.credential().isEmpty()) {
      Credential credential = context.credential(spec.credential());
      if (credential.type() != Credential.Type.SSH_KEY) {
        throw ApplicationFailure.newNonRetryableFailure(
            "credential " + spec.credential() + " is not an ssh-key credential", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
      try {
        return PrivateKeys.load(client, credential.secret());
      } catch (IOException | GeneralSecurityException | RuntimeException e) {
        throw ApplicationFailure.newNonRetryableFailure(
            "credential " + spec.credential() + " does not hold a readable unencrypted private key", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
    }
    if (spec.keyFile() != null && !spec.keyFile().isEmpty()) {
      if (!Files.isReadable(Path.of(spec.keyFile()))) {
        throw ApplicationFailure.newNonRetryableFailure(
            "key_file " + spec.keyFile() + " is not readable", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
      try {
        return PrivateKeys.load(client, Files.readString(Path.of(spec.keyFile())));
      } catch (IOException | GeneralSecurityException | RuntimeException e) {
        throw ApplicationFailure.newNonRetryableFailure(
            "key_file " + spec.keyFile() + " does not hold a readable unencrypted private key", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
    }
    throw ApplicationFailure.newNonRetryableFailure(
        "ssh contract for " + target(spec) + " names neither a credential nor a key_file", ErrorTypes.INVALID_REQUEST);
  }

  /** Waits for the exit status while draining both streams; heartbeats about once a second. */
  private static Output await(SSHClient client, Session.Command command, Duration timeout, DispatchContext context, SshSpec spec) {
    Capture out = Capture.start(command.getInputStream(), "ssh-stdout");
    Capture err = Capture.start(command.getErrorStream(), "ssh-stderr");
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextBeat = System.nanoTime();
    try {
      while (command.isOpen() && client.isConnected()) {
        long now = System.nanoTime();
        if (now - deadline > 0) {
          throw unknown("no exit status from " + target(spec) + " within " + timeout.toMillis() + " ms", null);
        }
        if (now - nextBeat >= 0) {
          context.heartbeat("ssh: waiting for exit status");
          nextBeat = now + HEARTBEAT_NANOS;
        }
        Thread.sleep(50);
      }
      out.join(Duration.ofSeconds(5));
      err.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unknown("interrupted while waiting for " + target(spec), e);
    }
    Integer exit = command.getExitStatus();
    if (exit == null && command.getExitSignal() != null) {
      exit = 128 + signalNumber(command.getExitSignal());
    }
    if (exit == null) {
      throw unknown("the connection to " + target(spec) + " ended before the command's exit status arrived", null);
    }
    return new Output(exit, out.text(), err.text(), out.truncated() || err.truncated());
  }

  private static int signalNumber(Signal signal) {
    switch (signal) {
      case HUP: return 1;
      case INT: return 2;
      case QUIT: return 3;
      case ILL: return 4;
      case ABRT: return 6;
      case FPE: return 8;
      case KILL: return 9;
      case USR1: return 10;
      case SEGV: return 11;
      case USR2: return 12;
      case PIPE: return 13;
      case ALRM: return 14;
      case TERM: return 15;
      default: return 127;
    }
  }

  private static ApplicationFailure unknown(String message, Throwable cause) {
    return ApplicationFailure.newNonRetryableFailureWithCause(message, ErrorTypes.OUTCOME_UNKNOWN, cause);
  }

  private static String target(SshSpec spec) {
    return spec.host() + ":" + spec.port();
  }

  private static void closeQuietly(SSHClient client) {
    try {
      client.close();
    } catch (IOException | RuntimeException ignored) {
      // Nothing more to learn from a failing close.
    }
  }

  record Output(int exitStatus, String stdout, String stderr, boolean truncated) {}

  /** Drains one stream on its own thread, keeping the first {@link DispatchResult#BODY_CAP} bytes. */
  private static final class Capture implements Runnable {
    private final InputStream in;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final Thread thread;
    private volatile boolean truncated;

    private Capture(InputStream in, String name) {
      this.in = in;
      this.thread = new Thread(this, name);
      thread.setDaemon(true);
    }

    static Capture start(InputStream in, String name) {
      Capture c = new Capture(in, name);
      c.thread.start();
      return c;
    }

    @Override
    public void run() {
      byte[] buffer = new byte[8192];
      try {
        int n;
        while ((n = in.read(buffer)) != -1) {
          synchronized (kept) {
            int room = DispatchResult.BODY_CAP - kept.size();
            if (n > room) {
              truncated = true;
            }
            kept.write(buffer, 0, Math.max(0, Math.min(n, room)));
          }
        }
      } catch (IOException e) {
        // The connection ended; the exit status decides what that means.
      }
    }

    void join(Duration max) throws InterruptedException {
      thread.join(max.toMillis());
    }

    boolean truncated() {
      return truncated;
    }

    String text() {
      synchronized (kept) {
        return kept.toString(StandardCharsets.UTF_8);
      }
    }
  }
}
