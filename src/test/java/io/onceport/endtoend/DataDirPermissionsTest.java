package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.app.demo.DemoTarget;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.McpClient;
import io.onceport.testing.TemporalCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code onceport} commands in child JVMs started under {@code umask 000}: every
 * directory they create under the data directory is 0700 and every file 0600 — keys, agents, the
 * vault and its lock marker, operators and their lock, payload keys, journals, their locks and
 * checkpoints, the Temporal CLI server's database, log and pid file.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DataDirPermissionsTest {
  private static final Pattern MCP_PORT = Pattern.compile("MCP endpoint http://127\\.0\\.0\\.1:(\\d+)/mcp");
  @TempDir Path dir;

  private int run(String... args) throws Exception {
    try (ChildProcess p = ChildProcess.onceportWithUmask("000", dir, args)) {
      int exit = p.awaitExit(Duration.ofSeconds(90));
      assertEquals(0, exit, String.join(" ", args) + ": " + p.output());
      return exit;
    }
  }

  private static String token(List<String> output) {
    return output.stream().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElseThrow().strip();
  }

  private Path contracts(DemoTarget target) throws Exception {
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    try (var files = Files.list(Path.of("contracts"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        Files.writeString(contracts.resolve(f.getFileName()),
            Files.readString(f).replace("127.0.0.1:8766", "127.0.0.1:" + target.port()));
      }
    }
    return contracts;
  }

  /** Every path under {@code data} whose mode is not 0700 (directories) or 0600 (files), with its mode. */
  private static List<String> notOwnerOnly(Path data) throws Exception {
    List<String> wrong = new ArrayList<>();
    try (Stream<Path> all = Files.walk(data)) {
      for (Path p : all.toList()) {
        String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
        String expected = Files.isDirectory(p) ? "rwx------" : "rw-------";
        if (!mode.equals(expected)) {
          wrong.add(data.relativize(p) + " " + mode);
        }
      }
    }
    return wrong;
  }

  private static List<String> files(Path data) throws Exception {
    try (Stream<Path> all = Files.walk(data)) {
      return all.filter(Files::isRegularFile).map(p -> data.relativize(p).toString()).sorted().toList();
    }
  }

  @Test
  void everythingTheCommandsCreateUnderTheDataDirIsOwnerOnlyUnderUmask000() throws Exception {
    Path data = dir.resolve("var").resolve("data"); // neither exists yet
    Path passphrase = Files.writeString(dir.resolve("passphrase"), "a long passphrase for the permissions test\n");
    Path secret = Files.writeString(dir.resolve("secret"), "tok-secret-value");
    ChildProcess agent = ChildProcess.onceportWithUmask("000", dir, "agent", "add", "agent:perm", "--data", data.toString());
    assertEquals(0, agent.awaitExit(Duration.ofSeconds(90)), agent.output().toString());
    Thread.sleep(200); // let the reader thread take the last line
    String token = token(agent.output());
    agent.close();
    run("vault", "init", "--data", data.toString(), "--passphrase-file", passphrase.toString(),
        "--argon2-memory", "8192", "--argon2-iterations", "1");
    run("vault", "put", "api", "--type", "bearer", "--from-file", secret.toString(), "--data", data.toString(),
        "--passphrase-file", passphrase.toString());
    run("keys", "rotate", "--data", data.toString());
    run("operator", "add", "carol", "--data", data.toString(), "--key-file", dir.resolve("carol.key").toString());
    try (DemoTarget target = DemoTarget.start("127.0.0.1", 0);
        ChildProcess serve = ChildProcess.onceportWithUmask("000", dir, "serve", "--engine", "embedded", "--data", data.toString(),
            "--contracts", contracts(target).toString(), "--listen", "127.0.0.1:0",
            "--embedded-port", Integer.toString(Cluster.freePort()), "--session-authorization", "auto",
            "--passphrase-file", passphrase.toString())) {
      serve.awaitLine("onceport: MCP endpoint", Duration.ofSeconds(90));
      int port = serve.output().stream().map(MCP_PORT::matcher).filter(Matcher::find)
          .mapToInt(m -> Integer.parseInt(m.group(1))).findFirst().orElseThrow();
      McpClient client = new McpClient(port, token).initialize();
      var r = client.call(1, "list_releases", com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
      assertEquals("completed", r.at("/result/structuredContent/state").asText(), r.toString());
    }
    run("vault", "lock", "--data", data.toString());
    List<String> files = files(data);
    for (String expected : List.of("agents.json", "operators.json", "operators.json.lock", "keys/fingerprint.key", "keys/journal-ed25519.key",
        "keys/journal-ed25519.pub", "keys/payload/active", "vault.bin", "vault.locked")) {
      assertTrue(files.contains(expected), expected + " missing from " + files);
    }
    assertTrue(files.stream().anyMatch(f -> f.matches("journal/activity/.+\\.jsonl")), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.matches("journal/sessions/.+\\.jsonl")), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.matches("journal/activity/.+\\.lock")), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.matches("keys/payload/k0001-.+")), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.matches("journal/activity/checkpoints/.+\\.note")), files.toString());
    assertEquals(List.of(), notOwnerOnly(dir.resolve("var")), "under umask 000; files: " + files);
  }

  @Test
  void theTemporalCliServersDatabaseAndLogAreOwnerOnlyUnderUmask000() throws Exception {
    TemporalCli.binaryOrSkip();
    Path data = dir.resolve("data");
    try (DemoTarget target = DemoTarget.start("127.0.0.1", 0);
        ChildProcess serve = ChildProcess.onceportWithUmask("000", dir, "serve", "--engine", "temporal-cli",
            "--data", data.toString(), "--contracts", contracts(target).toString(), "--listen", "127.0.0.1:0",
            "--embedded-port", Integer.toString(Cluster.freePort()), "--ui-port", Integer.toString(Cluster.freePort()),
            "--session-authorization", "auto")) {
      serve.awaitLine("onceport: MCP endpoint", Duration.ofSeconds(120));
      // The pid file lives while the server runs (close deletes it): look while it is there.
      List<String> running = files(data);
      assertTrue(running.contains("temporal-server.pid"), running.toString());
      assertEquals(List.of(), notOwnerOnly(data), "while serving, under umask 000; files: " + running);
    }
    List<String> files = files(data);
    assertTrue(files.contains("temporal.db"), files.toString());
    assertTrue(files.contains("temporal-server.log"), files.toString());
    assertEquals(List.of(), notOwnerOnly(data), "under umask 000; files: " + files);
  }
}
