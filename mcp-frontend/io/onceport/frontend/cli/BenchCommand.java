package io.onceport.frontend.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.demo.DemoTarget;
import io.onceport.frontend.runtime.FrontendRuntime;
import io.onceport.frontend.runtime.WorkerRuntime;
import io.onceport.frontend.temporal.EmbeddedEngine;
import io.onceport.frontend.temporal.TemporalConnection;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code onceport bench}: the latency a tools/call pays for execution identity. Starts the demo
 * target and a complete gateway (embedded engine, worker, MCP front end) on free loopback ports in
 * this JVM, then alternates direct POSTs to the target with the same action through MCP, and prints
 * the medians and their ratio, both measured in the same run.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Measure tools/call latency through the gateway against a direct call to the same endpoint.")
public final class BenchCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Option(names = "--calls", defaultValue = "200", description = "Measured calls of each kind (default: ${DEFAULT-VALUE}).")
  int calls;

  @Option(names = "--warmup", defaultValue = "30", description = "Unmeasured calls of each kind first (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--tool", defaultValue = "create_release", description = "Demo tool to call (default: ${DEFAULT-VALUE}).")
  String tool;

  @Mixin SoakOptions soak;

  @Option(names = "--json", description = "Print the figures as one JSON document instead of the table (progress goes to stderr).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    if (soak.requested()) {
      return soak.run(spec, json);
    }
    if (calls < 1 || warmup < 0) {
      throw new CliException("--calls must be at least 1 and --warmup at least 0");
    }
    PrintWriter out = spec.commandLine().getOut();
    Path dir = Files.createTempDirectory("onceport-bench");
    Path data = dir.resolve("data");
    List<AutoCloseable> running = new ArrayList<>();
    try {
      DemoTarget target = DemoTarget.start("127.0.0.1", 0);
      running.add(target);
      Path contracts = Files.createDirectories(dir.resolve("contracts"));
      try (var files = Files.list(Path.of("contracts"))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
          Files.writeString(contracts.resolve(f.getFileName()),
              Files.readString(f).replace("127.0.0.1:8766", "127.0.0.1:" + target.port()));
        }
      }
      ContractSet tools = new ContractLoader().load(contracts);
      String token = new AgentRegistry(data).add("agent:bench");
      EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
      running.add(engine);
      io.onceport.frontend.ops.Metrics metrics = new io.onceport.frontend.ops.Metrics();
      running.add(metrics);
      TemporalConnection connection = TemporalConnection.connect(engine.target(), "default", true,
          io.onceport.activity.codec.Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope());
      running.add(connection);
      connection.registerSearchAttributes();
      running.add(WorkerRuntime.start(connection, "bench", data, null, "auto", Duration.ofMinutes(1), null));
      FrontendRuntime frontend = FrontendRuntime.start(connection, "bench", data, tools,
          io.onceport.frontend.runtime.FrontendSettings.loopback(Duration.ofSeconds(30), "auto"), metrics);
      running.add(frontend);

      HttpClient http = HttpClient.newHttpClient();
      URI mcp = URI.create("http://127.0.0.1:" + frontend.port() + "/mcp");
      HttpResponse<String> init = http.send(post(mcp, token, null,
          "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
              + "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}"), HttpResponse.BodyHandlers.ofString());
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow(() -> new CliException("initialize failed: " + init.body()));
      URI direct = URI.create(target.url() + "/v1/releases");

      List<Long> viaGateway = new ArrayList<>();
      List<Long> viaDirect = new ArrayList<>();
      for (int i = 0; i < warmup + calls; i++) {
        String args = "{\"service\":\"bench\",\"version\":\"" + i + "\",\"region\":\"us-east-1\"}";
        long t0 = System.nanoTime();
        HttpResponse<String> d = http.send(HttpRequest.newBuilder(direct).header("Content-Type", "application/json")
            .header("Idempotency-Key", "direct-" + i).POST(HttpRequest.BodyPublishers.ofString(args)).build(),
            HttpResponse.BodyHandlers.ofString());
        long t1 = System.nanoTime();
        HttpResponse<String> g = http.send(post(mcp, token, session,
            "{\"jsonrpc\":\"2.0\",\"id\":" + (i + 1) + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":{\"service\":\"bench\",\"version\":\"g" + i + "\"}}}"), HttpResponse.BodyHandlers.ofString());
        long t2 = System.nanoTime();
        JsonNode result = JSON.readTree(g.body());
        if (d.statusCode() != 201 || !"completed".equals(result.at("/result/structuredContent/state").asText())) {
          throw new CliException("unexpected answer: direct " + d.statusCode() + ", gateway " + g.body());
        }
        if (i >= warmup) {
          viaDirect.add(t1 - t0);
          viaGateway.add(t2 - t1);
        }
      }
      double direct50 = median(viaDirect);
      double gateway50 = median(viaGateway);
      out.printf("calls: %d of each kind after %d warm-up calls, alternating, one client, loopback%n", calls, warmup);
      out.printf("direct POST to the demo target   median %8.2f ms   p90 %8.2f ms%n", direct50, percentile(viaDirect, 0.9));
      out.printf("tools/call through the gateway   median %8.2f ms   p90 %8.2f ms%n", gateway50, percentile(viaGateway, 0.9));
      out.printf("ratio gateway/direct (median)    %.1fx%n", gateway50 / direct50);
      return 0;
    } finally {
      RoleCommands.closeAll(running);
    }
  }

  private static HttpRequest post(URI uri, String token, String session, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
        .header("Content-Type", "application/json").header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18");
    }
    return b.build();
  }

  private static double median(List<Long> nanos) {
    return percentile(nanos, 0.5);
  }

  private static double percentile(List<Long> nanos, double p) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(p * sorted.size()))) / 1_000_000.0;
  }
}
