package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.Node22;
import io.onceport.testing.UpstreamServers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The latency Onceport adds in front of an upstream MCP tool, measured side by side in one run:
 * the same official TypeScript SDK client calls the same upstream tool ({@code create_ticket} of
 * the ticket server, a side-effecting call with unique arguments each time) directly and through
 * the whole gateway (embedded engine, worker, journals, the mcp channel), in alternating rounds so
 * both see the same machine load. Prints one line with both distributions; asserts every call
 * succeeded and the upstream received exactly one call per request.
 *
 * <p>Reproduce: {@code mvn -B -o test -Dtest=McpUpstreamLatencyTest} (ONCEPORT_LATENCY_CALLS sets the
 * calls per side, default 60).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class McpUpstreamLatencyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aCallThroughOnceportAndADirectCallToTheSameUpstreamToolAreMeasuredSideBySide() throws Exception {
    int perSide = Integer.parseInt(System.getenv().getOrDefault("ONCEPORT_LATENCY_CALLS", "60"));
    int rounds = 3;
    Path node = Node22.ready().resolve("node");
    try (UpstreamServers.Http upstream = UpstreamServers.Http.start()) {
      Path contracts = Files.createTempDirectory("onceport-latency");
      StringWriter err = new StringWriter();
      var cl = OnceportCommand.commandLine();
      cl.setOut(new PrintWriter(new StringWriter()));
      cl.setErr(new PrintWriter(err));
      assertEquals(0, cl.execute("contracts", "import-mcp", "--url", upstream.url(), "--tool", "create_ticket",
          "--out", contracts.toString()), err.toString());
      try (GatewayHarness gateway = new GatewayHarness(true, Duration.ofSeconds(20), UpstreamServers.contractFiles(contracts))) {
        String through = "http://127.0.0.1:" + gateway.frontend.port() + "/mcp";
        bench(node, through, gateway.token, 5); // warm both paths: JIT, workflow caches, the node client
        bench(node, upstream.url(), "-", 5);
        List<Long> direct = new ArrayList<>();
        List<Long> onceport = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
          direct.addAll(bench(node, upstream.url(), "-", perSide / rounds));
          onceport.addAll(bench(node, through, gateway.token, perSide / rounds));
        }
        long received = upstream.ledger().stream().filter(e -> e.get("tool").asText().equals("create_ticket")).count();
        assertEquals(10 + direct.size() + onceport.size(), received, "one upstream call per request, none repeated");
        String line = String.format(Locale.ROOT,
            "mcp upstream latency, %d calls each, same client, same upstream tool: direct p50 %.2f ms p95 %.2f ms | "
                + "through onceport p50 %.2f ms p95 %.2f ms | added p50 %.2f ms",
            direct.size(), ms(direct, 50), ms(direct, 95), ms(onceport, 50), ms(onceport, 95), ms(onceport, 50) - ms(direct, 50));
        System.out.println(line);
        Files.writeString(Path.of("target", "mcp-upstream-latency.txt"), line + "\n");
      }
    }
  }

  private static List<Long> bench(Path node, String url, String token, int n) throws Exception {
    Node22.Result r = Node22.start(List.of(node.toString(), "upstream-client.mjs", url, token, "bench", "create_ticket",
        String.valueOf(n)), Node22.PROJECT, Map.of()).await(Duration.ofMinutes(2));
    List<Long> micros = new ArrayList<>();
    for (String l : r.output()) {
      if (l.startsWith("{")) {
        JsonNode j = JSON.readTree(l);
        if (j.path("event").asText().equals("sample")) {
          assertFalse(j.get("isError").asBoolean(), l);
          micros.add(j.get("micros").asLong());
        }
      }
    }
    assertEquals(n, micros.size(), r.text());
    return micros;
  }

  private static double ms(List<Long> micros, int percentile) {
    List<Long> sorted = micros.stream().sorted().toList();
    int i = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i))) / 1000.0;
  }
}
