package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The loads of issue 25 item 4 against a real front end with the default limits and 2,000 request
 * threads: agent {@code agent:other} sends 2,050 {@code tasks/result} waits at once and 500 {@code
 * initialize}s — which once took every request thread (another agent's {@code tools/list} timed
 * out at 40 s) — while the well-behaved {@code agent:deployer} keeps calling {@code tools/list}. Its
 * p50 stays within 2× of its p50 before the flood; the flood is refused beyond the agent's limits
 * (HTTP 429) and stops by itself (the held waits end with the task-result wait). The full size is
 * tagged {@code long}; the default run sends 300 waits and 200 initializes.
 */
class AgentFloodTest {
  private static final Duration HOLD = Duration.ofSeconds(8);
  private McpHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  @Timeout(120)
  void aFloodOf300WaitsAnd200InitializesLeavesAnotherAgentsP50WithinTwice() throws Exception {
    flood(300, 200);
  }

  @Test
  @Tag("long")
  @Timeout(300)
  void theIssuesFloodOf2050WaitsAnd500InitializesLeavesAnotherAgentsP50WithinTwice() throws Exception {
    flood(2050, 500);
  }

  private HttpRequest.Builder as(String token, String session) {
    HttpRequest.Builder b = h.request(h.server).setHeader("Authorization", "Bearer " + token).setHeader("Accept", "application/json")
        .timeout(Duration.ofSeconds(120));
    return session == null ? b : b.setHeader("Mcp-Session-Id", session);
  }

  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"flood\",\"version\":\"1\"}}}";

  private String session(String token) throws Exception {
    HttpResponse<String> r = h.http.send(as(token, null).POST(HttpRequest.BodyPublishers.ofString(INIT)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  /** Milliseconds of {@code n} sequential {@code tools/list}s of the well-behaved agent, sorted. */
  private List<Double> toolsList(String session, int n, CompletableFuture<?> until) throws Exception {
    List<Double> ms = new ArrayList<>();
    HttpRequest list = as(McpHarness.TOKEN, session)
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}")).build();
    while (ms.size() < n || until != null && !until.isDone() && ms.size() < 50_000) {
      long t0 = System.nanoTime();
      HttpResponse<String> r = h.http.send(list, HttpResponse.BodyHandlers.ofString());
      ms.add((System.nanoTime() - t0) / 1e6);
      assertEquals(200, r.statusCode(), r.body());
    }
    ms.sort(Double::compare);
    return ms;
  }

  private static double p50(List<Double> sorted) {
    return sorted.get(sorted.size() / 2);
  }

  private void flood(int waits, int initializes) throws Exception {
    h = new McpHarness(McpHarness.base().taskResultWait(HOLD));
    String good = session(McpHarness.TOKEN);
    toolsList(good, 300, null); // warm-up: JIT, connections
    double before = p50(toolsList(good, 200, null));

    String bad = session("tok-other");
    HttpResponse<String> created = h.http.send(as("tok-other", bad).POST(HttpRequest.BodyPublishers.ofString(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hang\",\"arguments\":{},"
            + "\"task\":{\"ttl\":600000}}}")).build(), HttpResponse.BodyHandlers.ofString());
    String taskId = McpHarness.json(created.body()).at("/result/task/taskId").asText();
    assertTrue(taskId.startsWith("act_"), created.body());

    HttpClient flooder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    AtomicInteger busy = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    List<CompletableFuture<Void>> all = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < waits; i++) {
      HttpRequest r = as("tok-other", bad).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":" + (10 + i) + ",\"method\":\"tasks/result\",\"params\":{\"taskId\":\"" + taskId + "\"}}")).build();
      all.add(flooder.sendAsync(r, HttpResponse.BodyHandlers.ofString()).thenAccept(x -> (x.statusCode() == 429 ? busy : answered)
          .incrementAndGet()));
    }
    AtomicInteger sessions = new AtomicInteger();
    for (int i = 0; i < initializes; i++) {
      all.add(flooder.sendAsync(as("tok-other", null).POST(HttpRequest.BodyPublishers.ofString(INIT)).build(),
          HttpResponse.BodyHandlers.ofString()).thenAccept(x -> (x.statusCode() == 429 ? busy : sessions).incrementAndGet()));
    }
    CompletableFuture<Void> done = CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    Thread watcher = new Thread(() -> {
      while (!done.isDone()) {
        peak.accumulateAndGet(h.server.longWaits("agent:other"), Math::max);
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    watcher.start();
    List<Double> during = toolsList(good, 30, done);
    done.get(HOLD.toSeconds() + 60, TimeUnit.SECONDS);
    watcher.join();
    double floodSeconds = (System.nanoTime() - t0) / 1e9;
    double after = p50(during);
    System.out.printf("AgentFloodTest: %d waits + %d initializes by agent:other: %d refused (429), %d waits answered after the "
        + "task-result wait, %d sessions opened, peak held waits %d; agent:deployer tools/list p50 %.2f ms before, %.2f ms during "
        + "(%d samples, p90 %.2f ms); the flood ended by itself after %.1f s%n", waits, initializes, busy.get(), answered.get(),
        sessions.get(), peak.get(), before, after, during.size(), during.get(during.size() * 9 / 10), floodSeconds);

    assertTrue(peak.get() <= AgentLimits.DEFAULT_LONG_WAITS, "held waits " + peak.get());
    assertEquals(AgentLimits.DEFAULT_SESSIONS_PER_MINUTE, sessions.get() + 1, "the flooder's sessions: its first + 59 more");
    assertEquals(waits + initializes, busy.get() + answered.get() + sessions.get());
    assertTrue(answered.get() <= AgentLimits.DEFAULT_LONG_WAITS, "answered " + answered.get());
    // Sub-millisecond medians are timer noise: compare with at least 1 ms.
    assertTrue(after <= 2 * Math.max(before, 1.0), String.format("p50 %.2f ms during the flood, %.2f ms before", after, before));
  }
}
