package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
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
import java.util.Set;

/**
 * One {@code onceport bench} run: every subject measured against the same target on the same engine,
 * interleaved in rounds (C=1 calls alternate between subjects call by call; the throughput batches
 * run subject after subject in an order rotated every round), with the host's load average printed
 * at the start and end of each round. Then the concurrency curve ({@link BenchCurve}), the per-call
 * history ({@link BenchHistory}), the memory probe ({@link BenchMemory}) and, last, the storm
 * ({@link BenchStorm}); the floor row, the baselines' checks and the goals ({@link BenchGoals}) are
 * read from those figures. The result is one JSON document ({@link BenchReport} renders it as text).
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
    out.put("load_at_start", loadAverage());
    try (BenchRig rig = BenchRig.start(settings, log)) {
      describe(out, rig);
      BenchBatches batches = new BenchBatches(rig, settings.callTimeout());
      List<Subject> subjects = subjects(rig);
      ArrayNode rounds = out.putArray("rounds");
      measureRounds(subjects, rounds, batches);
      ArrayNode table = out.putArray("subjects");
      for (Subject s : subjects) {
        table.add(BenchFigures.of(s, subjects, settings.concurrency()));
      }
      if (settings.runs("curve") && !settings.curve().isEmpty()) {
        out.set("curve", section("curve", () -> new BenchCurve(this, batches).curve(subjects)));
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
    out.put("load_at_end", loadAverage());
    out.put("seconds", Math.round((System.nanoTime() - started) / 1e8) / 10.0);
    BenchGoals.evaluate(out);
    return out;
  }

  /** What ran where, and the budget. */
  private void describe(ObjectNode out, BenchRig rig) {
    out.put("started_at", Instant.now().toString());
    out.put("dir", rig.dir.toString());
    out.put("host_cpus", Runtime.getRuntime().availableProcessors());
    out.put("engine_kind", rig.engine.kind.wireName());
    out.put("engine", rig.engine.description);
    out.put("tool", settings.tool());
    out.put("cpu_counts", "per subject, the processes it uses: the bench JVM (load driver and gateway) for every subject but bare"
        + (rig.bareChild != null ? " (bare: its own JVM, driver included)" : "")
        + (rig.engine.apart() ? ", the engine for bare and Onceport's subjects" : ", the engine in the bench JVM")
        + (rig.targetProcess != null ? ", the target's JVM for all" : "") + (rig.passThrough != null ? ", Node for the pass-through" : ""));
    out.put("bare", rig.bareChild != null ? "a JVM of its own" : "in the bench JVM");
    ObjectNode budget = out.putObject("budget");
    budget.put("rounds", settings.rounds()).put("calls", settings.calls()).put("warmup", settings.warmup())
        .put("concurrency", settings.concurrency()).put("window_ms", settings.window().toMillis())
        .put("storm", settings.stormCalls()).put("memory", settings.memoryCalls())
        .put("warmup_batches", settings.warmupBatches()).put("workflow_cache_size", settings.tuning().workflowCacheSize())
        .put("workflow_threads", settings.tuning().maxWorkflowThreads());
    ArrayNode curve = budget.putArray("curve");
    settings.curve().forEach(curve::add);
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
    Set<String> driverAndTarget = Set.of(BenchRig.BENCH, BenchRig.TARGET);
    all.add(new Subject("direct", "direct POST to the target", null, driverAndTarget, BenchRig.BENCH, n -> {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(direct).timeout(timeout).header("Content-Type", "application/json")
          .header("Idempotency-Key", "direct-" + run + "-" + n)
          .POST(HttpRequest.BodyPublishers.ofString(args("direct", n, true))).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 201) {
        throw new IOException("target answered " + r.statusCode() + ": " + McpDriver.abbreviate(r.body()));
      }
    }));
    Set<String> viaNode = Set.of(BenchRig.BENCH, BenchRig.NODE, BenchRig.TARGET);
    String passLabel = "non-durable MCP pass-through (TypeScript SDK server)";
    String readArgs = "{\"id\":\"" + rig.releaseId + "\"}";
    Subject pass;
    if (rig.passThrough != null) {
      McpDriver pt = new McpDriver(http, rig.passThroughMcp(), null);
      pass = new Subject("passthrough", passLabel, null, viaNode, BenchRig.BENCH,
          n -> expectRead(pt.call(BenchRig.READ_TOOL, readArgs, McpDriver.ACCEPT_SDK, timeout), rig));
    } else {
      pass = new Subject("passthrough", passLabel, null, viaNode, BenchRig.BENCH, null);
      pass.skipped = rig.passThroughSkipped;
    }
    all.add(pass);
    all.add(bare(rig));
    McpDriver onceport = new McpDriver(http, rig.mcp(), rig.token).initialize();
    Set<String> gateway = Set.of(BenchRig.BENCH, BenchRig.ENGINE, BenchRig.TARGET);
    all.add(new Subject("sse", "Onceport side-effecting, SSE answer (SDK Accept)", "bare", gateway, BenchRig.BENCH,
        n -> expectCompleted(onceport.call(settings.tool(), args("sse", n, false), McpDriver.ACCEPT_SDK, timeout))));
    all.add(new Subject("json", "Onceport side-effecting, JSON answer", "bare", gateway, BenchRig.BENCH,
        n -> expectCompleted(onceport.call(settings.tool(), args("json", n, false), McpDriver.ACCEPT_JSON, timeout))));
    all.add(new Subject("read", "Onceport read_only (SDK Accept)", "passthrough", gateway, BenchRig.BENCH,
        n -> expectRead(onceport.call(BenchRig.READ_TOOL, readArgs, McpDriver.ACCEPT_SDK, timeout), rig)));
    List<Subject> chosen = new ArrayList<>();
    for (Subject s : all) {
      if (settings.runs(s.key)) {
        chosen.add(s);
      }
    }
    return chosen;
  }

  /** Bare Temporal, in this JVM or (by default) timed and driven in a JVM of its own. */
  private Subject bare(BenchRig rig) {
    if (rig.bareChild == null) {
      return new Subject("bare", "bare Temporal, start + wait (same SDK, engine, target)", null,
          Set.of(BenchRig.BENCH, BenchRig.ENGINE, BenchRig.TARGET), BenchRig.BENCH, n -> {
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

  /** A completed call's answer; a busy answer throws {@link Subject.BusyAnswer}, anything else an IOException. */
  static void expectCompleted(JsonNode result) throws IOException {
    JsonNode summary = result.path("_meta").path("onceport/execution");
    if (summary.isMissingNode()) {
      summary = result.path("structuredContent");
    }
    if (result.path("structuredContent").path("busy").asBoolean(false)) {
      throw new Subject.BusyAnswer("busy: " + McpDriver.abbreviate(result.path("structuredContent").path("message").asText()));
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

  private void measureRounds(List<Subject> subjects, ArrayNode rounds, BenchBatches batches) throws InterruptedException {
    List<Subject> live = subjects.stream().filter(Subject::measured).toList();
    if (live.isEmpty()) {
      return;
    }
    say("bench: warming up (" + settings.warmup() + " calls of each subject)");
    for (Subject s : live) {
      for (int i = 0; i < settings.warmup(); i++) {
        s.timed(s.tally);
      }
    }
    if (settings.warmupBatches() > 0) {
      say("bench: warming up (" + settings.warmupBatches() + " unmeasured throughput batches of each subject)");
      for (int w = 0; w < settings.warmupBatches(); w++) {
        for (Subject s : live) {
          batches.run(s, settings.concurrency(), settings.window(), s.tally);
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
          long t = s.timed(s.tally);
          if (t >= 0) {
            s.latencies.add(t);
          }
        }
      }
      ObjectNode rates = round.putObject("throughput");
      for (Subject s : order) {
        BenchBatches.Measured m = batches.measure(s, settings.concurrency(), settings.window(), s.tally);
        s.addBatch(m.calls(), m.cpuBefore(), m.cpuAfter(), m.rpcsBefore(), m.rpcsAfter(), m.hostIdle());
        s.batchJitMillis += m.jitMillis();
        s.throughputs.add(m.rate());
        rates.put(s.key, Math.round(m.rate() * 10) / 10.0);
      }
      String after = loadAverage();
      round.put("load_after", after);
      say("bench: round " + (r + 1) + " done, load " + after);
    }
  }

  static List<Subject> rotate(List<Subject> subjects, int by) {
    List<Subject> out = new ArrayList<>();
    for (int i = 0; i < subjects.size(); i++) {
      out.add(subjects.get((i + by) % subjects.size()));
    }
    return out;
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
