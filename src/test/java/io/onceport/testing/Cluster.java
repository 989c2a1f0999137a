package io.onceport.testing;

import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.app.demo.DemoTarget;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A multi-process Onceport deployment on loopback for tests: one shared data directory (payload
 * keys made once with {@code keys init} before any process starts, agents added with
 * {@link AgentRegistry}), the shipped contracts pointed at a {@link DemoTarget} in the test JVM,
 * and workers and front ends as {@link ChildProcess}es against one Temporal address. Closing stops
 * only the processes this object started.
 */
public final class Cluster implements AutoCloseable {
  public static final String TASK_QUEUE = "onceport-cluster";
  private static final Pattern MCP_PORT = Pattern.compile("MCP endpoint http://127\\.0\\.0\\.1:(\\d+)/mcp");
  public final Path dir;
  public final Path data;
  public final Path contracts;
  public final DemoTarget target;
  /** The agent every {@link #client} call authenticates as. */
  public static final String AGENT = "agent:deployer";
  public final String token;
  private final List<ChildProcess> started = new ArrayList<>();

  public Cluster() throws IOException {
    dir = Files.createTempDirectory("onceport-cluster");
    data = dir.resolve("data");
    target = DemoTarget.start("127.0.0.1", 0);
    contracts = Files.createDirectories(dir.resolve("contracts"));
    try (var files = Files.list(Path.of("contracts"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        Files.writeString(contracts.resolve(f.getFileName()),
            Files.readString(f).replace("127.0.0.1:8766", "127.0.0.1:" + target.port()));
      }
    }
    int keys = OnceportCommand.commandLine().execute("keys", "init", "--data", data.toString());
    if (keys != 0) {
      throw new IOException("keys init exited " + keys);
    }
    token = new AgentRegistry(data).add(AGENT);
  }

  /**
   * A loopback port free now, for a child to bind later. Picked below Linux's ephemeral range
   * (32768–60999), where the kernel hands out the local ports of outgoing connections: a port from
   * {@code new ServerSocket(0)} is in that range, and on a busy machine another process's connection
   * took one between this pick and the child's bind (a full CI run: {@code temporal server start-dev}
   * exited with "bind: address already in use" on the gRPC port it was given). Kept below 31000 so
   * the dev server's HTTP port (its gRPC port + 1000) stays out of that range too; never the same
   * port twice in one JVM.
   */
  public static int freePort() throws IOException {
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    for (int attempt = 0; attempt < 500; attempt++) {
      int port = 20_000 + ThreadLocalRandom.current().nextInt(11_000);
      if (!HANDED_OUT.add(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port, 1, loopback)) {
        return port;
      } catch (BindException taken) {
        // in use: try another
      }
    }
    try (ServerSocket s = new ServerSocket(0, 1, loopback)) {
      return s.getLocalPort();
    }
  }

  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  /** Starts a child process and remembers it for {@link #close}; does not wait. */
  public ChildProcess start(String... args) throws IOException {
    return start(Map.of(), args);
  }

  /** As {@link #start(String...)} with {@code env} set in (a null value: removed from) the child's environment. */
  public ChildProcess start(Map<String, String> env, String... args) throws IOException {
    ChildProcess p = ChildProcess.onceport(dir, env, args);
    started.add(p);
    return p;
  }

  /** Every child started so far (running or not), oldest first: their output is the deployment's logs. */
  public List<ChildProcess> started() {
    return List.copyOf(started);
  }

  /** {@code onceport worker} on the shared data dir with its own journal writer name. */
  public ChildProcess worker(String temporal, boolean embeddedEngine, String writer) throws IOException {
    List<String> args = new ArrayList<>(List.of("worker", "--temporal", temporal, "--task-queue", TASK_QUEUE,
        "--data", data.toString(), "--session-authorization", "auto", "--journal-writer", writer));
    if (embeddedEngine) {
      args.add("--embedded-engine");
    }
    return start(args.toArray(String[]::new));
  }

  /** {@code onceport frontend} on a free loopback port (read back from its start line). */
  public ChildProcess frontend(String temporal) throws IOException {
    return start("frontend", "--temporal", temporal, "--task-queue", TASK_QUEUE, "--data", data.toString(),
        "--contracts", contracts.toString(), "--listen", "127.0.0.1:0", "--session-authorization", "auto", "--call-wait", "PT20S");
  }

  /**
   * How long a child may take to print its start line. Only a bound for a child that never gets
   * there: four JVMs starting at once against a fresh engine on a loaded 2-core machine took more
   * than 90 s (one worker's first connection timed out, its retry and start outlasted 90 s at load 44).
   */
  public static final Duration START_LINE = Duration.ofSeconds(180);

  public static ChildProcess awaitWorker(ChildProcess worker) throws InterruptedException {
    return worker.awaitLine("onceport: worker on task queue", START_LINE);
  }

  /** Waits for the front end's start line and returns its MCP port. */
  public static int awaitFrontend(ChildProcess frontend) throws InterruptedException {
    frontend.awaitLine("onceport: MCP endpoint", START_LINE);
    for (String line : frontend.output()) {
      Matcher m = MCP_PORT.matcher(line);
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
    }
    throw new AssertionError("no MCP port in " + frontend.output());
  }

  public McpClient client(int port) throws IOException, InterruptedException {
    return new McpClient(port, token).initialize();
  }

  /** Arms a demo-target fault for the next {@code count} matching requests. */
  public void armFault(String next, int count) throws IOException, InterruptedException {
    var http = java.net.http.HttpClient.newHttpClient();
    var r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(target.url() + "/admin/faults"))
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"next\":\"" + next + "\",\"count\":" + count + "}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException("arming fault failed: " + r.statusCode() + " " + r.body());
    }
  }

  /** Requests the demo target received under this execution id (its Idempotency-Key), acted on or not: what was sent. */
  public long dispatches(String executionId) {
    return target.received(executionId);
  }

  /** Requests under this execution id that made the demo target act: what happened. */
  public long acts(String executionId) {
    return target.acted(executionId);
  }

  @Override
  public void close() throws InterruptedException {
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
    target.close();
  }
}
