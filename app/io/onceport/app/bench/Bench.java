package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
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
  /**
   * The prefix of the system properties that switch a gateway's mechanism off to measure it (a
   * switch put on a branch, e.g. {@code java -Donceport.NAME=false -jar onceport.jar bench}): the gateway runs in the
   * bench JVM, so the bench's own {@code -D} options reach it; the result names those in effect.
   */
  static final String GATEWAY_PROPERTIES = "onceport.";

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
    out.put("cpu_counts", "per subject, the processes it uses: the load driver's JVM for every subject but bare"
        + (rig.bareChild != null ? " (bare: its own JVM, driver included)" : " (bare: the bench JVM)")
        + ", the gateway's JVM (the bench JVM) for Onceport's subjects"
        + (rig.engine.apart() ? ", the engine for bare and Onceport's subjects" : ", the engine in the bench JVM")
        + (rig.targetProcess != null ? ", the target's JVM for all" : "") + (rig.passThrough != null ? ", Node for the pass-through" : ""));
    out.put("bare", rig.bareChild != null ? "a JVM of its own" : "in the bench JVM");
    ObjectNode lab = out.putObject("gateway_properties");
    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(GATEWAY_PROPERTIES)).sorted()
        .forEach(k -> lab.put(k, System.getProperty(k)));
    ObjectNode budget = out.putObject("budget");
    budget.put("rounds", settings.rounds()).put("calls", settings.calls()).put("warmup", settings.warmup())
        .put("concurrency", settings.concurrency()).put("window_ms", settings.window().toMillis())
        .put("storm", settings.stormCalls()).put("memory", settings.memoryCalls())
        .put("warmup_batches", settings.warmupBatches()).put("warmup_served", settings.warmupServed()).put("workflow_cache_size", settings.tuning().workflowCacheSize())
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

  /**
   * The subjects, each with the processes its CPU counts and the JVM its JIT is read in. The MCP
   * subjects and the direct POST are driven from the driver's JVM ({@link DriverChild}): the bench
   * JVM then holds the gateway alone, as {@code serve} runs it.
   */
  private List<Subject> subjects(BenchRig rig) throws IOException, InterruptedException {
    Duration timeout = settings.callTimeout();
    rig.startDriver(new BenchCalls(URI.create(rig.target), rig.mcp(), rig.token, rig.passThrough == null ? null : rig.passThroughMcp(),
        run, settings.tool(), rig.releaseId, timeout));
    String d = BenchRig.DRIVER;
    List<Subject> all = new ArrayList<>();
    all.add(DriverChild.subject(rig.driver, "direct", "direct POST to the target", null, Set.of(d, BenchRig.TARGET), d, timeout));
    Subject pass = DriverChild.subject(rig.driver, "passthrough", "non-durable MCP pass-through (TypeScript SDK server)", null,
        Set.of(d, BenchRig.NODE, BenchRig.TARGET), d, timeout);
    if (rig.passThrough == null) {
      pass.skipped = rig.passThroughSkipped;
    }
    all.add(pass);
    all.add(bare(rig));
    Set<String> gateway = Set.of(d, BenchRig.BENCH, BenchRig.ENGINE, BenchRig.TARGET);
    String g = BenchRig.BENCH;
    all.add(DriverChild.subject(rig.driver, "sse", "Onceport side-effecting, SSE answer (SDK Accept)", "bare", gateway, g, timeout));
    all.add(DriverChild.subject(rig.driver, "json", "Onceport side-effecting, JSON answer", "bare", gateway, g, timeout));
    all.add(DriverChild.subject(rig.driver, "read", "Onceport read_only (SDK Accept)", "passthrough", gateway, g, timeout));
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
    return BenchCalls.args(run, subject, n, withRegion);
  }

  static void expectCompleted(JsonNode result) throws IOException {
    BenchCalls.expectCompleted(result);
  }

  // ---- rounds ---------------------------------------------------------------------------------

  private void measureRounds(List<Subject> subjects, ArrayNode rounds, BenchBatches batches) throws InterruptedException {
    List<Subject> live = subjects.stream().filter(Subject::measured).toList();
    if (live.isEmpty()) {
      return;
    }
    warmUp(live, batches);
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
      roundBatches(order, round, batches);
      String after = loadAverage();
      round.put("load_after", after);
      say("bench: round " + (r + 1) + " done, load " + after);
    }
  }

  /** Unmeasured calls, then unmeasured batches, of every subject. */
  private void warmUp(List<Subject> live, BenchBatches batches) throws InterruptedException {
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
    for (Subject s : live) {
      if (s.served.get() < settings.warmupServed()) {
        say("bench: warming up " + s.key + " until its JVM has answered " + settings.warmupServed() + " calls");
      }
      while (s.served.get() < settings.warmupServed()) {
        long before = s.served.get();
        batches.run(s, settings.concurrency(), settings.window(), s.tally);
        if (s.served.get() == before) {
          throw new IllegalStateException(s.key + " answered no call in a warm-up batch (" + s.tally.firstError + ")");
        }
      }
    }
  }

  /** One measured batch of each subject; the round's throughput, JIT CPU per call and calls answered before it. */
  private void roundBatches(List<Subject> order, ObjectNode round, BenchBatches batches) throws InterruptedException {
    ObjectNode rates = round.putObject("throughput");
    ObjectNode jit = round.putObject("jit_cpu_ms_per_call");
    ObjectNode served = round.putObject("calls_served_before");
    for (Subject s : order) {
      served.put(s.key, s.served.get());
      BenchBatches.Measured m = batches.measure(s, settings.concurrency(), settings.window(), s.tally);
      if (m.jitCpuMillis() >= 0 && m.calls() > 0) {
        put(jit, s.key, m.jitCpuMillis() / (double) m.calls());
      }
      s.addBatch(m.calls(), m.cpuBefore(), m.cpuAfter(), m.rpcsBefore(), m.rpcsAfter(), m.hostIdle());
      s.batchJitMillis += m.jitMillis();
      s.batchJitCpuMillis = s.batchJitCpuMillis < 0 || m.jitCpuMillis() < 0 ? -1 : s.batchJitCpuMillis + m.jitCpuMillis();
      s.throughputs.add(m.rate());
      rates.put(s.key, Math.round(m.rate() * 10) / 10.0);
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
