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
 * The first-hour path runs as written, one page after another on one gateway, so it cannot drift:
 * the README's first-call blocks run verbatim in bash (its {@code bin/onceport} is this build, its
 * ports moved by an {@code ./onceport.yaml} config file), then the walkthrough, then each SDK page's
 * client through the page's own run line (in the page's scratch directory under {@code ~}, here the
 * test's own home), then the pinned MCP Inspector line. No page starts a second gateway, and none
 * writes into the repository. The install lines are checked against the pins the tests install
 * (src/test/python/requirements.txt, src/test/node/package.json, src/test/inspector/package.json).
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class QuickstartDocsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path README = Path.of("README.md");
  private static final Path WALKTHROUGH = Path.of("docs/walkthrough.md");
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
   * The README starts the gateway and makes a call; the walkthrough and both SDK pages then run
   * against that same gateway, each through its own blocks, and every execution they made reached
   * the demo target exactly once.
   */
  @Test
  void theReadmeTheWalkthroughAndBothQuickstartsRunOneAfterAnother() throws Exception {
    String gateway = block(README, "sh", "bin/onceport serve --session-authorization auto &");
    for (Path page : List.of(WALKTHROUGH, PYTHON_DOC, TYPESCRIPT_DOC)) {
      assertTrue(blocks(page).stream().noneMatch(b -> b.text().contains("bin/onceport serve") || b.text().contains("demo-target &")),
          page + " starts no second gateway or demo target");
    }
    Path home = Files.createDirectories(work.resolve("home"));
    Path python = PythonMcp.ready();
    // The page's .venv/bin/python in its scratch directory, standing for the SDK's pinned venv.
    Path pyDir = Files.createDirectories(home.resolve("onceport-quickstart-py"));
    Path venvPython = Files.createDirectories(pyDir.resolve(".venv/bin")).resolve("python");
    Files.writeString(venvPython, "#!/bin/sh\nexec \"" + python + "\" \"$@\"\n");
    Files.setPosixFilePermissions(venvPython, PosixFilePermissions.fromString("rwxr-xr-x"));
    String pythonCode = block(PYTHON_DOC, "python", "streamable_http_client");
    Files.writeString(pyDir.resolve(fileName(pythonCode, "# ")), pythonCode);

    Path node = Node22.ready();
    Node22.ready(Path.of("src/test/inspector").toAbsolutePath());
    Path tsDir = Files.createDirectories(home.resolve("onceport-quickstart-ts"));
    Files.createSymbolicLink(tsDir.resolve("node_modules"), Node22.PROJECT.resolve("node_modules"));
    String jsCode = block(TYPESCRIPT_DOC, "js", "StreamableHTTPClientTransport");
    Files.writeString(tsDir.resolve(fileName(jsCode, "// ")), jsCode);
    String inspector = block(TYPESCRIPT_DOC, "sh", "@modelcontextprotocol/inspector@");

    // The walkthrough as written, less the lines that name an execution by a placeholder (act_...).
    String walkthrough = block(WALKTHROUGH, "sh", "bin/onceport operator add").lines()
        .filter(l -> !l.contains("act_...")).reduce("", (a, l) -> a + l + "\n");
    String clients = "echo README-CALL\n" + block(README, "sh", "tools/call")
        + "\necho WALKTHROUGH\n" + walkthrough
        + "echo PYTHON-QUICKSTART\n(" + block(PYTHON_DOC, "sh", "quickstart.py").strip() + ")\n"
        + "echo TYPESCRIPT-QUICKSTART\n(" + block(TYPESCRIPT_DOC, "sh", "node quickstart.mjs").strip() + ")\n"
        // The Inspector runs from its pinned project (offline: the pinned version, never a download),
        // pointed at the moved MCP port like everything else.
        + "echo INSPECTOR\n(cd '" + Path.of("src/test/inspector").toAbsolutePath() + "' && npm_config_offline=true "
        + inspector.strip().replace("http://127.0.0.1:8765/mcp", "\"$ONCEPORT_URL\"") + ")\n";
    Run run = runQuickstart(gateway, clients, Map.of("PATH", node + ":" + System.getenv("PATH"), "HOME", home.toString()));
    String out = String.join("\n", run.output());
    assertTrue(section(out, "README-CALL", "WALKTHROUGH").contains("\"state\":\"completed\""), out);
    String walk = section(out, "WALKTHROUGH", "PYTHON-QUICKSTART");
    assertTrue(walk.contains("\"attached\":true"), "the walkthrough's retry attached: " + walk);
    assertTrue(walk.contains("operator ") && walk.contains(" registered in "), walk);
    List<String> executions = new ArrayList<>();
    executions.addAll(assertCalled(section(out, "PYTHON-QUICKSTART", "TYPESCRIPT-QUICKSTART")));
    executions.addAll(assertCalled(section(out, "TYPESCRIPT-QUICKSTART", "INSPECTOR")));
    for (String id : executions) {
      assertEquals(1, run.posts().getOrDefault(id, 0L), id + " reached the demo target once: " + run.posts());
    }
    run.posts().forEach((key, posts) -> assertEquals(1L, posts, key + " was sent once: " + run.posts()));
    String listing = section(out, "INSPECTOR", "QUICKSTART-CLIENT-DONE");
    JsonNode listed = JSON.readTree(listing.substring(listing.indexOf('{'), listing.lastIndexOf('}') + 1));
    assertTrue(listed.get("tools").findValuesAsText("name").contains("create_release"), "the Inspector listed the tools: " + listing);
    try (Stream<Path> files = Files.list(work)) {
      assertEquals(List.of(), files.map(p -> p.getFileName().toString())
          .filter(n -> n.equals(".venv") || n.equals("node_modules") || n.equals("package.json")).toList(),
          "no page wrote its scratch files into the repository root");
    }
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
  void theReadmeLinksTheWalkthroughAndBothQuickstartsAndStaysShort() throws Exception {
    String text = Files.readString(README);
    assertTrue(text.contains("(docs/walkthrough.md)") && text.contains("(docs/quickstart-python.md)")
        && text.contains("(docs/quickstart-typescript.md)"), "README links the first-hour pages");
    long lines = text.lines().count();
    assertTrue(lines <= 250, "README is a product page of at most 250 lines, not " + lines);
    assertTrue(text.contains("\nbin/onceport serve\n") && text.contains("\nmvn -B test\n"), "the two commands, as they are run");
  }

  private static String fileName(String code, String comment) {
    String first = code.lines().findFirst().orElseThrow();
    assertTrue(first.startsWith(comment), "the block names its file on its first line: " + first);
    return first.substring(comment.length()).trim();
  }

  /** @param posts the demo target's POSTs to /v1/releases, by Idempotency-Key (the execution id) */
  record Run(List<String> output, Map<String, Long> posts) {}

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
    // `list` and `investigate` (the walkthrough's) read records from that engine.
    Files.writeString(work.resolve("onceport.yaml"), "serve:\n  listen: 127.0.0.1:" + mcp + "\n  embedded-port: " + engine
        + "\n  engine: embedded\ndemo-target:\n  listen: 127.0.0.1:" + demo + "\nlist:\n  temporal: 127.0.0.1:" + engine
        + "\ninvestigate:\n  temporal: 127.0.0.1:" + engine + "\n");
    // The jobs the page starts end with the script, however it ends (so a failure shows at once).
    String script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + gateway + "jobs -p > jobs.pids\n"
        // "Wait for its line ending in `ready`": what /readyz says too.
        + "for i in $(seq 1 360); do curl -sf http://127.0.0.1:" + mcp + "/readyz >/dev/null && break; sleep 0.5; done\n"
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
      Map<String, Long> posts = new HashMap<>();
      for (JsonNode e : JSON.readTree(ledger.body())) {
        if (e.path("path").asText().equals("/v1/releases") && e.path("method").asText().equals("POST")) {
          posts.merge(e.path("key").asText(), 1L, Long::sum);
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

  /**
   * The page's client listed the tools, completed one execution, got the same one back for the
   * same intent key and a new one for a new key; returns both ids.
   */
  private static List<String> assertCalled(String out) {
    assertTrue(out.contains("tools: create_release, create_release_keyed, list_releases, onceport_execution_status, rotate_credential, "
        + "send_notification"), out);
    Matcher completed = Pattern.compile("(?m)^completed (act_[0-9A-Z]{26})$").matcher(out);
    assertTrue(completed.find(), out);
    String first = completed.group(1);
    assertTrue(out.contains("\"key\":\"" + first + "\""), "the target saw the execution id as its key: " + out);
    assertTrue(out.contains("\nsame key: " + first + "\n"), "the same intent key is the same execution: " + out);
    Matcher other = Pattern.compile("(?m)^new key: (act_[0-9A-Z]{26})$").matcher(out);
    assertTrue(other.find() && !other.group(1).equals(first), "a new intent key is a new execution: " + out);
    return List.of(first, other.group(1));
  }
}
