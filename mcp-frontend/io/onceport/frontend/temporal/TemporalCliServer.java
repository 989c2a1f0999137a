package io.onceport.frontend.temporal;

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

/**
 * A real Temporal server as a child process: {@code temporal server start-dev} from the Temporal
 * CLI, with its SQLite database in the data directory (durable across restarts), visibility
 * queries, sticky queues that time out, Onceport's search attributes, and the Temporal UI.
 *
 * <p>Stopping sends SIGTERM to the one process this class started (by its handle, never by name),
 * waits, and kills it only if it does not exit. A server left behind by a crashed JVM keeps its
 * ports; the next start then fails with the server's own message from its log file.
 */
public final class TemporalCliServer implements AutoCloseable {
  public static final String VERSION = "v1.5.1";
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  private final Process process;
  private final String ip;
  private final int port;
  private final int uiPort;
  private final boolean headless;
  private final Path log;

  private TemporalCliServer(Process process, String ip, int port, int uiPort, boolean headless, Path log) {
    this.process = process;
    this.ip = ip;
    this.port = port;
    this.uiPort = uiPort;
    this.headless = headless;
    this.log = log;
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
   * @param uiCodecEndpoint the codec server the UI calls (e.g. {@code http://127.0.0.1:8765/codec}), or null
   */
  public static TemporalCliServer start(Path binary, Path dataDir, String ip, int port, int uiPort, boolean headless,
      String uiCodecEndpoint, Duration timeout) {
    Objects.requireNonNull(binary, "binary == null");
    Objects.requireNonNull(dataDir, "dataDir == null");
    Objects.requireNonNull(ip, "ip == null");
    Objects.requireNonNull(timeout, "timeout == null");
    int grpcPort = port == 0 ? freePort(ip) : port;
    int webPort = headless ? 0 : uiPort == 0 ? freePort(ip) : uiPort;
    List<String> command = new ArrayList<>(List.of(binary.toString(), "server", "start-dev",
        "--ip", ip, "--port", Integer.toString(grpcPort),
        "--db-filename", dataDir.resolve("temporal.db").toString(),
        "--namespace", "default",
        "--log-format", "json", "--log-level", "warn"));
    for (String name : TemporalConnection.SEARCH_ATTRIBUTES) {
      command.addAll(List.of("--search-attribute", name + "=Keyword"));
    }
    if (headless) {
      command.add("--headless");
    } else {
      command.addAll(List.of("--ui-port", Integer.toString(webPort)));
      if (uiCodecEndpoint != null) {
        command.addAll(List.of("--ui-codec-endpoint", uiCodecEndpoint));
      }
    }
    Path log = dataDir.resolve("temporal-server.log");
    Process process;
    try {
      io.onceport.activity.files.PrivateFiles.createDirectories(dataDir); // temporal.db's directory: 0700
      io.onceport.activity.files.PrivateFiles.touch(log);
      process = new ProcessBuilder(ownerOnly(command))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + binary + " server start-dev: " + e.getMessage(), e);
    }
    TemporalCliServer server = new TemporalCliServer(process, ip, grpcPort, webPort, headless, log);
    try {
      server.awaitReady(timeout);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  private void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("temporal server start-dev exited with status " + process.exitValue()
            + " before answering on " + target() + ": " + logTail());
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

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
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

  public long pid() {
    return process.pid();
  }

  public Path logFile() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM, wait up to 10 s, then SIGKILL; the SQLite database stays for the next start. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
