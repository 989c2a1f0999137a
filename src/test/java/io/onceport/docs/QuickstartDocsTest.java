package io.onceport.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.Cluster;
import io.onceport.testing.Node22;
import io.onceport.testing.PythonMcp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/quickstart-python.md and docs/quickstart-typescript.md run as written, so they cannot drift:
 * the shell block that starts the demo target and the gateway (the same on both pages) runs
 * verbatim in bash — its {@code bin/onceport} is this build, its ports moved by an
 * {@code ./onceport.yaml} config file — then each page's client code runs with the real SDK through
 * the page's own run line, then the pinned MCP Inspector line. The install lines are checked
 * against the pins the tests install (src/test/python/requirements.txt, src/test/node/package.json,
 * src/test/inspector/package.json); the README shows the same client code.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class QuickstartDocsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path PYTHON_DOC = Path.of("docs/quickstart-python.md");
  private static final Path TYPESCRIPT_DOC = Path.of("docs/quickstart-typescript.md");
  private static final Pattern BLOCK = Pattern.compile("```(\\w+)\\n(.*?)```", Pattern.DOTALL);

  @TempDir Path work;

  record Block(String language, String text) {}

  static List<Block> blocks(Path doc) throws IOException {
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(Files.readString(doc));
    while (m.find()) {
      out.add(new Block(m.group(1), m.group(2)));
    }
    return out;
  }

  /** The one block of {@code language} containing {@code marker}. */
  static String block(Path doc, String language, String marker) throws IOException {
    List<String> found = blocks(doc).stream().filter(b -> b.language().equals(language) && b.text().contains(marker))
        .map(Block::text).toList();
    assertEquals(1, found.size(), doc + ": one ```" + language + " block containing '" + marker + "': " + found);
    return found.get(0);
  }

  /**
   * Both pages start the gateway with the same block; it runs once, then the Python page's client,
   * the TypeScript page's client and its Inspector line, each through the page's own run line.
   */
  @Test
  void bothQuickstartsRunAsWrittenWithTheRealSdks() throws Exception {
    String gateway = block(PYTHON_DOC, "sh", "bin/onceport serve");
    assertEquals(gateway, block(TYPESCRIPT_DOC, "sh", "bin/onceport serve"), "the two pages start the gateway alike");

    Path python = PythonMcp.ready();
    // The page's .venv/bin/python, standing for the SDK's pinned venv (a symlink would lose the venv).
    Path venvPython = Files.createDirectories(work.resolve(".venv/bin")).resolve("python");
    Files.writeString(venvPython, "#!/bin/sh\nexec \"" + python + "\" \"$@\"\n");
    Files.setPosixFilePermissions(venvPython, PosixFilePermissions.fromString("rwxr-xr-x"));
    String pythonCode = block(PYTHON_DOC, "python", "streamable_http_client");
    Files.writeString(work.resolve(fileName(pythonCode, "# ")), pythonCode);

    Path node = Node22.ready();
    Node22.ready(Path.of("src/test/inspector").toAbsolutePath());
    Files.createSymbolicLink(work.resolve("node_modules"), Node22.PROJECT.resolve("node_modules"));
    String jsCode = block(TYPESCRIPT_DOC, "js", "StreamableHTTPClientTransport");
    Files.writeString(work.resolve(fileName(jsCode, "// ")), jsCode);
    String inspector = block(TYPESCRIPT_DOC, "sh", "@modelcontextprotocol/inspector@");

    String clients = "echo PYTHON-QUICKSTART\n" + block(PYTHON_DOC, "sh", "quickstart.py")
        + "echo TYPESCRIPT-QUICKSTART\n" + block(TYPESCRIPT_DOC, "sh", "node quickstart.mjs")
        // The Inspector runs from its pinned project (offline: the pinned version, never a download),
        // pointed at the moved MCP port like everything else.
        + "echo INSPECTOR\n(cd '" + Path.of("src/test/inspector").toAbsolutePath() + "' && npm_config_offline=true "
        + inspector.strip().replace("http://127.0.0.1:8765/mcp", "\"$ONCEPORT_URL\"") + ")\n";
    Run run = runQuickstart(gateway, clients, Map.of("PATH", node + ":" + System.getenv("PATH")));
    String out = String.join("\n", run.output());
    String first = assertCalled(section(out, "PYTHON-QUICKSTART", "TYPESCRIPT-QUICKSTART"));
    String second = assertCalled(section(out, "TYPESCRIPT-QUICKSTART", "INSPECTOR"));
    // The pages make the same call. If the second arrives while the first's run is still open (its
    // delivery grace), it is the same intent and shares the execution; otherwise it is a new one.
    // Either way each execution reached the demo target exactly once.
    long executions = Stream.of(first, second).distinct().count();
    assertEquals(executions, run.ledgerPosts(), "each execution (" + first + ", " + second
        + ") reached the demo target once: " + out);
    String listing = section(out, "INSPECTOR", "QUICKSTART-CLIENT-DONE");
    JsonNode listed = JSON.readTree(listing.substring(listing.indexOf('{'), listing.lastIndexOf('}') + 1));
    assertTrue(listed.get("tools").findValuesAsText("name").contains("create_release"), "the Inspector listed the tools: " + listing);
  }

  private static String section(String out, String from, String to) {
    int a = out.indexOf(from + "\n");
    int b = out.indexOf(to, a + 1);
    assertTrue(a >= 0 && b > a, "output has " + from + " … " + to + ": " + out);
    return out.substring(a + from.length() + 1, b);
  }

  @Test
  void theInstallLinesPinWhatTheTestsRun() throws Exception {
    String pip = block(PYTHON_DOC, "sh", "pip install");
    String pinned = Files.readAllLines(Path.of("src/test/python/requirements.txt")).stream()
        .filter(l -> l.startsWith("mcp==")).findFirst().orElseThrow();
    assertTrue(pip.contains(" " + pinned + "\n"), pip + " vs " + pinned);
    String npm = block(TYPESCRIPT_DOC, "sh", "npm install");
    String sdk = JSON.readTree(Files.readString(Node22.PROJECT.resolve("package.json")))
        .at("/dependencies/@modelcontextprotocol~1sdk").asText();
    assertTrue(npm.contains("@modelcontextprotocol/sdk@" + sdk + "\n"), npm + " vs " + sdk);
    String inspector = JSON.readTree(Files.readString(Path.of("src/test/inspector/package.json")))
        .at("/dependencies/@modelcontextprotocol~1inspector").asText();
    assertTrue(block(TYPESCRIPT_DOC, "sh", "--header").contains("@modelcontextprotocol/inspector@" + inspector + " "), inspector);
  }

  @Test
  void theReadmeShowsTheSameClientCodeAndLinksBothQuickstarts() throws Exception {
    Path readme = Path.of("README.md");
    assertEquals(block(PYTHON_DOC, "python", "streamable_http_client"), block(readme, "python", "streamable_http_client"));
    assertEquals(block(TYPESCRIPT_DOC, "js", "StreamableHTTPClientTransport"), block(readme, "js", "StreamableHTTPClientTransport"));
    assertEquals(block(TYPESCRIPT_DOC, "sh", "--header"), block(readme, "sh", "--header"));
    String text = Files.readString(readme);
    assertTrue(text.contains("(docs/quickstart-python.md)") && text.contains("(docs/quickstart-typescript.md)"));
  }

  private static String fileName(String code, String comment) {
    String first = code.lines().findFirst().orElseThrow();
    assertTrue(first.startsWith(comment), "the block names its file on its first line: " + first);
    return first.substring(comment.length()).trim();
  }

  record Run(List<String> output, long ledgerPosts) {}

  /**
   * Runs the page's gateway block verbatim, waits for the MCP port, runs {@code client}, then
   * reads the demo target's ledger and ends the jobs the block started (by their pids).
   */
  private Run runQuickstart(String gateway, String client, Map<String, String> extraEnv) throws Exception {
    int mcp = Cluster.freePort();
    int engine = Cluster.freePort();
    int demo = Cluster.freePort();
    Path bin = Files.createDirectories(work.resolve("bin"));
    Files.writeString(bin.resolve("onceport"), "#!/bin/sh\nexec \"" + Path.of(System.getProperty("java.home"), "bin", "java")
        + "\" -Xmx512m -cp \"$ONCEPORT_TEST_CLASSPATH\" io.onceport.app.Main \"$@\"\n");
    Files.setPosixFilePermissions(bin.resolve("onceport"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.createDirectories(work.resolve("contracts"));
    try (Stream<Path> files = Files.list(Path.of("contracts"))) {
      for (Path f : files.toList()) {
        Files.copy(f, work.resolve("contracts").resolve(f.getFileName()));
      }
    }
    // Ports moved without touching the page: the config file every command reads from ./onceport.yaml.
    Files.writeString(work.resolve("onceport.yaml"), "serve:\n  listen: 127.0.0.1:" + mcp + "\n  embedded-port: " + engine
        + "\ndemo-target:\n  listen: 127.0.0.1:" + demo + "\n");
    // The jobs the page starts end with the script, however it ends (so a failure shows at once).
    String script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + gateway + "jobs -p > jobs.pids\n"
        + "for i in $(seq 1 360); do (exec 3<>/dev/tcp/127.0.0.1/" + mcp + ") 2>/dev/null && break; sleep 0.5; done\n"
        + client
        + "echo QUICKSTART-CLIENT-DONE\nread -r _\n";
    Files.writeString(work.resolve("quickstart-run.sh"), script);
    Map<String, String> env = new HashMap<>(extraEnv);
    env.put("ONCEPORT_TEST_CLASSPATH", System.getProperty("java.class.path"));
    env.put("DEMO_TARGET", "http://127.0.0.1:" + demo);
    env.put("ONCEPORT_URL", "http://127.0.0.1:" + mcp + "/mcp");
    Node22.Started bash = Node22.start(List.of("bash", "quickstart-run.sh"), work, env);
    try (bash) {
      bash.awaitLine("QUICKSTART-CLIENT-DONE", Duration.ofMinutes(4));
      HttpResponse<String> ledger = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + demo + "/ledger")).build(), HttpResponse.BodyHandlers.ofString());
      long posts = 0;
      for (JsonNode e : JSON.readTree(ledger.body())) {
        if (e.path("path").asText().equals("/v1/releases") && e.path("method").asText().equals("POST")) {
          posts++;
        }
      }
      bash.process().getOutputStream().write("\n".getBytes(StandardCharsets.UTF_8));
      bash.process().getOutputStream().flush();
      bash.await(Duration.ofSeconds(60));
      return new Run(bash.output(), posts);
    } finally {
      endLeftoverJobs();
    }
  }

  /** The jobs the script recorded, should its own kill have missed one; by pid, nothing else. */
  private void endLeftoverJobs() throws IOException {
    Path pids = work.resolve("jobs.pids");
    if (!Files.exists(pids)) {
      return;
    }
    for (String line : Files.readAllLines(pids)) {
      if (!line.isBlank()) {
        ProcessHandle.of(Long.parseLong(line.trim())).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  /** The page's client listed the tools and completed one execution; returns its id. */
  private static String assertCalled(String out) {
    assertTrue(out.contains("tools: create_release, create_release_keyed, list_releases, onceport_execution_status, "
        + "send_notification"), out);
    Matcher completed = Pattern.compile("(?m)^completed (act_[0-9A-Z]{26})$").matcher(out);
    assertTrue(completed.find(), out);
    assertTrue(out.contains("\"key\":\"" + completed.group(1) + "\""), "the target saw the execution id as its key: " + out);
    return completed.group(1);
  }
}
