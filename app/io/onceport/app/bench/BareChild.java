package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.engine.WorkerTuning;
import io.onceport.shared.temporal.TemporalConnection;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The bare Temporal baseline in a JVM of its own ({@code onceport bench --bare-jvm}): its worker,
 * client and load driver, so that neither its code nor the gateway's is compiled, deoptimized or
 * collected in the other's JVM. Started with the engine's address, the target's URL, the run id and
 * the gateway worker's bounds (workflow cache size, workflow threads); prints {@code bare ready},
 * then answers one JSON line (prefixed {@value #REPLY}) per command on stdin:
 *
 * <ul>
 *   <li>{@code call N}: one call (C=1), timed here, so the pipe's round trip is not in its latency;
 *   <li>{@code batch C WINDOW_MS}: {@code C} callers for the window, as the bench's own batches run,
 *       with the calls' median and 99th-percentile latency.
 * </ul>
 *
 * Exits when its stdin closes (the bench's lifeline), as the engine child does.
 */
public final class BareChild {
  static final String READY = "bare ready";
  static final String REPLY = "@";

  private final BareTemporal bare;
  private final RpcCounter rpcs;
  private final String run;
  private final AtomicLong next = new AtomicLong();

  private BareChild(BareTemporal bare, RpcCounter rpcs, String run) {
    this.bare = bare;
    this.rpcs = rpcs;
    this.run = run;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println("usage: BareChild ENGINE_TARGET TARGET_URL RUN WORKFLOW_CACHE_SIZE WORKFLOW_THREADS");
      System.exit(2);
    }
    RpcCounter rpcs = new RpcCounter();
    WorkerTuning tuning = new WorkerTuning(Integer.parseInt(args[3]), Integer.parseInt(args[4]));
    // The default data converter (no encryption), sticky workflow tasks: as the baseline had them in the bench JVM.
    try (TemporalConnection connection = TemporalConnection.connect(args[0], "default", false, null, Duration.ofSeconds(30),
        null, List.of(rpcs));
        BareTemporal bare = BareTemporal.start(connection.stubs(), "default", args[1], tuning)) {
      new BareChild(bare, rpcs, args[2]).serve(System.out);
    }
    System.exit(0);
  }

  private void serve(PrintStream out) throws Exception {
    out.println(READY);
    out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] p = line.trim().split(" ");
      ObjectNode reply;
      try {
        reply = switch (p[0]) {
          case "call" -> call(Integer.parseInt(p[1]));
          case "batch" -> batch(Integer.parseInt(p[1]), Duration.ofMillis(Long.parseLong(p[2])));
          default -> throw new IllegalArgumentException("unknown command: " + line);
        };
      } catch (RuntimeException e) {
        reply = McpDriver.JSON.createObjectNode().put("error", String.valueOf(e));
      }
      out.println(REPLY + reply);
      out.flush();
    }
  }

  private String body(String n) {
    return "{\"service\":\"bench-bare\",\"version\":\"" + run + "-" + n + "\",\"region\":\"us-east-1\"}";
  }

  private ObjectNode call(int n) {
    long t0 = System.nanoTime();
    int status = bare.call(body(Integer.toString(n)));
    long nanos = System.nanoTime() - t0;
    return McpDriver.JSON.createObjectNode().put("status", status).put("nanos", nanos);
  }

  private ObjectNode batch(int concurrency, Duration window) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(concurrency);
    List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    AtomicLong errors = new AtomicLong();
    AtomicReference<String> firstError = new AtomicReference<>();
    ObjectNode reply = McpDriver.JSON.createObjectNode();
    reply.set("rpcs_before", McpDriver.JSON.valueToTree(rpcs.snapshot()));
    long jit0 = BenchBatches.jitMillis();
    long t0 = System.nanoTime();
    long deadline = t0 + window.toNanos();
    for (int k = 0; k < concurrency; k++) {
      pool.submit(() -> {
        while (System.nanoTime() < deadline) {
          try {
            long c0 = System.nanoTime();
            int status = bare.call(body("b" + next.incrementAndGet()));
            if (status != 201) {
              throw new IllegalStateException("the bare workflow's POST answered " + status);
            }
            latencies.add(System.nanoTime() - c0);
          } catch (RuntimeException e) {
            errors.incrementAndGet();
            firstError.compareAndSet(null, String.valueOf(e));
            pause(); // as the bench's own callers do after a failure
          }
        }
      });
    }
    pool.shutdown();
    if (!pool.awaitTermination(window.toMillis() + 90_000, TimeUnit.MILLISECONDS)) {
      pool.shutdownNow();
      firstError.compareAndSet(null, "the batch did not end within " + (window.toMillis() + 90_000) + " ms");
    }
    List<Long> done;
    synchronized (latencies) {
      done = List.copyOf(latencies);
    }
    reply.put("calls", done.size()).put("elapsed_nanos", System.nanoTime() - t0).put("errors", errors.get())
        .put("jit_ms", BenchBatches.jitMillis() - jit0)
        .put("p50_nanos", done.isEmpty() ? -1 : (long) Subject.percentileNanos(done, 0.5))
        .put("p99_nanos", done.isEmpty() ? -1 : (long) Subject.percentileNanos(done, 0.99));
    reply.set("rpcs_after", McpDriver.JSON.valueToTree(rpcs.snapshot()));
    if (firstError.get() != null) {
      reply.put("first_error", firstError.get());
    }
    return reply;
  }

  // ---- the bench's side ---------------------------------------------------------------------

  /** The bare subject, its calls and batches sent to {@code child} (started with this class's main). */
  static Subject subject(ChildProcess child, Duration timeout) {
    Subject s = new Subject("bare", "bare Temporal, start + wait (same SDK, engine, target; a JVM of its own)", null,
        Set.of(BenchRig.BARE, BenchRig.ENGINE, BenchRig.TARGET), BenchRig.BARE, null);
    s.timedCall = n -> {
      JsonNode r = reply(child.request("call " + n, timeout));
      if (r.path("status").asInt() != 201) {
        throw new IOException("the bare workflow's POST answered " + r.path("status").asInt());
      }
      return r.path("nanos").asLong();
    };
    s.remoteBatch = (c, window) -> {
      JsonNode r = reply(child.request("batch " + c + " " + window.toMillis(), window.plus(timeout).plusSeconds(30)));
      return new Subject.Batch(r.path("calls").asLong(), r.path("elapsed_nanos").asLong(), r.path("errors").asLong(),
          r.path("first_error").asText(null), r.path("jit_ms").asLong(), counts(r.path("rpcs_before")), counts(r.path("rpcs_after")),
          r.path("p50_nanos").asLong(-1), r.path("p99_nanos").asLong(-1), 0, null, 0, null);
    };
    return s;
  }

  private static JsonNode reply(String line) throws IOException {
    JsonNode r = McpDriver.JSON.readTree(line);
    if (r.has("error")) {
      throw new IOException("the bare baseline's JVM: " + r.path("error").asText());
    }
    return r;
  }

  private static Map<String, Long> counts(JsonNode o) {
    Map<String, Long> out = new TreeMap<>();
    o.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asLong()));
    return out;
  }

  private static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
