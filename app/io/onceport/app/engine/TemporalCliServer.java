package io.onceport.app.engine;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.files.PrivateFiles;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Temporal server as a child process: {@code temporal server start-dev} from the Temporal
 * CLI, with its SQLite database in the data directory (durable across restarts), visibility
 * queries, sticky queues that time out, Onceport's search attributes, and the Temporal UI.
 *
 * <p>The server dies with this JVM, even on {@code kill -9}: it runs under a small {@code sh}
 * watchdog that holds the read end of a pipe from this JVM and sends the server SIGTERM (then
 * SIGKILL) when that pipe closes, which the kernel does whenever this process ends. Stopping
 * closes the pipe the same way, waits, and kills the server by its handle only if it does not
 * exit. Its pid is kept in {@code <data>/temporal-server.pid}; a start that finds its port taken
 * fails at once and names that pid when it is still running, so a server left by some other
 * means is never silently reused.
 */
public final class TemporalCliServer implements AutoCloseable {
  public static final String VERSION = "v1.5.1";
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);
  static final String PID_FILE = "temporal-server.pid";
  private static final Logger LOG = LoggerFactory.getLogger(TemporalCliServer.class);
  /**
   * Starts tried when the server crashes while starting: {@code start-dev} 1.5 has been seen to panic
   * in its internal worker service's start-up (exit status 2; once in a full run of the test suite,
   * 2026-12-06), where a fresh start comes up; and when it finds a port taken that this process
   * picked ({@link PortTaken}), on newly picked ports.
   */
  static final int START_ATTEMPTS = 3;
  /** The exit status of a Go program that panicked. */
  static final int GO_PANIC_STATUS = 2;
  /** What Go's net package says when a port is taken (the server exits with status 1). */
  static final String ADDRESS_IN_USE = "bind: address already in use";
  private static final java.util.regex.Pattern TAKEN = java.util.regex.Pattern.compile(":(\\d+): " + ADDRESS_IN_USE);
  /**
   * {@code sh -c WATCHDOG watchdog BINARY ARGS…}: runs the server with stdin from /dev/null, and a
   * subshell reading the wrapper's stdin (the pipe from this JVM) until end-of-file, then stopping
   * the server. The wrapper exits with the server's status.
   */
  static final String WATCHDOG = String.join("\n",
      "exec 3<&0",
      "\"$@\" </dev/null 3<&- &",
      "server=$!",
      "( while read -r _; do :; done; kill -TERM \"$server\" 2>/dev/null; sleep 10; kill -KILL \"$server\" 2>/dev/null ) <&3 &",
      "watchdog=$!",
      "exec 3<&-",
      "wait \"$server\"",
      "status=$?",
      "kill \"$watchdog\" 2>/dev/null",
      "exit \"$status\"");

  private final Process process;
  private final String ip;
  private final int port;
  private final int uiPort;
  private final boolean headless;
  private final Path log;

  private final Path pidFile;

  private TemporalCliServer(Process process, String ip, int port, int uiPort, boolean headless, Path log, Path pidFile) {
    this.process = process;
    this.ip = ip;
    this.port = port;
    this.uiPort = uiPort;
    this.headless = headless;
    this.log = log;
    this.pidFile = pidFile;
  }

  /**
   * The {@code temporal} binary: on {@code PATH}, else in {@code ${ONCEPORT_CACHE:-~/.cache/onceport}/bin}
   * (where {@code bin/install-temporal-cli} puts it).
   */
  public static Optional<Path> findBinary() {
    List<Path> candidates = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty()) {
          candidates.add(Path.of(dir, "temporal"));
        }
      }
    }
    String cache = System.getenv("ONCEPORT_CACHE");
    candidates.add((cache != null && !cache.isEmpty() ? Path.of(cache) : Path.of(System.getProperty("user.home"), ".cache", "onceport"))
        .resolve("bin").resolve("temporal"));
    return candidates.stream().filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst();
  }

  /**
   * The command run under {@code umask 077} (through {@code /bin/sh}, which {@code exec}s it, so the
   * process is the server itself): the server creates {@code temporal.db} and its journal files
   * in the data directory, and they must be the owner's alone whatever umask Onceport was started with.
   */
  static List<String> ownerOnly(List<String> command) {
    if (!Files.isExecutable(Path.of("/bin/sh"))) {
      return command;
    }
    List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c", "umask 077 && exec \"$0\" \"$@\""));
    wrapped.addAll(command);
    return wrapped;
  }

  /**
   * Starts the server and waits until its frontend answers.
   *
   * @param dataDir holds {@code temporal.db} (the server's state) and {@code temporal-server.log}
   * @param port gRPC port; 0 picks a free one
   * @param uiPort Temporal UI port; 0 picks a free one; ignored when {@code headless}
   * @param uiCodecEndpoint the codec server the UI calls (e.g. {@code http://127.0.0.1:8233/codec}), or null
   */
  public static TemporalCliServer start(Path binary, Path dataDir, String ip, int port, int uiPort, boolean headless,
      String uiCodecEndpoint, Duration timeout) {
    return start(binary, dataDir, ip, port, uiPort, headless, uiCodecEndpoint, timeout, List.of());
  }

  /** As above, with server dynamic configuration: each {@code KEY=VALUE} passed as {@code --dynamic-config-value}. */
  public static TemporalCliServer start(Path binary, Path dataDir, String ip, int port, int uiPort, boolean headless,
      String uiCodecEndpoint, Duration timeout, List<String> dynamicConfig) {
    Objects.requireNonNull(binary, "binary == null");
    Objects.requireNonNull(dataDir, "dataDir == null");
    Objects.requireNonNull(ip, "ip == null");
    Objects.requireNonNull(timeout, "timeout == null");
    for (int attempt = 1; ; attempt++) {
      int grpcPort = port == 0 ? freePort(ip) : port;
      int webPort = headless ? 0 : uiPort == 0 ? freePort(ip) : uiPort;
      List<String> command = command(binary, dataDir, ip, grpcPort, webPort, headless, uiCodecEndpoint);
      dynamicConfig.forEach(value -> command.addAll(List.of("--dynamic-config-value", value)));
      try {
        return startOnce(binary, dataDir, ip, grpcPort, webPort, headless, command, timeout);
      } catch (Panicked | PortTaken e) {
        if (attempt >= START_ATTEMPTS || (e instanceof PortTaken taken && taken.callerChose(port, headless ? 0 : uiPort))) {
          throw e;
        }
        LOG.warn("{}; starting it again ({} of {})", e.getMessage(), attempt + 1, START_ATTEMPTS);
        sleep(Duration.ofMillis(500L * attempt));
      }
    }
  }

  private static TemporalCliServer startOnce(Path binary, Path dataDir, String ip, int grpcPort, int webPort, boolean headless,
      List<String> command, Duration timeout) {
    refuseBusyPort(dataDir, ip, grpcPort, "gRPC port (--embedded-port)");
    if (!headless) {
      refuseBusyPort(dataDir, ip, webPort, "UI port (--ui-port)");
    }
    Path log = dataDir.resolve("temporal-server.log");
    Process process;
    long logStart;
    try {
      io.onceport.shared.files.PrivateFiles.createDirectories(dataDir); // temporal.db's directory: 0700
      io.onceport.shared.files.PrivateFiles.touch(log);
      logStart = Files.size(log);
      // stdin stays a pipe from this JVM: the watchdog's lifeline (see WATCHDOG); ownerOnly execs it.
      process = new ProcessBuilder(ownerOnly(command))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + binary + " server start-dev: " + e.getMessage(), e);
    }
    TemporalCliServer server = new TemporalCliServer(process, ip, grpcPort, webPort, headless, log, dataDir.resolve(PID_FILE));
    try {
      server.awaitReady(timeout, logStart);
      server.writePidFile();
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** {@code temporal server start-dev} under the watchdog, with Onceport's search attributes registered up front. */
  private static List<String> command(Path binary, Path dataDir, String ip, int grpcPort, int webPort, boolean headless,
      String uiCodecEndpoint) {
    List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", WATCHDOG, "onceport-temporal-watchdog",
        binary.toString(), "server", "start-dev",
        "--ip", ip, "--port", Integer.toString(grpcPort),
        "--db-filename", dataDir.resolve("temporal.db").toString(),
        "--namespace", "default", "--log-format", "json", "--log-level", "warn"));
    ExecutionSearchAttributes.NAMES.forEach(name -> command.addAll(List.of("--search-attribute", name + "=Keyword")));
    if (headless) {
      command.add("--headless");
    } else {
      command.addAll(List.of("--ui-port", Integer.toString(webPort)));
      if (uiCodecEndpoint != null) {
        command.addAll(List.of("--ui-codec-endpoint", uiCodecEndpoint));
      }
    }
    return command;
  }

  /**
   * Fails when something already listens on {@code ip:port}: most likely a Temporal server an
   * earlier process left running, which must not be mistaken for the one about to start.
   */
  private static void refuseBusyPort(Path dataDir, String ip, int port, String which) {
    try (java.net.Socket probe = new java.net.Socket()) {
      probe.connect(new java.net.InetSocketAddress(ip, port), 500);
    } catch (IOException free) {
      return;
    }
    String left = leftBehind(dataDir)
        .map(pid -> "a Temporal server started for " + dataDir.toAbsolutePath().normalize() + " is still running as pid " + pid
            + " (left by an earlier onceport serve?); stop it with `kill " + pid + "`, ")
        .orElse("something is listening there (another Temporal server or onceport serve?); stop it, ");
    throw new IllegalStateException("cannot start the Temporal CLI server: " + which + " " + ip + ":" + port
        + " is already in use: " + left + "or choose another port");
  }

  /** The pid in {@code <data>/temporal-server.pid} when that process is alive and is a {@code temporal}. */
  static Optional<Long> leftBehind(Path dataDir) {
    try {
      String text = Files.readString(dataDir.resolve(PID_FILE), StandardCharsets.UTF_8).trim();
      long pid = Long.parseLong(text.split("\\s+")[0]);
      return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
          .filter(h -> h.info().command().map(c -> c.endsWith("temporal")).orElse(true))
          .map(ProcessHandle::pid);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private void writePidFile() {
    try {
      Files.deleteIfExists(pidFile); // written anew, so one left by an older version does not keep its mode
      PrivateFiles.writeString(pidFile, pid() + " " + target() + "\n");
    } catch (IOException e) {
      // Only a diagnostic for a later start; the server runs either way.
    }
  }

  private void awaitReady(Duration timeout, long logStart) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        String tail = logTail(logStart);
        String message = "temporal server start-dev exited with status " + process.exitValue() + " before answering on "
            + target() + ": " + tail;
        if (process.exitValue() == GO_PANIC_STATUS) {
          throw new Panicked(message);
        }
        java.util.regex.Matcher taken = TAKEN.matcher(tail);
        throw taken.find() ? new PortTaken(message, Integer.parseInt(taken.group(1))) : new IllegalStateException(message);
      }
      try (TemporalConnection probe = TemporalConnection.connect(target(), "default", false, null, Duration.ofSeconds(2))) {
        // The frontend answers the health check before the default namespace exists; wait for it.
        probe.stubs().blockingStub().describeNamespace(
            io.temporal.api.workflowservice.v1.DescribeNamespaceRequest.newBuilder().setNamespace("default").build());
        return;
      } catch (RuntimeException e) {
        last = e;
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the Temporal server", e);
      }
    }
    throw new IllegalStateException("the Temporal server on " + target() + " did not answer within " + timeout.toSeconds()
        + " s: " + (last == null ? "" : TemporalConnection.shortReason(last)) + "; log: " + log);
  }

  /** The server crashed while starting, as a Go program does on a panic: worth another start. */
  static final class Panicked extends IllegalStateException {
    Panicked(String message) {
      super(message);
    }
  }

  /**
   * The server found one of its ports taken while starting, after this process had checked it was
   * free: a port picked here is released before the server binds it, and the server picks its own
   * HTTP and metrics ports at random, so another process or the server itself can take it in
   * between (once in a full run of the test suite, 2026-12-06). Worth another start, on newly
   * picked ports, unless the port taken is one the caller chose.
   */
  static final class PortTaken extends IllegalStateException {
    private final int port;

    PortTaken(String message, int port) {
      super(message);
      this.port = port;
    }

    /** Whether the port taken is one the caller asked for ({@code 0}: none). */
    boolean callerChose(int grpcPort, int uiPort) {
      return port == grpcPort || port == uiPort;
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the Temporal server", e);
    }
  }

  /** The last lines this start wrote to the log (from byte {@code from}: earlier starts append to the same file). */
  private String logTail(long from) {
    try {
      byte[] all = Files.readAllBytes(log);
      String written = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from), StandardCharsets.UTF_8);
      List<String> lines = written.lines().collect(java.util.stream.Collectors.toList());
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "(no log at " + log + ")";
    }
  }

  private static int freePort(String ip) {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(ip))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot find a free port on " + ip + ": " + e.getMessage(), e);
    }
  }

  /** {@code ip:port} for {@link TemporalConnection#connect}. */
  public String target() {
    return ip + ":" + port;
  }

  public int port() {
    return port;
  }

  /** The Temporal UI, or empty when headless. */
  public Optional<String> uiUrl() {
    return headless ? Optional.empty() : Optional.of("http://" + ip + ":" + uiPort);
  }

  /** The Temporal server's pid (the watchdog's child), or the watchdog's while the server is not yet forked. */
  public long pid() {
    return server().map(ProcessHandle::pid).orElse(process.pid());
  }

  private Optional<ProcessHandle> server() {
    return process.children().findFirst();
  }

  public Path logFile() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Closes the watchdog's pipe (the server gets SIGTERM), waits up to 10 s, then SIGKILLs the
   * server and the watchdog by their handles; the SQLite database stays for the next start.
   */
  @Override
  public void close() {
    Optional<ProcessHandle> server = server();
    try {
      process.getOutputStream().close();
    } catch (IOException ignored) {
      // already closed: the watchdog saw end-of-file
    }
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        server.ifPresent(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      server.ifPresent(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException ignored) {
      // a stale pid file only adds a hint to a later error
    }
  }
}
