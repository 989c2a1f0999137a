package io.onceport.app.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TemporalCliServerTest {
  private static Path binary;
  @TempDir Path data;

  @BeforeAll
  static void findCli() {
    Optional<Path> found = TemporalCliServer.findBinary();
    if (found.isEmpty() && Files.isExecutable(Path.of("/work/cache/bin/temporal"))) {
      found = Optional.of(Path.of("/work/cache/bin/temporal"));
    }
    assumeTrue(found.isPresent(), "the Temporal CLI is not installed (bin/install-temporal-cli)");
    binary = found.get();
  }

  @Test
  void startsARealServerWithVisibilityAndSearchAttributesThenStops() throws Exception {
    TemporalCliServer server = TemporalCliServer.start(binary, data, "127.0.0.1", 0, 0, false, null, Duration.ofSeconds(90));
    try (TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false, null, Duration.ofSeconds(10))) {
      assertTrue(new ExecutionDirectory(connection).hasVisibility());
      connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES); // already registered by --search-attribute: must be a no-op
      HttpResponse<String> ui = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(server.uiUrl().orElseThrow())).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, ui.statusCode());
      assertTrue(Files.exists(data.resolve("temporal.db")));
    } finally {
      server.close();
    }
    assertFalse(server.isAlive());
    assertFalse(ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive).orElse(false));
  }

  @Test
  void searchAttributesAreRegisteredAndStateSurvivesARestart() throws Exception {
    String workflowId;
    TemporalCliServer first = TemporalCliServer.start(binary, data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
    try (TemporalConnection connection = TemporalConnection.connect(first.target(), "default", false, null, Duration.ofSeconds(10))) {
      var stub = connection.client().newUntypedWorkflowStub("SomeType",
          io.temporal.client.WorkflowOptions.newBuilder().setTaskQueue("nobody-polls").setWorkflowId("durable-" + System.nanoTime())
              .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
                  .set(ExecutionSearchAttributes.SA_EXECUTION_ID, "act_cli_test").build())
              .build());
      workflowId = stub.start().getWorkflowId();
    } finally {
      first.close();
    }
    TemporalCliServer second = TemporalCliServer.start(binary, data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
    try (TemporalConnection connection = TemporalConnection.connect(second.target(), "default", false, null, Duration.ofSeconds(10))) {
      var described = connection.client().newUntypedWorkflowStub(workflowId).describe();
      assertEquals("act_cli_test", described.getTypedSearchAttributes().get(ExecutionSearchAttributes.SA_EXECUTION_ID));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      long found = 0;
      while (found == 0 && System.nanoTime() < deadline) {
        found = connection.client().listExecutions("OnceportExecutionId = 'act_cli_test'").count();
        if (found == 0) {
          Thread.sleep(250);
        }
      }
      assertEquals(1, found);
    } finally {
      second.close();
    }
  }

  /**
   * A stand-in for the CLI: its first {@code failing} starts print {@code lines} and exit with
   * {@code status}, later ones run the real CLI. Every start is counted in {@code starts} and its
   * arguments appended to {@code starts.args}.
   */
  private Path standInCli(long failing, int status, String... lines) throws java.io.IOException {
    Path count = data.resolve("starts");
    Path script = data.resolve("temporal-stand-in");
    StringBuilder print = new StringBuilder();
    for (String line : lines) {
      print.append("echo '").append(line).append("'; ");
    }
    Files.writeString(script, String.join("\n",
        "#!/bin/sh",
        "n=$(cat '" + count + "' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '" + count + "'; echo \"$@\" >> '" + count + ".args'",
        "if [ $n -le " + failing + " ]; then " + print + "exit " + status + "; fi",
        "exec '" + binary + "' \"$@\"", ""));
    script.toFile().setExecutable(true);
    return script;
  }

  /** Panics (exit 2, as Go does) on its first {@code panics} starts. */
  private Path panickingCli(int panics) throws java.io.IOException {
    return standInCli(panics, TemporalCliServer.GO_PANIC_STATUS, "panic: send on closed channel", "goroutine 1 [running]:");
  }

  @Test
  void aServerThatPanicsWhileStartingIsStartedAgain() throws Exception {
    Path cli = panickingCli(1);
    TemporalCliServer server = TemporalCliServer.start(cli, data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
    try (TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false, null, Duration.ofSeconds(10))) {
      assertTrue(new ExecutionDirectory(connection).hasVisibility());
    } finally {
      server.close();
    }
    assertEquals("2", Files.readString(data.resolve("starts")).trim(), "one panic, one start that came up");
  }

  @Test
  void aServerThatKeepsPanickingFailsAfterItsAttemptsWithItsOwnMessage() throws Exception {
    Path cli = panickingCli(Integer.MAX_VALUE / 2);
    IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> TemporalCliServer.start(cli, data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(30)));
    assertTrue(e.getMessage().startsWith("temporal server start-dev exited with status 2"), e.getMessage());
    assertTrue(e.getMessage().contains("panic: send on closed channel"), "the log's tail is in the message: " + e.getMessage());
    assertEquals(String.valueOf(TemporalCliServer.START_ATTEMPTS), Files.readString(data.resolve("starts")).trim());
  }

  /** Finds {@code taken} in use on its first start, as Go reports it (exit 1). */
  private Path portTakenOnceCli(int taken) throws java.io.IOException {
    return standInCli(1, 1, "{\"level\":\"FATAL\",\"prefix\":\"echo\",\"message\":\"listen tcp 127.0.0.1:" + taken + ": "
        + TemporalCliServer.ADDRESS_IN_USE + "\"}");
  }

  @Test
  void aPortTakenAfterItWasPickedIsPickedAgainAndTheServerComesUp() throws Exception {
    Path cli = portTakenOnceCli(40179); // not one the caller chose: the server's own HTTP port, or one picked here
    TemporalCliServer server = TemporalCliServer.start(cli, data, "127.0.0.1", 0, 0, false, null, Duration.ofSeconds(90));
    try (TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false, null, Duration.ofSeconds(10))) {
      assertTrue(new ExecutionDirectory(connection).hasVisibility());
    } finally {
      server.close();
    }
    assertEquals("2", Files.readString(data.resolve("starts")).trim(), "one start that found its port taken, one that came up");
    java.util.List<String> args = Files.readAllLines(data.resolve("starts.args"));
    assertEquals(2, args.size());
    assertFalse(args.get(0).equals(args.get(1)), "the second start has ports of its own: " + args);
  }

  @Test
  void aPortTakenThatTheCallerChoseFailsAtOnce() throws Exception {
    int port;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      port = probe.getLocalPort();
    }
    Path cli = portTakenOnceCli(port);
    IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> TemporalCliServer.start(cli, data, "127.0.0.1", port, 0, true, null, Duration.ofSeconds(30)));
    assertTrue(e.getMessage().startsWith("temporal server start-dev exited with status 1"), e.getMessage());
    assertTrue(e.getMessage().contains(TemporalCliServer.ADDRESS_IN_USE), e.getMessage());
    assertEquals("1", Files.readString(data.resolve("starts")).trim(), "a port the caller chose is not swapped for another");
  }

  @Test
  void aServerThatCannotStartFailsWithItsOwnMessage() {
    IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> TemporalCliServer.start(binary, data, "256.1.1.1", 17999, 0, true, null, Duration.ofSeconds(30)));
    assertTrue(e.getMessage().startsWith("temporal server start-dev exited with status "), e.getMessage());
  }

  @Test
  void aTakenPortFailsAtOnceAndALeftBehindServerIsNamedByItsPid() throws Exception {
    try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
          () -> TemporalCliServer.start(binary, data, "127.0.0.1", busy.getLocalPort(), 0, true, null, Duration.ofSeconds(30)));
      assertEquals("cannot start the Temporal CLI server: gRPC port (--embedded-port) 127.0.0.1:" + busy.getLocalPort()
          + " is already in use: something is listening there (another Temporal server or onceport serve?); stop it, "
          + "or choose another port", e.getMessage());
    }
    TemporalCliServer first = TemporalCliServer.start(binary, data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
    try {
      assertEquals(first.pid() + " " + first.target() + "\n", Files.readString(data.resolve(TemporalCliServer.PID_FILE)));
      IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
          () -> TemporalCliServer.start(binary, data, "127.0.0.1", first.port(), 0, true, null, Duration.ofSeconds(30)));
      assertTrue(e.getMessage().contains("is still running as pid " + first.pid() + " (left by an earlier onceport serve?); "
          + "stop it with `kill " + first.pid() + "`"), e.getMessage());
    } finally {
      first.close();
    }
    assertFalse(Files.exists(data.resolve(TemporalCliServer.PID_FILE)), "a clean stop removes the pid file");
  }

  /** kill -9 of `serve --engine temporal-cli`: no shutdown hook runs, yet its Temporal server goes too. */
  @Test
  void theServerDiesWithItsServeOnKill9AndTheNextServeStartsItsOwn() throws Exception {
    Path work = Files.createDirectories(data.resolve("work"));
    Files.createDirectories(work.resolve("contracts"));
    Files.copy(Path.of("contracts/list_releases.yaml"), work.resolve("contracts/list_releases.yaml"));
    Path serveData = work.resolve("data");
    String[] args = {"serve", "--engine", "temporal-cli", "--embedded-port", Integer.toString(io.onceport.testing.Cluster.freePort()),
        "--ui-port", Integer.toString(io.onceport.testing.Cluster.freePort()), "--listen", "127.0.0.1:0",
        "--data", serveData.toString(), "--session-authorization", "auto"};
    long firstPid;
    io.onceport.testing.ChildProcess serve = io.onceport.testing.ChildProcess.onceport(work, args);
    try {
      serve.awaitLine("onceport: MCP endpoint", Duration.ofSeconds(120));
      firstPid = Long.parseLong(Files.readString(serveData.resolve(TemporalCliServer.PID_FILE)).split(" ")[0]);
      assertTrue(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false), "the Temporal server runs");
      serve.kill9();
    } finally {
      serve.close();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertFalse(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false),
        "the Temporal server " + firstPid + " outlived its serve");
    try (io.onceport.testing.ChildProcess again = io.onceport.testing.ChildProcess.onceport(work, args)) {
      again.awaitLine("onceport: MCP endpoint", Duration.ofSeconds(120));
      long secondPid = Long.parseLong(Files.readString(serveData.resolve(TemporalCliServer.PID_FILE)).split(" ")[0]);
      assertTrue(secondPid != firstPid && ProcessHandle.of(secondPid).map(ProcessHandle::isAlive).orElse(false),
          "a fresh server of its own: " + secondPid);
    }
  }
}
