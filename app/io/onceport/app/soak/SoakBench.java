package io.onceport.app.soak;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.shared.codec.Payloads;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoadException;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.WorkflowIds;
import io.onceport.frontend.ops.Metrics;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.app.runtime.ReviewsGauge;
import io.onceport.app.engine.LocalEngine;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.shared.temporal.TemporalConnection;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
    ExecutorService pool = callerPool();
    try {
      CountingTarget target = CountingTarget.start();
      running.add(target);
      ContractSet tools = tools(dir, target);
      String token = new AgentRegistry(data).add(ACTOR);

      LocalEngine.Choice choice = LocalEngine.choose(settings.engine(), TemporalCliServer.findBinary());
      long t0 = System.nanoTime();
      LocalEngine engine = LocalEngine.start(choice, new LocalEngine.Settings(data, "127.0.0.1", 0, 0, false, null,
          Duration.ofSeconds(90)));
      running.add(engine);
      double engineStartSeconds = (System.nanoTime() - t0) / 1e9;
      progress.accept(String.format("soak: engine %s, ready in %.1f s", engine.describe(), engineStartSeconds));

      Runtimes runtimes = startRuntimes(engine, data, tools, running);
      TemporalConnection connection = runtimes.connection();
      FrontendRuntime calls = runtimes.calls();
      FrontendRuntime gated = runtimes.gated();

      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
      URI callsUri = URI.create("http://127.0.0.1:" + calls.port() + "/mcp");
      URI gatedUri = URI.create("http://127.0.0.1:" + gated.port() + "/mcp");
      FingerprintKey key = FingerprintKey.loadOrCreate(data);
      SoakRun run = new SoakRun(connection, engine, target, key, progress);

      List<McpCaller> callers = openCallers(http, callsUri, token);
      // Warm-up: class loading, JIT and connection pools, before the baseline.
      runCalls(pool, callers, run, settings.warmup(), Double.POSITIVE_INFINITY, Long.MAX_VALUE);
      run.sample("baseline");

      createWaitingInHalves(pool, http, gatedUri, token, run);

      measure(pool, callers, run);
      run.failIfBroken();
      run.sample("end");
      long stillWaiting = new ReviewsGauge(connection).count(new ExecutionDirectory(connection).hasVisibility());
      return SoakReport.report(settings, run, engine, engineStartSeconds, stillWaiting);
    } finally {
      pool.shutdownNow();
      closeInReverse(running);
      deleteTree(dir);
    }
  }

  /** The soak's one tool, written as a contract file against the counting target and loaded as serve would. */
  private static ContractSet tools(Path dir, CountingTarget target) throws IOException, ContractLoadException {
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    Files.writeString(contracts.resolve(TOOL + ".yaml"), contract(target.port()));
    return new ContractLoader().load(contracts);
  }

  private ExecutorService callerPool() {
    return Executors.newFixedThreadPool(Math.max(settings.callers() + 1, 8), r -> {
      Thread t = new Thread(r, "soak-caller");
      t.setDaemon(true);
      return t;
    });
  }

  /** The connection, the worker, and two front ends: one for the measured calls, one whose calls wait for an operator. */
  private record Runtimes(TemporalConnection connection, FrontendRuntime calls, FrontendRuntime gated) {}

  private Runtimes startRuntimes(LocalEngine engine, Path data, ContractSet tools, List<AutoCloseable> running) {
    Metrics metrics = new Metrics();
    running.add(metrics);
    TemporalConnection connection = TemporalConnection.connect(engine.target(), "default", false,
        Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope());
    running.add(connection);
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    running.add(WorkerRuntime.start(connection, "onceport", data, null, "operator", settings.effectiveApprovalTimeout(),
        null, settings.tuning()));
    FrontendRuntime calls = FrontendRuntime.start(connection, "onceport", data, tools,
        FrontendSettings.loopback(Duration.ofSeconds(30), "auto"), metrics);
    running.add(calls);
    FrontendRuntime gated = FrontendRuntime.start(connection, "onceport", data, tools,
        FrontendSettings.loopback(Duration.ofSeconds(30), "operator"), metrics);
    running.add(gated);
    return new Runtimes(connection, calls, gated);
  }

  private List<McpCaller> openCallers(HttpClient http, URI callsUri, String token) throws Exception {
    List<McpCaller> callers = new ArrayList<>();
    for (int i = 0; i < settings.callers(); i++) {
      callers.add(McpCaller.open(http, callsUri, token, "2025-06-18", "soak-caller-" + i));
    }
    return callers;
  }

  /** The measured phase: calls at the set rate until the duration ends (or the calls of {@code --soak-until} were made), sampled every interval or every so many calls. */
  private void measure(ExecutorService pool, List<McpCaller> callers, SoakRun run) throws Exception {
    long end = System.nanoTime() + settings.duration().toNanos();
    long count = settings.untilCompleted() == 0 ? Long.MAX_VALUE
        : Math.max(0, settings.untilCompleted() - run.seq.get());
    Future<?> load = settings.rate() == 0 ? null
        : pool.submit(() -> runCalls(pool, callers, run, count, settings.rate(), end));
    long nextSample = System.nanoTime() + settings.interval().toNanos();
    long nextCount = settings.sampleCalls() == 0 ? Long.MAX_VALUE : settings.sampleCalls();
    while (System.nanoTime() < end && (load == null || !load.isDone())) {
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
  }

  /** Best effort, last started first. */
  private static void closeInReverse(List<AutoCloseable> running) {
    for (int i = running.size() - 1; i >= 0; i--) {
      try {
        running.get(i).close();
      } catch (Exception ignored) {
        // best effort
      }
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
  private void runCalls(ExecutorService pool, List<McpCaller> callers, SoakRun run, long count, double rate, long endNanos) {
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

  /**
   * The waiting executions in two halves, sampled after each: the second half's growth is what one
   * more waiting execution costs once pools, JIT and the worker's cache have grown (the first half
   * pays those once).
   */
  private void createWaitingInHalves(ExecutorService pool, HttpClient http, URI gated, String token, SoakRun run)
      throws Exception {
    long half = settings.waiting() / 2;
    if (half > 0) {
      createWaiting(pool, http, gated, token, run, 0, half);
      run.sample("waiting-half");
    }
    createWaiting(pool, http, gated, token, run, half, settings.waiting());
    run.sample("waiting");
  }

  private void createWaiting(ExecutorService pool, HttpClient http, URI gated, String token, SoakRun run, long from, long to)
      throws Exception {
    long sessions = (to - from + settings.waitingPerSession() - 1) / settings.waitingPerSession();
    long firstSession = from / settings.waitingPerSession();
    AtomicLong made = new AtomicLong(from);
    List<Future<?>> futures = new ArrayList<>();
    for (long s = 0; s < sessions; s++) {
      long session = firstSession + s;
      futures.add(pool.submit(() -> {
        McpCaller caller = McpCaller.open(http, gated, token, "2025-11-25", "soak-waiting-" + session);
        for (int i = 0; i < settings.waitingPerSession(); i++) {
          long n = made.getAndIncrement();
          if (n >= to) {
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
    run.waiting = (int) to;
  }

  /**
   * One waiting execution's call, called again (same session, same arguments: it attaches to what
   * the first one started, if anything) while the gateway answers "busy" (nothing was started,
   * retry the same call) or the answer does not come within the caller's timeout — what a client
   * must do, so the soak does it on an overloaded machine instead of ending.
   */
  private static JsonNode callWaiting(McpCaller caller, long n, String intentKey, SoakRun run) throws Exception {
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

  /** The summary as text lines. */
  public static List<String> summaryLines(JsonNode report) {
    return SoakReport.summaryLines(report);
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
