package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One {@code onceport bench} run: every subject measured in the same process, against the same
 * target and engine, interleaved in rounds (C=1 calls alternate between subjects call by call; the
 * throughput batches run subject after subject in an order rotated every round), with the host's
 * load average printed at the start and end of each round. Then the per-call history ({@link
 * BenchHistory}), the memory probe ({@link BenchMemory}) and, last, the storm ({@link BenchStorm}).
 * The result is one JSON document ({@link BenchReport} renders it as text).
 */
public final class Bench {
  final BenchSettings settings;
  private final PrintWriter log;
  final String run = Long.toString(System.currentTimeMillis(), 36);

  public Bench(BenchSettings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  /** Starts everything, measures, stops everything; the figures as JSON. */
  public ObjectNode run() throws Exception {
    long started = System.nanoTime();
    ObjectNode out = McpDriver.JSON.createObjectNode();
    try (BenchRig rig = BenchRig.start(settings, log)) {
      out.put("started_at", Instant.now().toString());
      out.put("dir", rig.dir.toString());
      out.put("host_cpus", Runtime.getRuntime().availableProcessors());
      out.put("engine", settings.engineInProcess() ? "embedded, in the bench JVM" : "embedded, in a child JVM with the target");
      out.put("tool", settings.tool());
      out.put("cpu_counts", (settings.engineInProcess() ? "the bench JVM" : "the bench JVM + the engine and target JVM")
          + (rig.bareChild != null ? " + the bare baseline's JVM" : "") + (rig.passThrough != null ? " + the Node pass-through" : ""));
      out.put("bare", rig.bareChild != null ? "a JVM of its own" : "in the bench JVM");
      ObjectNode budget = out.putObject("budget");
      budget.put("rounds", settings.rounds()).put("calls", settings.calls()).put("warmup", settings.warmup())
          .put("concurrency", settings.concurrency()).put("window_ms", settings.window().toMillis())
          .put("storm", settings.stormCalls()).put("memory", settings.memoryCalls())
          .put("warmup_batches", settings.warmupBatches()).put("workflow_cache_size", settings.tuning().workflowCacheSize())
          .put("workflow_threads", settings.tuning().maxWorkflowThreads());

      List<Subject> subjects = subjects(rig);
      ArrayNode rounds = out.putArray("rounds");
      measureRounds(subjects, rounds, rig);
      ArrayNode table = out.putArray("subjects");
      for (Subject s : subjects) {
        table.add(figures(s, subjects));
      }
      if (settings.runs("history")) {
        out.set("history", section("history", () -> new BenchHistory(this).history(rig)));
      }
      // The storm goes last: an engine that cannot answer it keeps retrying its workflow task and
      // would slow everything measured after it.
      if (settings.runs("memory")) {
        out.set("memory", section("memory", () -> new BenchMemory(this).memory(rig)));
      }
      if (settings.runs("storm")) {
        out.set("storm", section("storm", () -> new BenchStorm(this).storm(rig)));
      }
    }
    out.put("seconds", Math.round((System.nanoTime() - started) / 1e8) / 10.0);
    return out;
  }

  @FunctionalInterface
  private interface Section {
    ObjectNode run() throws Exception;
  }

  /** A section that fails is reported as failed; the figures measured so far still count. */
  private ObjectNode section(String name, Section body) {
    try {
      return body.run();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      say("bench: " + name + " failed: " + e);
      ObjectNode o = McpDriver.JSON.createObjectNode();
      o.put("error", e.getClass().getSimpleName() + ": " + McpDriver.abbreviate(e.getMessage()));
      return o;
    }
  }

  // ---- subjects -------------------------------------------------------------------------------

  private List<Subject> subjects(BenchRig rig) throws IOException, InterruptedException {
    List<Subject> all = new ArrayList<>();
    Duration timeout = settings.callTimeout();
    HttpClient http = rig.http;
    URI direct = URI.create(rig.target + "/v1/releases");
    all.add(new Subject("direct", "direct POST to the target", null, n -> {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(direct).timeout(timeout).header("Content-Type", "application/json")
          .header("Idempotency-Key", "direct-" + run + "-" + n)
          .POST(HttpRequest.BodyPublishers.ofString(args("direct", n, true))).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 201) {
        throw new IOException("target answered " + r.statusCode() + ": " + McpDriver.abbreviate(r.body()));
      }
    }));
    Subject pass = new Subject("passthrough", "non-durable MCP pass-through (TypeScript SDK server)", null, null);
    String readArgs = "{\"id\":\"" + rig.releaseId + "\"}";
    if (rig.passThrough != null) {
      McpDriver pt = new McpDriver(http, rig.passThroughMcp(), null);
      pass = new Subject(pass.key, pass.label, null, n -> expectRead(pt.call(BenchRig.READ_TOOL, readArgs, McpDriver.ACCEPT_SDK, timeout), rig));
    } else {
      pass.skipped = rig.passThroughSkipped;
    }
    all.add(pass);
    all.add(bare(rig));
    McpDriver onceport = new McpDriver(http, rig.mcp(), rig.token).initialize();
    all.add(new Subject("sse", "Onceport side-effecting, SSE answer (SDK Accept)", "bare",
        n -> expectCompleted(onceport.call(settings.tool(), args("sse", n, false), McpDriver.ACCEPT_SDK, timeout))));
    all.add(new Subject("json", "Onceport side-effecting, JSON answer", "bare",
        n -> expectCompleted(onceport.call(settings.tool(), args("json", n, false), McpDriver.ACCEPT_JSON, timeout))));
    all.add(new Subject("read", "Onceport read_only (SDK Accept)", "passthrough",
        n -> expectRead(onceport.call(BenchRig.READ_TOOL, readArgs, McpDriver.ACCEPT_SDK, timeout), rig)));
    List<Subject> chosen = new ArrayList<>();
    for (Subject s : all) {
      if (settings.runs(s.key)) {
        chosen.add(s);
      }
    }
    return chosen;
  }

  /** Bare Temporal, in this JVM or (with {@code --bare-jvm}) timed and driven in a JVM of its own. */
  private Subject bare(BenchRig rig) {
    if (rig.bareChild == null) {
      return new Subject("bare", "bare Temporal, start + wait (same SDK, engine, target)", null, n -> {
        int status = rig.bare.call(args("bare", n, true));
        if (status != 201) {
          throw new IOException("the bare workflow's POST answered " + status);
        }
      });
    }
    return BareChild.subject(rig.bareChild, settings.callTimeout());
  }

  String args(String subject, int n, boolean withRegion) {
    return "{\"service\":\"bench-" + subject + "\",\"version\":\"" + run + "-" + n + "\""
        + (withRegion ? ",\"region\":\"us-east-1\"" : "") + "}";
  }

  static void expectCompleted(JsonNode result) throws IOException {
    JsonNode summary = result.path("_meta").path("onceport/execution");
    if (summary.isMissingNode()) {
      summary = result.path("structuredContent");
    }
    if (!"completed".equals(summary.path("state").asText())) {
      throw new IOException("not completed: " + McpDriver.abbreviate(result.toString()));
    }
  }

  private static void expectRead(JsonNode result, BenchRig rig) throws IOException {
    if (result.path("isError").asBoolean(false) || !result.path("content").path(0).path("text").asText().contains(rig.releaseId)) {
      throw new IOException("the read did not return release " + rig.releaseId + ": " + McpDriver.abbreviate(result.toString()));
    }
  }

  // ---- rounds ---------------------------------------------------------------------------------

  private void measureRounds(List<Subject> subjects, ArrayNode rounds, BenchRig rig) throws InterruptedException {
    List<Subject> live = subjects.stream().filter(Subject::measured).toList();
    if (live.isEmpty()) {
      return;
    }
    say("bench: warming up (" + settings.warmup() + " calls of each subject)");
    for (Subject s : live) {
      for (int i = 0; i < settings.warmup(); i++) {
        s.timed();
      }
    }
    if (settings.warmupBatches() > 0) {
      say("bench: warming up (" + settings.warmupBatches() + " unmeasured throughput batches of each subject)");
      for (int w = 0; w < settings.warmupBatches(); w++) {
        for (Subject s : live) {
          runBatch(s, rig);
        }
      }
    }
    for (int r = 0; r < settings.rounds(); r++) {
      ObjectNode round = rounds.addObject();
      round.put("round", r + 1);
      String before = loadAverage();
      round.put("load_before", before);
      say("bench: round " + (r + 1) + "/" + settings.rounds() + ", load " + before);
      List<Subject> order = rotate(live, r);
      int perRound = settings.calls() / settings.rounds() + (r < settings.calls() % settings.rounds() ? 1 : 0);
      for (int i = 0; i < perRound; i++) {
        for (Subject s : order) {
          long t = s.timed();
          if (t >= 0) {
            s.latencies.add(t);
          }
        }
      }
      ObjectNode batches = round.putObject("throughput");
      for (Subject s : order) {
        double rate = batch(s, rig);
        batches.put(s.key, Math.round(rate * 10) / 10.0);
      }
      String after = loadAverage();
      round.put("load_after", after);
      say("bench: round " + (r + 1) + " done, load " + after);
    }
  }

  private static List<Subject> rotate(List<Subject> subjects, int by) {
    List<Subject> out = new ArrayList<>();
    for (int i = 0; i < subjects.size(); i++) {
      out.add(subjects.get((i + by) % subjects.size()));
    }
    return out;
  }

  /** No gRPC call but long polls for this long: the previous calls' work has ended (longer than the 1 s delivery grace). */
  static final Duration QUIET = Duration.ofMillis(1500);
  static final Duration QUIET_LIMIT = Duration.ofSeconds(15);

  /** One throughput batch: {@code concurrency} callers for {@code window}; calls/s, CPU recorded. */
  private double batch(Subject s, BenchRig rig) throws InterruptedException {
    rig.awaitQuiet(QUIET, QUIET_LIMIT);
    Map<String, Long> rpcs0 = rig.rpcs.snapshot();
    long cpu0 = rig.cpuNanos();
    long engineCpu0 = rig.engineCpuNanos();
    long jit0 = jitMillis();
    Ran ran = runBatch(s, rig);
    // CPU and round trips include what the batch's calls cause after their answers (a delivery
    // report after the grace, the run's last workflow task), not the next subject's batch.
    rig.awaitQuiet(QUIET, QUIET_LIMIT);
    if (ran.remote() == null) {
      s.addBatch(ran.calls(), rig.cpuNanos() - cpu0, rig.engineCpuNanos() - engineCpu0, rpcs0, rig.rpcs.snapshot());
    } else { // its round trips are its own JVM's, counted there
      s.addBatch(ran.calls(), rig.cpuNanos() - cpu0, rig.engineCpuNanos() - engineCpu0, ran.remote().rpcsBefore(),
          ran.remote().rpcsAfter());
      s.batchJitMillis += ran.remote().jitMillis();
    }
    s.batchJitMillis += jitMillis() - jit0;
    double rate = ran.calls() / (ran.elapsedNanos() / 1e9);
    s.throughputs.add(rate);
    return rate;
  }

  /** The bench JVM's JIT compilation time so far (ms), or 0 where the JVM does not tell. */
  static long jitMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
  }

  /** A batch's calls and time; {@code remote} when it ran in the subject's own JVM. */
  private record Ran(long calls, long elapsedNanos, Subject.Batch remote) {}

  /** {@code concurrency} callers for {@code window} after the previous calls' work has ended; nothing recorded but failures. */
  private Ran runBatch(Subject s, BenchRig rig) throws InterruptedException {
    int c = settings.concurrency();
    if (s.remoteBatch != null) {
      Subject.Batch b = s.remoteBatched(c, settings.window());
      return new Ran(b.calls(), b.elapsedNanos(), b);
    }
    ExecutorService pool = Executors.newFixedThreadPool(c, r -> {
      Thread t = new Thread(r, "bench-caller-" + s.key);
      t.setDaemon(true);
      return t;
    });
    long[] done = new long[c];
    long t0 = System.nanoTime();
    long deadline = t0 + settings.window().toNanos();
    for (int k = 0; k < c; k++) {
      int slot = k;
      pool.submit(() -> {
        while (System.nanoTime() < deadline) {
          if (s.timed() >= 0) {
            done[slot]++;
          } else {
            sleepQuietly(10);
          }
        }
      });
    }
    pool.shutdown();
    long limit = settings.window().plus(settings.callTimeout()).plusSeconds(5).toMillis();
    if (!pool.awaitTermination(limit, TimeUnit.MILLISECONDS)) {
      pool.shutdownNow();
      s.failed(new TimeoutException("the throughput batch did not end within " + limit + " ms"));
    }
    long elapsed = System.nanoTime() - t0;
    long calls = 0;
    for (long d : done) {
      calls += d;
    }
    return new Ran(calls, elapsed, null);
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private ObjectNode figures(Subject s, List<Subject> all) {
    ObjectNode f = McpDriver.JSON.createObjectNode();
    f.put("subject", s.key);
    f.put("label", s.label);
    if (!s.measured()) {
      f.put("skipped", s.skipped);
      return f;
    }
    put(f, "p50_ms", s.percentileMillis(0.5));
    put(f, "p90_ms", s.percentileMillis(0.9));
    f.put("c1_calls", s.latencies.size());
    put(f, "throughput_per_s", s.throughput());
    f.put("concurrency", settings.concurrency());
    put(f, "cpu_ms_per_call", s.cpuPerCallMillis());
    if (s.batchCalls > 0) {
      put(f, "jit_ms_per_call", s.batchJitMillis / (double) s.batchCalls);
    }
    if (!settings.engineInProcess()) {
      put(f, "engine_cpu_ms_per_call", s.engineCpuPerCallMillis());
    }
    if (s.batchCalls > 0 && !s.batchRpcs.isEmpty()) {
      ObjectNode r = f.putObject("engine_rpcs_per_call");
      RpcCounter.perCall(Map.of(), s.batchRpcs, s.batchCalls).forEach(r::put);
    }
    f.put("errors", s.errors);
    if (s.firstError != null) {
      f.put("first_error", s.firstError);
    }
    if (s.baseline != null) {
      f.put("baseline", s.baseline);
      Optional<Subject> base = all.stream().filter(b -> b.key.equals(s.baseline) && b.measured()).findFirst();
      if (base.isPresent()) {
        Subject b = base.get();
        put(f, "p50_ratio", s.percentileMillis(0.5) / b.percentileMillis(0.5));
        put(f, "throughput_ratio", s.throughput() / b.throughput());
        put(f, "cpu_ratio", s.cpuPerCallMillis() / b.cpuPerCallMillis());
        if (s.batchCalls > 0 && b.batchCalls > 0 && b.batchJitMillis > 0) {
          put(f, "cpu_ratio_without_jit", (s.cpuPerCallMillis() - s.batchJitMillis / (double) s.batchCalls)
              / (b.cpuPerCallMillis() - b.batchJitMillis / (double) b.batchCalls));
        }
      }
    }
    return f;
  }

  static void put(ObjectNode f, String field, double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      f.putNull(field);
    } else {
      f.put(field, Math.round(v * 1000) / 1000.0);
    }
  }

  // ---- host -----------------------------------------------------------------------------------

  static String loadAverage() {
    try {
      String[] p = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return p[0] + " " + p[1] + " " + p[2];
    } catch (IOException | RuntimeException e) {
      double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return l < 0 ? "unknown" : String.format("%.2f", l);
    }
  }

  void say(String line) {
    log.println(line);
    log.flush();
  }
}
