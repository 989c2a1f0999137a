package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.shared.codec.Payloads;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.ops.Metrics;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.frontend.mcp.AgentLimits;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.testing.StormDriver;
import io.onceport.testing.TemporalCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Admission is not a reason to start again: a storm of 1,000 concurrent identical {@code
 * tools/call}s is one intent, dispatched exactly once, and every caller is answered with the same
 * execution id — on the embedded engine and on a real Temporal server (the Temporal CLI's dev
 * server, which admits only a few in-flight updates per workflow). The target (a MockWebServer that
 * counts every request it receives) holds its answer until every call was sent, so all 1,000 reach
 * the front end while the execution is open.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class StormEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CALLS = 1_000;

  /**
   * One agent's storm is 1,000 waiting calls: over the default per-agent limit of long waits (64,
   * issue 25), which answers the rest 429 + Retry-After. An operator who expects storms from one
   * agent raises it ({@code --agent-max-waits}); this test does, to show the storm itself.
   */
  private static final AgentLimits STORM_LIMITS =
      new AgentLimits(2_000, AgentLimits.DEFAULT_OPEN_SESSIONS, AgentLimits.DEFAULT_SESSIONS_PER_MINUTE);

  @Test
  void thousandIdenticalConcurrentCallsOnTheEmbeddedEngineDispatchOnceAndAllGetTheSameExecution() throws Exception {
    try (MockWebServer target = new MockWebServer(); Hold hold = new Hold()) {
      target.setDispatcher(hold);
      target.start();
      try (GatewayHarness gateway = new GatewayHarness(true, Duration.ofSeconds(45),
          Map.of("storm_release.yaml", stormContract(target)), s -> s.withAgentLimits(STORM_LIMITS))) {
        McpClient session = gateway.client();
        storm("embedded engine", gateway.frontend.port(), gateway.token, session.session(), hold, target);
      }
    }
  }

  @Test
  void thousandIdenticalConcurrentCallsOnTheTemporalDevServerDispatchOnceAndAllGetTheSameExecution() throws Exception {
    Path binary = TemporalCli.binaryOrSkip();
    Path dir = Files.createTempDirectory("onceport-storm");
    Path data = dir.resolve("data");
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    try (MockWebServer target = new MockWebServer(); Hold hold = new Hold()) {
      target.setDispatcher(hold);
      target.start();
      Files.writeString(contracts.resolve("storm_release.yaml"), stormContract(target));
      try (TemporalCliServer server = TemporalCliServer.start(binary, dir.resolve("temporal"), "127.0.0.1", 0, 0, true, null,
              Duration.ofSeconds(90));
          TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false,
              Payloads.dataConverter(true, data), Duration.ofSeconds(10))) {
        String token = new AgentRegistry(data).add("agent:storm");
        try (WorkerRuntime worker = WorkerRuntime.start(connection, "onceport-storm", data, null, "auto", Duration.ofMinutes(1), "storm");
            FrontendRuntime frontend = FrontendRuntime.start(connection, "onceport-storm", data, new ContractLoader().load(contracts),
                FrontendSettings.loopback(Duration.ofSeconds(45), "auto").withAgentLimits(STORM_LIMITS), new Metrics())) {
          McpClient session = new McpClient(frontend.port(), token).initialize();
          storm("Temporal dev server", frontend.port(), token, session.session(), hold, target);
        }
      }
    }
  }

  private static void storm(String engine, int port, String token, String session, Hold hold, MockWebServer target)
      throws Exception {
    JsonNode args = JSON.createObjectNode().put("service", "storm").put("version", "1.0.0");
    StormDriver.Outcome outcome = new StormDriver(port, token, session).storm(CALLS, "storm_release", args, () -> {
      // Every call was sent; give the front end a moment to take them all in, then let the target answer.
      sleep(1000);
      hold.release();
    }, Duration.ofSeconds(90));
    System.out.printf("storm of %d identical calls on the %s: all written in %d ms, all answered in %d ms (%s of the"
        + " target's release), %d target request(s)%n", CALLS, engine, outcome.written().toMillis(), outcome.elapsed().toMillis(),
        outcome.answered(), target.getRequestCount());
    assertEquals(List.of(), outcome.failures().subList(0, Math.min(5, outcome.failures().size())),
        outcome.failures().size() + " calls got no answer");
    Set<String> ids = new HashSet<>();
    int completed = 0;
    JsonNode other = null;
    for (JsonNode a : outcome.answers()) {
      ids.add(a.at("/result/structuredContent/execution_id").asText());
      if ("completed".equals(a.at("/result/structuredContent/state").asText())) {
        completed++;
      } else if (other == null) {
        other = a;
      }
    }
    assertEquals(1, ids.size(), "one execution for one intent: " + ids);
    assertEquals(CALLS, completed, "every caller got the completed result; one that did not: " + other);
    assertEquals(1, target.getRequestCount(), "the target received one request");
    assertTrue(hold.released(), "the target was held until every call was sent");
  }

  /** A target that answers 201 once released (bounded), counting requests via the MockWebServer. */
  private static final class Hold extends Dispatcher implements AutoCloseable {
    private final CountDownLatch latch = new CountDownLatch(1);

    @Override
    public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
      latch.await(60, TimeUnit.SECONDS);
      return new MockResponse.Builder().code(201).addHeader("Content-Type", "application/json")
          .body("{\"id\":\"rel_storm\",\"service\":\"storm\"}").build();
    }

    void release() {
      latch.countDown();
    }

    boolean released() {
      return latch.getCount() == 0;
    }

    @Override
    public void close() {
      latch.countDown();
    }
  }

  private static String stormContract(MockWebServer target) throws Exception {
    return Files.readString(Path.of("contracts/create_release.yaml"))
        .replace("tool: create_release", "tool: storm_release")
        .replace("127.0.0.1:8766", "127.0.0.1:" + target.getPort());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
