package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The bench's storm section: {@code stormCalls} identical calls at once, against the driver's floor
 * (as many concurrent pings), counting answers, execution ids and dispatches at the target.
 */
final class BenchStorm {
  private final Bench bench;
  private final BenchSettings settings;
  private final String run;

  BenchStorm(Bench bench) {
    this.bench = bench;
    this.settings = bench.settings;
    this.run = bench.run;
  }

  /**
   * {@code stormCalls} identical calls at once. The driver's floor is the same number of
   * concurrent {@code ping}s to the same endpoint through a fresh client (connection set-up
   * included, as in the storm): what the load driver and the HTTP stack cost without a tool.
   *
   * <p>The target holds the storm's action until every call has had time to arrive (twice the
   * floor, at least a second), as {@code StormEndToEndTest} does: the calls are then concurrent —
   * all of them arrived before any caller was answered. Without the hold, a call the driver sends
   * after an earlier one's answer was delivered is a new intent by the gateway's rule (bound to the
   * run open at its arrival) and rightly starts a second execution. {@code answered_after_hold_ms}
   * is how long after the target's answer the last caller was answered (counted from the first
   * call sent), {@code beyond_floor_ms} that less the driver's floor.
   */
  ObjectNode storm(BenchRig rig) throws Exception {
    int n = settings.stormCalls();
    say("bench: storm of " + n + " identical concurrent calls");
    ObjectNode s = McpDriver.JSON.createObjectNode();
    s.put("calls", n);
    ExecutorService executor = stormExecutor();
    try {
      long floor = floor(rig, n, executor, s);
      if (floor >= 0) {
        s.put("driver_floor_ms", floor / 1_000_000);
      }
      Duration hold = Duration.ofMillis(Math.max(1_000, 2 * Math.max(0, floor) / 1_000_000));
      rig.holdNextAction(hold);
      s.put("hold_ms", hold.toMillis());
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
          .connectTimeout(Duration.ofSeconds(30)).build();
      McpDriver d = new McpDriver(http, rig.mcp(), rig.token).initialize();
      String version = run + "-storm";
      String args = "{\"service\":\"bench-storm\",\"version\":\"" + version + "\"}";
      List<CompletableFuture<JsonNode>> calls = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        calls.add(d.callAsync(settings.tool(), args, McpDriver.ACCEPT_JSON, settings.stormTimeout()));
      }
      try {
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
            .get(settings.stormTimeout().plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
        // counted below, call by call
      }
      long elapsed = System.nanoTime() - t0;
      put(s, tally(calls), rig.actionsContaining(version), elapsed, hold, floor);
    } finally {
      executor.shutdownNow();
    }
    return s;
  }

  private static void put(ObjectNode s, Tally tally, int dispatches, long elapsedNanos, Duration hold, long floorNanos) {
    s.put("answered", tally.answered());
    s.put("completed", tally.completed());
    s.put("execution_ids", tally.executionIds());
    s.put("dispatches", dispatches);
    s.put("elapsed_ms", elapsedNanos / 1_000_000);
    long afterHold = Math.max(0, elapsedNanos / 1_000_000 - hold.toMillis());
    s.put("answered_after_hold_ms", afterHold);
    if (floorNanos >= 0) {
      // The figure: what the storm took beyond the hold and the driver's own floor.
      s.put("beyond_floor_ms", afterHold - floorNanos / 1_000_000);
    }
    if (!tally.failures().isEmpty()) {
      ObjectNode fo = s.putObject("unanswered");
      tally.failures().forEach(fo::put);
    }
    s.put("load_after", Bench.loadAverage());
  }

  /** Eight daemon threads for the storm's HTTP clients. */
  private static ExecutorService stormExecutor() {
    return Executors.newFixedThreadPool(8, r -> {
      Thread t = new Thread(r, "bench-storm");
      t.setDaemon(true);
      return t;
    });
  }

  /** How the storm's calls ended: answered (and completed), how many execution ids, and why the others were not. */
  private record Tally(int answered, int completed, int executionIds, Map<String, Integer> failures) {}

  /** Counts each call's end, and cancels what is still running. */
  private Tally tally(List<CompletableFuture<JsonNode>> calls) throws Exception {
    int answered = 0;
    int completed = 0;
    Set<String> ids = new HashSet<>();
    Map<String, Integer> failures = new LinkedHashMap<>();
    for (CompletableFuture<JsonNode> f : calls) {
      if (f.isDone() && !f.isCompletedExceptionally()) {
        answered++;
        JsonNode summary = f.get().path("_meta").path("onceport/execution");
        String id = summary.path("execution_id").asText(null);
        if (id != null) {
          ids.add(id);
        }
        if ("completed".equals(summary.path("state").asText())) {
          completed++;
        }
      } else {
        String why = f.isDone() ? rootMessage(f) : "no answer within " + settings.stormTimeout().toSeconds() + " s";
        failures.merge(why, 1, Integer::sum);
      }
      f.cancel(true);
    }
    return new Tally(answered, completed, ids.size(), failures);
  }

  /** The floor in nanoseconds, or -1 when some pings failed (counted in {@code driver_floor_failures}). */
  private long floor(BenchRig rig, int n, ExecutorService executor, ObjectNode s) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
        .connectTimeout(Duration.ofSeconds(30)).build();
    McpDriver d = new McpDriver(http, rig.mcp(), rig.token).initialize();
    List<CompletableFuture<Integer>> pings = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      pings.add(d.pingAsync(settings.stormTimeout()));
    }
    try {
      CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new))
          .get(settings.stormTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      // counted below
    }
    long elapsed = System.nanoTime() - t0;
    long failed = pings.stream().filter(p -> !p.isDone() || p.isCompletedExceptionally() || p.join() != 200).count();
    pings.forEach(p -> p.cancel(true));
    if (failed > 0) {
      s.put("driver_floor_failures", failed);
      return -1;
    }
    return elapsed;
  }

  private static String rootMessage(CompletableFuture<?> f) {
    try {
      f.join();
      return "?";
    } catch (RuntimeException e) {
      Throwable t = e;
      while (t.getCause() != null && t.getCause() != t) {
        t = t.getCause();
      }
      return t.getClass().getSimpleName() + ": " + McpDriver.abbreviate(t.getMessage());
    }
  }

  private void say(String line) {
    bench.say(line);
  }
}
