package io.onceport.app.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.shared.codec.Payloads;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.WorkflowIds;
import io.onceport.frontend.ops.Metrics;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.app.engine.LocalEngine;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.frontend.temporal.TemporalConnection;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * {@code onceport bench --soak DURATION}: a steady mix of calls and waiting executions against a
 * complete gateway in this JVM — the engine {@code serve} would use (or the one asked for), one
 * worker with serve's worker settings, the MCP front end — printing at intervals what a gateway
 * that runs all week must keep flat: resident memory (this JVM and the engine process), heap after
 * a full GC, threads, CPU, and the history size of executions (completed ones and waiting ones),
 * so that a leak or a waiting execution that polls shows as a slope.
 *
 * <p>Phases: set-up; {@code warmup} calls; the <b>baseline</b> sample; {@code waiting} executions
 * created through a second front end whose sessions need an operator (task-augmented calls, which
 * answer at once) and left waiting; the <b>waiting</b> sample; then the steady phase for {@code
 * duration}: {@code callers} MCP sessions calling at {@code rate} per second (every call a new
 * execution that completes and is delivered), sampled every {@code interval}; the <b>end</b>
 * sample and a summary. The target is a counting HTTP server in this JVM that keeps no ledger, so
 * the load generator's own memory stays constant; the figures include it (a few MiB).
 *
 * <p>History sizes are read from the engine for a few executions whose workflow ids the soak knows
 * because they were called with an intent key: every {@value #HISTORY_EVERY}th call and the first
 * {@value #HISTORY_WAITING} waiting executions.
 */
public final class SoakBench {
  static final String TOOL = "soak_call";
  static final String ACTOR = "agent:soak";
  static final int HISTORY_EVERY = 200;
  static final int HISTORY_WAITING = 3;
  /** Times a waiting execution the engine turned away as busy is called again before the soak gives up. */
  static final int BUSY_RETRIES = 20;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long KIB = 1024;

  private final SoakSettings settings;
  private final Consumer<String> progress;

  /** @param progress receives one line per sample and per phase (stdout for the text report, stderr with --json) */
  public SoakBench(SoakSettings settings, Consumer<String> progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** Runs the soak and returns the report: {@code settings}, {@code samples}, {@code summary}. */
  public ObjectNode run() throws Exception {
    Path dir = Files.createTempDirectory("onceport-soak");
    Path data = dir.resolve("data");
    List<AutoCloseable> running = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(settings.callers() + 1, 8), r -> {
      Thread t = new Thread(r, "soak-caller");
      t.setDaemon(true);
      return t;
    });
    try {
      CountingTarget target = CountingTarget.start();
      running.add(target);
      Path contracts = Files.createDirectories(dir.resolve("contracts"));
      Files.writeString(contracts.resolve(TOOL + ".yaml"), contract(target.port()));
      ContractSet tools = new ContractLoader().load(contracts);
      String token = new AgentRegistry(data).add(ACTOR);

      LocalEngine.Choice choice = LocalEngine.choose(settings.engine(), TemporalCliServer.findBinary());
      long t0 = System.nanoTime();
      LocalEngine engine = LocalEngine.start(choice, new LocalEngine.Settings(data, "127.0.0.1", 0, 0, false, null,
          Duration.ofSeconds(90)));
      running.add(engine);
      double engineStartSeconds = (System.nanoTime() - t0) / 1e9;
      progress.accept(String.format("soak: engine %s, ready in %.1f s", engine.describe(), engineStartSeconds));

      Metrics metrics = new Metrics();
      running.add(metrics);
      TemporalConnection connection = TemporalConnection.connect(engine.target(), "default", engine.nonSticky(),
          Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope());
      running.add(connection);
      connection.registerSearchAttributes();
      running.add(WorkerRuntime.start(connection, "onceport", data, null, "operator", settings.effectiveApprovalTimeout(),
          null, settings.tuning()));
      FrontendRuntime calls = FrontendRuntime.start(connection, "onceport", data, tools,
          FrontendSettings.loopback(Duration.ofSeconds(30), "auto"), metrics);
      running.add(calls);
      FrontendRuntime gated = FrontendRuntime.start(connection, "onceport", data, tools,
          FrontendSettings.loopback(Duration.ofSeconds(30), "operator"), metrics);
      running.add(gated);

      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
      URI callsUri = URI.create("http://127.0.0.1:" + calls.port() + "/mcp");
      URI gatedUri = URI.create("http://127.0.0.1:" + gated.port() + "/mcp");
      FingerprintKey key = FingerprintKey.loadOrCreate(data);
      Run run = new Run(connection, engine, target, key);

      List<McpCaller> callers = new ArrayList<>();
      for (int i = 0; i < settings.callers(); i++) {
        callers.add(McpCaller.open(http, callsUri, token, "2025-06-18", "soak-caller-" + i));
      }
      // Warm-up: class loading, JIT and connection pools, before the baseline.
      runCalls(pool, callers, run, settings.warmup(), Double.POSITIVE_INFINITY, Long.MAX_VALUE);
      run.sample("baseline");

      createWaiting(pool, http, gatedUri, token, run);
      run.sample("waiting");

      long end = System.nanoTime() + settings.duration().toNanos();
      Future<?> load = settings.rate() == 0 ? null
          : pool.submit(() -> runCalls(pool, callers, run, Long.MAX_VALUE, settings.rate(), end));
      long nextSample = System.nanoTime() + settings.interval().toNanos();
      long nextCount = settings.sampleCalls() == 0 ? Long.MAX_VALUE : settings.sampleCalls();
      while (System.nanoTime() < end) {
        Thread.sleep(Math.max(1, Math.min(200, TimeUnit.NANOSECONDS.toMillis(Math.min(end, nextSample) - System.nanoTime()))));
        run.failIfBroken();
        if (System.nanoTime() >= nextSample) {
          run.sample("run");
          nextSample = System.nanoTime() + settings.interval().toNanos();
        } else if (run.completed.get() >= nextCount) {
          run.sample("run");
          while (nextCount <= run.completed.get()) {
            nextCount += settings.sampleCalls();
          }
        }
      }
      if (load != null) {
        load.get(5, TimeUnit.MINUTES);
      }
      run.failIfBroken();
      run.sample("end");
      long stillWaiting = new ExecutionDirectory(connection).countWaitingForOperators();
      return report(run, engine, engineStartSeconds, stillWaiting);
    } finally {
      pool.shutdownNow();
      for (int i = running.size() - 1; i >= 0; i--) {
        try {
          running.get(i).close();
        } catch (Exception ignored) {
          // best effort
        }
      }
      deleteTree(dir);
    }
  }

  static String contract(int port) {
    return """
        # The soak's tool: every call is a new execution that completes against a counting target.
        tool: soak_call
        description: Soak benchmark call (a counting target that answers 201).
        input_schema:
          type: object
          required: [n]
          properties:
            n: {type: string}
          additionalProperties: false
        channel: http
        http:
          method: POST
          url: http://127.0.0.1:%d/v1/soak
          idempotency_header: Idempotency-Key
        replay:
          class: idempotency_key
          attach_window: PT10M
        """.formatted(port);
  }

  /** Calls from every caller until {@code count} calls were made or {@code endNanos} passed, at {@code rate} per second overall. */
  private void runCalls(ExecutorService pool, List<McpCaller> callers, Run run, long count, double rate, long endNanos) {
    AtomicLong issued = new AtomicLong();
    long start = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    for (McpCaller caller : callers) {
      futures.add(pool.submit(() -> {
        while (!Thread.currentThread().isInterrupted() && run.broken.get() == null) {
          long k = issued.getAndIncrement();
          if (k >= count) {
            return null;
          }
          if (!Double.isInfinite(rate)) {
            // A fixed schedule: slot k at start + k / rate. A caller that fell behind calls at once.
            long slot = start + (long) (k * 1e9 / rate);
            if (slot >= endNanos) {
              return null;
            }
            long wait = slot - System.nanoTime();
            if (wait > 0) {
              TimeUnit.NANOSECONDS.sleep(wait);
            }
          }
          if (System.nanoTime() >= endNanos) {
            return null;
          }
          run.call(caller);
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        run.broken.compareAndSet(null, "a caller failed: " + e);
      }
    }
  }

  private void createWaiting(ExecutorService pool, HttpClient http, URI gated, String token, Run run) throws Exception {
    int sessions = (settings.waiting() + settings.waitingPerSession() - 1) / settings.waitingPerSession();
    AtomicLong made = new AtomicLong();
    List<Future<?>> futures = new ArrayList<>();
    for (int s = 0; s < sessions; s++) {
      int session = s;
      futures.add(pool.submit(() -> {
        McpCaller caller = McpCaller.open(http, gated, token, "2025-11-25", "soak-waiting-" + session);
        for (int i = 0; i < settings.waitingPerSession(); i++) {
          long n = made.getAndIncrement();
          if (n >= settings.waiting()) {
            return null;
          }
          String intentKey = n < HISTORY_WAITING ? "soak-waiting-" + n : null;
          JsonNode answer = callWaiting(caller, n, intentKey, run);
          String status = answer.at("/result/task/status").asText("");
          if (!status.equals("input_required") && !status.equals("working")) {
            throw new IllegalStateException("a waiting execution answered " + answer);
          }
          if (intentKey != null) {
            run.waitingIds.add(WorkflowIds.forIntentKey(run.key, ACTOR, intentKey));
          }
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get(10, TimeUnit.MINUTES);
    }
    run.waiting = settings.waiting();
  }

  /**
   * One waiting execution's call, called again (same session, same arguments: it attaches to what
   * the first one started, if anything) while the gateway answers "busy" (nothing was started,
   * retry the same call) or the answer does not come within the caller's timeout — what a client
   * must do, so the soak does it on an overloaded machine instead of ending.
   */
  private static JsonNode callWaiting(McpCaller caller, long n, String intentKey, Run run) throws Exception {
    for (int attempt = 1; ; attempt++) {
      JsonNode answer;
      try {
        answer = caller.call(TOOL, JSON.createObjectNode().put("n", "w" + n), intentKey, true);
      } catch (java.net.http.HttpTimeoutException e) {
        if (attempt > BUSY_RETRIES) {
          throw e;
        }
        run.busyRetries.incrementAndGet();
        continue;
      }
      if (!busy(answer) || attempt > BUSY_RETRIES) {
        return answer;
      }
      run.busyRetries.incrementAndGet();
      Thread.sleep(Math.min(10_000, 500L << Math.min(attempt, 5)));
    }
  }

  /** A gateway answer that says nothing was started and the same call should be retried. */
  static boolean busy(JsonNode answer) {
    JsonNode sc = answer.at("/result/structuredContent");
    return sc.path("busy").asBoolean(false) && sc.path("retry").asBoolean(false);
  }

  /** The state of one soak: counters, samples, and what the samples read. */
  private final class Run {
    final TemporalConnection connection;
    final LocalEngine engine;
    final CountingTarget target;
    final FingerprintKey key;
    final AtomicLong completed = new AtomicLong();
    final AtomicLong seq = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong errorsInARow = new AtomicLong();
    /** Waiting executions' calls made again: the engine turned them away ("busy", nothing started) or they timed out. */
    final AtomicLong busyRetries = new AtomicLong();
    final AtomicReference<String> firstError = new AtomicReference<>();
    final AtomicReference<String> broken = new AtomicReference<>();
    final Deque<String> completedIds = new ArrayDeque<>();
    final List<String> waitingIds = java.util.Collections.synchronizedList(new ArrayList<>());
    final ArrayNode samples = JSON.createArrayNode();
    final long startNanos = System.nanoTime();
    volatile int waiting;
    long lastNanos = System.nanoTime();
    Duration lastJvmCpu = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
    Duration lastEngineCpu = Duration.ZERO;
    long lastCompleted;

    Run(TemporalConnection connection, LocalEngine engine, CountingTarget target, FingerprintKey key) {
      this.connection = connection;
      this.engine = engine;
      this.target = target;
      this.key = key;
      lastEngineCpu = engineStats().map(ProcessStats::cpu).orElse(Duration.ZERO);
    }

    void call(McpCaller caller) throws InterruptedException {
      long n = seq.getAndIncrement();
      String intentKey = n % HISTORY_EVERY == 0 ? "soak-call-" + n : null;
      try {
        JsonNode answer = caller.call(TOOL, JSON.createObjectNode().put("n", "c" + n), intentKey, false);
        String state = answer.at("/result/structuredContent/state").asText("");
        if (!state.equals("completed")) {
          throw new IOException("not completed: " + answer);
        }
        completed.incrementAndGet();
        errorsInARow.set(0);
        if (intentKey != null) {
          synchronized (completedIds) {
            completedIds.addLast(WorkflowIds.forIntentKey(key, ACTOR, intentKey));
            while (completedIds.size() > 3) {
              completedIds.removeFirst();
            }
          }
        }
      } catch (IOException e) {
        errors.incrementAndGet();
        firstError.compareAndSet(null, e.getMessage());
        if (errorsInARow.incrementAndGet() >= 50) {
          broken.compareAndSet(null, "50 calls in a row failed; the first error: " + firstError.get());
        }
      }
    }

    void failIfBroken() {
      if (broken.get() != null) {
        throw new IllegalStateException("soak stopped: " + broken.get());
      }
    }

    java.util.Optional<ProcessStats> engineStats() {
      return engine.cliServer().map(s -> ProcessStats.of(s.pid()));
    }

    void sample(String phase) {
      // CPU up to now first: the full GC and the history reads below are the sampler's, not the gateway's.
      long now = System.nanoTime();
      Duration jvmCpuNow = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
      java.util.Optional<ProcessStats> eng = engineStats();
      long heap = heapAfterFullGc();
      ProcessStats jvm = ProcessStats.self();
      double wall = Math.max(1e-9, (now - lastNanos) / 1e9);
      double jvmCpu = (jvmCpuNow.minus(lastJvmCpu).toNanos() / 1e9) / wall * 100;
      double engCpu = eng.map(e -> (e.cpu().minus(lastEngineCpu).toNanos() / 1e9) / wall * 100).orElse(0.0);
      long done = completed.get();
      double rate = (done - lastCompleted) / wall;
      ObjectNode s = JSON.createObjectNode();
      s.put("phase", phase);
      s.put("elapsed_s", Math.round((now - startNanos) / 1e8) / 10.0);
      s.put("completed", done);
      s.put("calls_per_s", Math.round(rate * 10) / 10.0);
      s.put("errors", errors.get());
      s.put("waiting", waiting);
      s.put("target_requests", target.requests());
      ObjectNode j = s.putObject("jvm");
      j.put("rss_kib", jvm.rssKib());
      j.put("heap_after_gc_kib", heap / KIB);
      j.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
      j.put("workflow_threads", workflowThreads());
      j.put("cpu_pct", Math.round(jvmCpu * 10) / 10.0);
      if (eng.isPresent()) {
        ObjectNode e = s.putObject("engine");
        e.put("rss_kib", eng.get().rssKib());
        e.put("threads", eng.get().threads());
        e.put("cpu_pct", Math.round(engCpu * 10) / 10.0);
        e.put("database_kib", engine.database().map(SoakBench::filesKib).orElse(0L));
      } else {
        s.putNull("engine");
      }
      ObjectNode h = s.putObject("history");
      List<String> done3;
      synchronized (completedIds) {
        done3 = List.copyOf(completedIds);
      }
      h.set("completed", history(done3));
      h.set("waiting", history(List.copyOf(waitingIds)));
      samples.add(s);
      progress.accept(line(s));
      lastNanos = System.nanoTime();
      lastJvmCpu = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
      lastEngineCpu = engineStats().map(ProcessStats::cpu).orElse(Duration.ZERO);
      lastCompleted = done;
    }

    /** Average events and bytes over the histories of {@code workflowIds} (their latest runs). */
    JsonNode history(List<String> workflowIds) {
      if (workflowIds.isEmpty()) {
        return JSON.nullNode();
      }
      long events = 0;
      long bytes = 0;
      int n = 0;
      for (String id : workflowIds) {
        try {
          long[] eb = historySize(id);
          events += eb[0];
          bytes += eb[1];
          n++;
        } catch (RuntimeException e) {
          // closed and deleted, or not yet visible: skip this one
        }
      }
      if (n == 0) {
        return JSON.nullNode();
      }
      return JSON.createObjectNode().put("executions", n).put("events", events / n).put("bytes", bytes / n);
    }

    long[] historySize(String workflowId) {
      long events = 0;
      long bytes = 0;
      com.google.protobuf.ByteString page = com.google.protobuf.ByteString.EMPTY;
      do {
        GetWorkflowExecutionHistoryResponse r = connection.stubs().blockingStub().getWorkflowExecutionHistory(
            GetWorkflowExecutionHistoryRequest.newBuilder().setNamespace(connection.namespace())
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).setNextPageToken(page).build());
        for (HistoryEvent e : r.getHistory().getEventsList()) {
          events++;
          bytes += e.getSerializedSize();
        }
        page = r.getNextPageToken();
      } while (!page.isEmpty());
      return new long[] {events, bytes};
    }
  }

  /** The SQLite database with its journal files ({@code -wal}, {@code -shm}, {@code -journal}). */
  private static long filesKib(Path database) {
    long bytes = 0;
    for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
      try {
        bytes += Files.size(Path.of(database + suffix));
      } catch (IOException absent) {
        // not every journal file exists
      }
    }
    return bytes / KIB;
  }

  private static long heapAfterFullGc() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Threads the Temporal SDK runs workflow code on (one per cached execution, plus update handlers). */
  private static long workflowThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("workflow-")).count();
  }

  static String line(JsonNode s) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("soak %-8s t=%6.0fs completed %7d (%6.1f/s) waiting %5d errors %d | jvm rss %7.1f MiB heap %7.1f MiB threads %4d (workflow %4d) cpu %5.1f%%",
        s.get("phase").asText(), s.get("elapsed_s").asDouble(), s.get("completed").asLong(), s.get("calls_per_s").asDouble(),
        s.get("waiting").asLong(), s.get("errors").asLong(),
        s.at("/jvm/rss_kib").asLong() / 1024.0, s.at("/jvm/heap_after_gc_kib").asLong() / 1024.0,
        s.at("/jvm/threads").asLong(), s.at("/jvm/workflow_threads").asLong(), s.at("/jvm/cpu_pct").asDouble()));
    if (s.get("engine").isObject()) {
      b.append(String.format(" | engine rss %7.1f MiB threads %4d cpu %5.1f%% db %7.1f MiB",
          s.at("/engine/rss_kib").asLong() / 1024.0, s.at("/engine/threads").asLong(), s.at("/engine/cpu_pct").asDouble(),
          s.at("/engine/database_kib").asLong() / 1024.0));
    }
    b.append(" | history");
    for (String kind : List.of("completed", "waiting")) {
      JsonNode h = s.at("/history/" + kind);
      b.append(h.isObject()
          ? String.format(" %s %d events %.1f KiB", kind, h.get("events").asLong(), h.get("bytes").asLong() / 1024.0)
          : " " + kind + " -");
    }
    return b.toString();
  }

  private ObjectNode report(Run run, LocalEngine engine, double engineStartSeconds, long stillWaiting) {
    ObjectNode r = JSON.createObjectNode();
    ObjectNode s = r.putObject("settings");
    s.put("duration", settings.duration().toString());
    s.put("engine", engine.kind().wireName());
    s.put("engine_choice", engine.choice().why());
    s.put("engine_start_s", Math.round(engineStartSeconds * 10) / 10.0);
    s.put("waiting", settings.waiting());
    s.put("waiting_per_session", settings.waitingPerSession());
    if (Double.isInfinite(settings.rate())) {
      s.put("rate", "max");
    } else {
      s.put("rate", settings.rate());
    }
    s.put("callers", settings.callers());
    s.put("interval", settings.interval().toString());
    s.put("warmup", settings.warmup());
    s.put("workflow_cache_size", settings.tuning().workflowCacheSize());
    s.put("workflow_threads", settings.tuning().maxWorkflowThreads());
    s.put("approval_timeout", settings.effectiveApprovalTimeout().toString());
    s.put("max_heap_mib", Runtime.getRuntime().maxMemory() / KIB / KIB);
    r.set("samples", run.samples);
    ObjectNode sum = r.putObject("summary");
    JsonNode baseline = find(run.samples, "baseline");
    JsonNode waitingSample = find(run.samples, "waiting");
    JsonNode last = run.samples.get(run.samples.size() - 1);
    sum.put("completed", last.get("completed").asLong());
    sum.put("errors", last.get("errors").asLong());
    sum.put("first_error", run.firstError.get());
    sum.put("target_requests", run.target.requests());
    sum.put("target_requests_without_key", run.target.requestsWithoutKey());
    sum.put("waiting_at_end", stillWaiting);
    sum.put("waiting_busy_retries", run.busyRetries.get());
    if (settings.waiting() > 0) {
      ObjectNode w = sum.putObject("per_waiting_execution");
      w.put("heap_kib", round((heapKib(waitingSample) - heapKib(baseline)) / (double) settings.waiting()));
      w.put("jvm_rss_kib", round((rssKib(waitingSample, "jvm") - rssKib(baseline, "jvm")) / (double) settings.waiting()));
      w.put("engine_rss_kib", round((rssKib(waitingSample, "engine") - rssKib(baseline, "engine")) / (double) settings.waiting()));
      w.put("jvm_threads", round((waitingSample.at("/jvm/threads").asLong() - baseline.at("/jvm/threads").asLong())
          / (double) settings.waiting()));
    }
    long calls = last.get("completed").asLong() - waitingSample.get("completed").asLong();
    if (calls > 0) {
      ObjectNode c = sum.putObject("per_completed_execution");
      c.put("from_completed", waitingSample.get("completed").asLong());
      c.put("to_completed", last.get("completed").asLong());
      c.put("heap_kib", round((heapKib(last) - heapKib(waitingSample)) / (double) calls));
      c.put("jvm_rss_kib", round((rssKib(last, "jvm") - rssKib(waitingSample, "jvm")) / (double) calls));
      c.put("engine_rss_kib", round((rssKib(last, "engine") - rssKib(waitingSample, "engine")) / (double) calls));
    }
    List<JsonNode> steady = new ArrayList<>();
    run.samples.forEach(x -> {
      if (x.get("phase").asText().equals("run") || x.get("phase").asText().equals("end")) {
        steady.add(x);
      }
    });
    if (!steady.isEmpty()) {
      sum.put("mean_cpu_pct_jvm", round(steady.stream().mapToDouble(x -> x.at("/jvm/cpu_pct").asDouble()).average().orElse(0)));
      sum.put("mean_cpu_pct_engine", round(steady.stream().mapToDouble(x -> x.at("/engine/cpu_pct").asDouble(0)).average().orElse(0)));
      JsonNode maxHeap = steady.stream().max(Comparator.comparingLong(x -> x.at("/jvm/heap_after_gc_kib").asLong())).orElseThrow();
      sum.put("max_heap_after_gc_kib", maxHeap.at("/jvm/heap_after_gc_kib").asLong());
    }
    sum.set("history_completed", last.at("/history/completed"));
    sum.set("history_waiting_first", waitingSample.at("/history/waiting"));
    sum.set("history_waiting_last", last.at("/history/waiting"));
    return r;
  }

  /** The summary as text lines. */
  public static List<String> summaryLines(JsonNode report) {
    JsonNode s = report.get("settings");
    JsonNode m = report.get("summary");
    List<String> out = new ArrayList<>();
    out.add(String.format("soak summary: engine %s (%s), %s at rate %s with %d callers, %d waiting (%d per session), "
            + "worker cache %d / threads %d, max heap %d MiB",
        s.get("engine").asText(), s.get("engine_choice").asText(), s.get("duration").asText(), s.get("rate").asText(),
        s.get("callers").asInt(), s.get("waiting").asInt(), s.get("waiting_per_session").asInt(),
        s.get("workflow_cache_size").asInt(), s.get("workflow_threads").asInt(), s.get("max_heap_mib").asLong()));
    out.add(String.format("  completed %d (errors %d), target requests %d (%d without an Idempotency-Key), still waiting at the end %d"
            + " (calls made again while creating them, busy or timed out: %d)",
        m.get("completed").asLong(), m.get("errors").asLong(), m.get("target_requests").asLong(),
        m.get("target_requests_without_key").asLong(), m.get("waiting_at_end").asLong(), m.path("waiting_busy_retries").asLong()));
    if (m.has("per_completed_execution")) {
      JsonNode c = m.get("per_completed_execution");
      out.add(String.format("  per completed execution (%d → %d): heap after GC %+.2f KiB, jvm RSS %+.2f KiB, engine RSS %+.2f KiB",
          c.get("from_completed").asLong(), c.get("to_completed").asLong(), c.get("heap_kib").asDouble(),
          c.get("jvm_rss_kib").asDouble(), c.get("engine_rss_kib").asDouble()));
    }
    if (m.has("per_waiting_execution")) {
      JsonNode w = m.get("per_waiting_execution");
      out.add(String.format("  per waiting execution: heap after GC %+.2f KiB, jvm RSS %+.2f KiB, engine RSS %+.2f KiB, jvm threads %+.3f",
          w.get("heap_kib").asDouble(), w.get("jvm_rss_kib").asDouble(), w.get("engine_rss_kib").asDouble(),
          w.get("jvm_threads").asDouble()));
    }
    if (m.has("mean_cpu_pct_jvm")) {
      out.add(String.format("  steady phase: mean CPU jvm %.1f%% + engine %.1f%% of a core; max heap after GC %.1f MiB",
          m.get("mean_cpu_pct_jvm").asDouble(), m.get("mean_cpu_pct_engine").asDouble(), m.get("max_heap_after_gc_kib").asLong() / 1024.0));
    }
    out.add("  history per execution: completed " + historyText(m.get("history_completed")) + "; waiting "
        + historyText(m.get("history_waiting_first")) + " after creation, " + historyText(m.get("history_waiting_last")) + " at the end");
    return out;
  }

  private static String historyText(JsonNode h) {
    return h == null || !h.isObject() ? "-" : String.format("%d events %.1f KiB", h.get("events").asLong(), h.get("bytes").asLong() / 1024.0);
  }

  private static JsonNode find(ArrayNode samples, String phase) {
    for (JsonNode s : samples) {
      if (s.get("phase").asText().equals(phase)) {
        return s;
      }
    }
    throw new IllegalStateException("no " + phase + " sample");
  }

  private static long heapKib(JsonNode s) {
    return s.at("/jvm/heap_after_gc_kib").asLong();
  }

  private static long rssKib(JsonNode s, String which) {
    return s.at("/" + which + "/rss_kib").asLong(0);
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static void deleteTree(Path dir) {
    try (var walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // a temp dir left behind is harmless
        }
      });
    } catch (IOException ignored) {
      // already gone
    }
  }
}
