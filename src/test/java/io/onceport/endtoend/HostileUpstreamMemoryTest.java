package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.McpClient;
import io.onceport.testing.Node22;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile upstream MCP servers (upstream-hostile.mjs: over stdio with the TypeScript SDK, and a
 * plain Streamable HTTP server) answer with messages of {@value #HUGE_MIB} MiB — a stdio line, an SSE
 * data line, a JSON body — to a real {@code serve} in a child JVM whose heap is smaller than one such
 * message ({@value #HEAP}). Reading them whole threw OutOfMemoryError (one 1.4 GB line did in the
 * review). Now each read stops at the 16 MiB cap: the calls end as an unknown outcome that says
 * "too large", a huge notification is dropped and the call it preceded completes, a huge stderr line
 * is logged cut — and the process is still serving afterwards.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class HostileUpstreamMemoryTest {
  static final int HUGE_MIB = 256;
  static final String HEAP = "-Xmx192m";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern MCP_PORT = Pattern.compile("MCP endpoint http://127\\.0\\.0\\.1:(\\d+)/mcp");

  @TempDir Path dir;

  private static String contract(String tool, String upstream) {
    return """
        tool: %s
        description: A tool of a hostile upstream.
        input_schema: {type: object, properties: {id: {type: string}}}
        channel: mcp
        mcp:
        %s
          tool: %s
          timeout: PT150S
        replay: {class: irreversible}
        """.formatted(tool, upstream, tool);
  }

  @Test
  void answersFarOverTheCapEndAsTooLargeWhileTheHeapStaysWithinItsBound() throws Exception {
    Path node = Node22.ready().resolve("node");
    Path script = Node22.PROJECT.resolve("upstream-hostile.mjs");
    try (Node22.Started http = Node22.start(List.of(node.toString(), script.toString(), "--http"), Node22.PROJECT,
        Map.of("HUGE_MIB", Integer.toString(HUGE_MIB)))) {
      String listening = http.awaitLine("upstream-hostile listening on ", Duration.ofSeconds(60));
      String url = "http://127.0.0.1:" + listening.substring(listening.lastIndexOf(' ') + 1).trim() + "/mcp";
      Path contracts = Files.createDirectories(dir.resolve("contracts"));
      String stdio = "  command: [" + JSON.writeValueAsString(node.toString()) + ", " + JSON.writeValueAsString(script.toString())
          + "]\n  env: {HUGE_MIB: \"" + HUGE_MIB + "\"}";
      Files.writeString(contracts.resolve("flood.yaml"), contract("flood", stdio));
      Files.writeString(contracts.resolve("flood_note.yaml"), contract("flood_note", stdio));
      Files.writeString(contracts.resolve("flood_sse.yaml"), contract("flood_sse", "  url: " + url));
      Files.writeString(contracts.resolve("flood_json.yaml"), contract("flood_json", "  url: " + url));
      Path data = dir.resolve("data");
      String token = new AgentRegistry(data).add("agent:hostile");

      try (ChildProcess serve = ChildProcess.java(List.of(HEAP, "-XX:+ExitOnOutOfMemoryError"), "io.onceport.app.Main", dir, Map.of(),
          "serve", "--engine", "embedded", "--data", data.toString(), "--contracts", contracts.toString(),
          "--listen", "127.0.0.1:0", "--embedded-port", Integer.toString(Cluster.freePort()),
          "--session-authorization", "auto", "--call-wait", "PT150S")) {
        serve.awaitLine("onceport: MCP endpoint", Duration.ofSeconds(120));
        int port = serve.output().stream().map(MCP_PORT::matcher).filter(Matcher::find)
            .mapToInt(m -> Integer.parseInt(m.group(1))).findFirst().orElseThrow();
        McpClient client = new McpClient(port, token).initialize();

        int id = 1;
        for (String tool : List.of("flood", "flood_sse", "flood_json")) {
          JsonNode r = client.call(id++, tool, JSON.createObjectNode().put("id", tool));
          JsonNode execution = r.at("/result/structuredContent");
          assertEquals("needs_review", execution.path("state").asText(), tool + ": " + r);
          assertEquals("unknown", execution.path("outcome").asText(), tool + ": " + r);
          assertTrue(execution.path("message").asText().contains("too large (over 16777216 bytes"), tool + ": " + r);
          assertTrue(serve.isAlive(), tool + ": " + String.join("\n", serve.output()));
        }
        JsonNode note = client.call(id, "flood_note", JSON.createObjectNode().put("id", "note"));
        assertEquals("completed", note.at("/result/structuredContent/state").asText(), note.toString());
        assertEquals("done: flood_note", note.at("/result/content/0/text").asText(), note.toString());
        assertTrue(serve.output().stream().anyMatch(l -> l.contains("[stderr] stderr flood xxxx")
            && l.contains("(a line of " + (HUGE_MIB * 1024L * 1024 + "stderr flood ".length()) + " bytes, cut)")), "stderr line logged cut");
        assertTrue(serve.output().stream().anyMatch(l -> l.contains("dropped a notification notifications/message")),
            "the huge notification was dropped: " + String.join("\n", serve.output()));
        assertTrue(serve.isAlive(), String.join("\n", serve.output()));
      }
    }
  }
}
