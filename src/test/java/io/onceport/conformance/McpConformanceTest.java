package io.onceport.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.ChildProcess;
import io.onceport.testing.Node22;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance}, pinned in
 * src/test/node) against {@code onceport serve} in a child JVM, with the conformance contract set
 * backed by src/test/node/fixture-target.mjs. The suite's own baseline check decides: exit 0 means
 * every scenario passed except those in src/test/resources/conformance/expected-failures.yaml, and
 * that none of those passed (a stale entry fails too). bin/mcp-conformance does the same by hand.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class McpConformanceTest {
  static final Path CONTRACTS = Path.of("src/test/resources/conformance-contracts");
  static final Path BASELINE = Path.of("src/test/resources/conformance/expected-failures.yaml").toAbsolutePath();
  static final Path RESULTS = Path.of("target/conformance-results").toAbsolutePath();

  @Test
  void officialSuitePassesEveryScenarioThatAppliesToAToolGateway(@TempDir Path tmp) throws Exception {
    Path node = Node22.ready().resolve("node");
    try (Node22.Started target = Node22.start(List.of(node.toString(), "fixture-target.mjs"), Node22.PROJECT, Map.of())) {
      String line = target.awaitLine("listening on", Duration.ofSeconds(20));
      int targetPort = Integer.parseInt(line.substring(line.lastIndexOf(' ') + 1).trim());
      Path contracts = Files.createDirectories(tmp.resolve("contracts"));
      try (var files = Files.list(CONTRACTS)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
          Files.writeString(contracts.resolve(f.getFileName()),
              Files.readString(f).replace("127.0.0.1:18767", "127.0.0.1:" + targetPort));
        }
      }
      int mcpPort = freePort();
      // --call-wait PT2S: test_reconnection (3 s at the target) outlives the wait, so its SSE stream
      // closes before the result and the suite resumes it with Last-Event-ID (server-sse-polling).
      try (ChildProcess serve = ChildProcess.onceport(tmp, "serve", "--engine", "embedded", "--allow-anonymous", "--session-authorization", "auto",
          "--listen", "127.0.0.1:" + mcpPort, "--embedded-port", Integer.toString(freePort()),
          "--contracts", contracts.toString(), "--data", tmp.resolve("data").toString(), "--call-wait", "PT2S")) {
        serve.awaitLine("MCP endpoint", Duration.ofSeconds(90));
        Node22.Result suite = Node22.start(List.of(node.toString(),
                Node22.PROJECT.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js").toString(),
                "server", "--url", "http://127.0.0.1:" + mcpPort + "/mcp", "--suite", "all",
                "--expected-failures", BASELINE.toString(), "-o", RESULTS.toString()),
            Node22.PROJECT, Map.of("NO_COLOR", "1")).await(Duration.ofMinutes(4));
        String summary = suite.output().stream().filter(l -> l.startsWith("Total: ")).findFirst().orElse("(no summary line)");
        int from = suite.output().indexOf("=== SUMMARY ===");
        if (from >= 0) {
          System.out.println(String.join("\n", suite.output().subList(from, suite.output().size())));
        }
        System.out.println("MCP conformance: " + summary + "; results in " + RESULTS);
        assertEquals(0, suite.exit(), "conformance suite failed (" + summary + "):\n" + suite.text()
            + "\n--- onceport serve output:\n" + String.join("\n", serve.output()));
        assertTrue(suite.text().contains("Baseline check passed"), suite.text());
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
