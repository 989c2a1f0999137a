package io.onceport.app.bench;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.shared.codec.Payloads;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.mcp.AgentLimits;
import io.onceport.app.demo.DemoTarget;
import io.onceport.frontend.ops.Metrics;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.app.versioning.BuildInfo;
import io.onceport.app.versioning.WorkerVersioning;
import io.onceport.app.engine.LocalEngine;
import io.onceport.shared.temporal.TemporalConnection;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Everything one bench run needs, started on free loopback ports and stopped (in reverse order)
 * by {@link #close}, which also deletes the run's temporary directory: the engine ({@link
 * BenchEngine}), the demo target (in a child JVM of its own; both in this JVM with {@code
 * --engine-in-process}), a complete gateway in this JVM as {@code serve} runs it (worker and front
 * end on one connection, payload encryption on, session authorization auto, sticky workflow tasks),
 * the bare-Temporal worker (in a JVM of its own by default, sticky too, on the same engine) and,
 * when Node 22 is there, the TypeScript pass-through.
 *
 * <p>Each process's CPU time is read apart ({@link #cpuNanosByProcess}), so a subject's CPU per call
 * counts the processes it uses ({@link Subject#processes}) and not the others' idle pollers.
 */
final class BenchRig implements AutoCloseable {
  /** The processes a subject's CPU per call may count ({@link #cpuNanosByProcess}). */
  static final String BENCH = "bench";
  static final String ENGINE = "engine";
  static final String TARGET = "target";
  static final String NODE = "node";
  static final String BARE = "bare";
  static final String DRIVER = "driver";
  static final String READ_TOOL = BenchCalls.READ_TOOL;

  final Path dir;
  /** The demo target's base URL ({@code http://127.0.0.1:PORT}). */
  final String target;
  final BenchEngine engine;
  /** The demo target's JVM, or null when it runs in this one ({@code --engine-in-process}). */
  final ChildProcess targetProcess;
  final TemporalConnection connection;
  final FrontendRuntime frontend;
  /** The bare baseline in this JVM, or null when it runs in {@link #bareChild}. */
  final BareTemporal bare;
  /** The bare baseline's own JVM ({@code --bare-jvm}), or null. */
  final ChildProcess bareChild;
  /** The load driver's JVM ({@link DriverChild}), started by {@link #startDriver}. */
  ChildProcess driver;
  final NodeRuntime.PassThrough passThrough;
  final String passThroughSkipped;
  final String token;
  final String releaseId;
  final HttpClient http;
  private final List<AutoCloseable> running;

  private BenchRig(Path dir, String target, BenchEngine engine, ChildProcess targetProcess, TemporalConnection connection,
      FrontendRuntime frontend, BareTemporal bare, ChildProcess bareChild, NodeRuntime.PassThrough passThrough,
      String passThroughSkipped, String token, String releaseId, HttpClient http, List<AutoCloseable> running, RpcCounter rpcs) {
    this.rpcs = rpcs;
    this.dir = dir;
    this.target = target;
    this.engine = engine;
    this.targetProcess = targetProcess;
    this.connection = connection;
    this.frontend = frontend;
    this.bare = bare;
    this.bareChild = bareChild;
    this.passThrough = passThrough;
    this.passThroughSkipped = passThroughSkipped;
    this.token = token;
    this.releaseId = releaseId;
    this.http = http;
    this.running = running;
    jitCpu.follow(ProcessHandle.current().pid());
    if (bareChild != null) {
      jitCpu.follow(bareChild.pid());
    }
    running.add(jitCpu);
  }

  /** The pid of the JVM a subject's code runs in ({@link #BENCH}, {@link #BARE} or {@link #DRIVER}). */
  long jvmPid(String jvm) {
    if (BARE.equals(jvm) && bareChild != null) {
      return bareChild.pid();
    }
    return DRIVER.equals(jvm) && driver != null ? driver.pid() : ProcessHandle.current().pid();
  }

  /**
   * Starts the load driver's JVM for the MCP subjects (and the direct POST), so the gateway's JVM
   * holds the gateway alone; {@code calls} names what it calls.
   */
  void startDriver(BenchCalls calls) throws IOException, InterruptedException {
    driver = ChildProcess.start(DRIVER, List.of(javaBinary(), "-cp", absoluteClassPath(), DriverChild.class.getName(),
        calls.target().toString(), calls.mcp().toString(), calls.token(), calls.passThrough() == null ? "-" : calls.passThrough().toString(),
        calls.run(), calls.tool(), calls.releaseId(), Long.toString(calls.timeout().toMillis())), dir, null);
    running.add(driver);
    driver.awaitLine(DriverChild.READY, Duration.ofSeconds(90));
    jitCpu.follow(driver.pid());
  }

  /** The bench JVM's gRPC calls to the engine (gateway, worker and bare baseline share the connection). */
  final RpcCounter rpcs;
  /** CPU time of the bench JVM's and the bare JVM's JIT compiler threads. */
  final JitCpu jitCpu = new JitCpu();

  /**
   * Waits until the work the last calls caused has ended: no gRPC call but long polls for {@code
   * quiet} (longer than the delivery grace, after which a send reports its delivery and its run
   * completes), at most {@code limit}.
   */
  void awaitQuiet(Duration quiet, Duration limit) throws InterruptedException {
    long end = System.nanoTime() + limit.toNanos();
    long last = rpcs.busyCalls();
    long quietSince = System.nanoTime();
    while (System.nanoTime() < end) {
      Thread.sleep(50);
      long now = rpcs.busyCalls();
      if (now != last) {
        last = now;
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince >= quiet.toNanos()) {
        return;
      }
    }
  }

  static BenchRig start(BenchSettings settings, PrintWriter log) throws Exception {
    Path dir = Files.createTempDirectory("onceport-bench");
    List<AutoCloseable> running = new ArrayList<>();
    running.add(() -> deleteTree(dir));
    try {
      Path data = dir.resolve("data");
      BenchEngine engine = BenchEngine.start(settings.engine(), settings.engineInProcess(), dir);
      running.add(engine);
      ChildProcess targetProcess = settings.engineInProcess() ? null : startTargetChild(dir, running);
      String target = targetProcess == null ? startTargetHere(running)
          : "http://127.0.0.1:" + targetProcess.awaitLine(EngineChild.TARGET_READY, Duration.ofSeconds(90));
      ContractSet tools = new ContractLoader().load(contracts(settings, dir, target));
      if (tools.find(settings.tool()).isEmpty()) {
        throw new IllegalArgumentException("no contract for --tool " + settings.tool() + " in " + settings.contracts());
      }
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
      String releaseId = createRelease(http, target);

      Metrics metrics = new Metrics();
      running.add(metrics);
      // Sticky workflow tasks, as serve's own worker keeps them on either engine: the bench kills
      // no worker, so none can hang. The bare baseline's worker is sticky too.
      RpcCounter rpcs = new RpcCounter();
      TemporalConnection connection = TemporalConnection.connect(engine.target, "default", false,
          Payloads.dataConverter(true, data), Duration.ofSeconds(30), metrics.metricsScope(), List.of(rpcs));
      running.add(connection);
      connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
      WorkerRuntime worker = WorkerRuntime.start(connection, "bench", data, null, "auto", Duration.ofMinutes(1), "bench",
          settings.tuning(), versioning(engine.kind));
      running.add(worker);
      FrontendRuntime frontend = FrontendRuntime.start(connection, "bench", data, tools,
          FrontendSettings.loopback(Duration.ofSeconds(30), "auto").withAgentLimits(agentLimits(settings)), metrics, worker.readAccess());
      running.add(frontend);
      ChildProcess bareChild = settings.bareJvm() && settings.runs("bare")
          ? startBareChild(dir, engine.target, target + "/v1/releases", settings, running) : null;
      BareTemporal bare = bareChild != null ? null : BareTemporal.start(connection.stubs(), "default", target + "/v1/releases",
          settings.tuning());
      if (bare != null) {
        running.add(bare);
      }
      String token = new AgentRegistry(data).add("agent:bench");

      PassThroughStart pass = startPassThrough(settings, target, log, running);
      return new BenchRig(dir, target, engine, targetProcess, connection, frontend, bare, bareChild, pass.passThrough(),
          pass.skipped(), token, releaseId, http, running, rpcs);
    } catch (Exception | Error e) {
      closeAll(running);
      throw e;
    }
  }

  private static ChildProcess startTargetChild(Path dir, List<AutoCloseable> running) throws IOException {
    ChildProcess child = ChildProcess.start("target",
        List.of(javaBinary(), "-cp", absoluteClassPath(), EngineChild.class.getName(), EngineChild.TARGET), dir, null);
    running.add(child);
    return child;
  }

  private static String startTargetHere(List<AutoCloseable> running) throws IOException {
    DemoTarget demo = DemoTarget.start("127.0.0.1", 0);
    running.add(demo);
    return demo.url();
  }

  private static ChildProcess startBareChild(Path dir, String engineTarget, String url, BenchSettings settings,
      List<AutoCloseable> running) throws IOException, InterruptedException {
    ChildProcess child = ChildProcess.start("bare", List.of(javaBinary(), "-cp", absoluteClassPath(), BareChild.class.getName(),
        engineTarget, url, Long.toString(System.currentTimeMillis(), 36), Integer.toString(settings.tuning().workflowCacheSize()),
        Integer.toString(settings.tuning().maxWorkflowThreads())), dir, null);
    running.add(child);
    child.awaitLine(BareChild.READY, Duration.ofSeconds(90));
    return child;
  }

  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The pass-through subject, or why it is skipped (not selected, or no Node runtime to run it). */
  private record PassThroughStart(NodeRuntime.PassThrough passThrough, String skipped) {}

  private static PassThroughStart startPassThrough(BenchSettings settings, String target, PrintWriter log,
      List<AutoCloseable> running) throws InterruptedException {
    if (!settings.runs("passthrough")) {
      return new PassThroughStart(null, "not selected");
    }
    try {
      NodeRuntime.PassThrough passThrough =
          NodeRuntime.locate(settings.node(), settings.nodeProject(), log).startPassThrough(target);
      running.add(passThrough);
      return new PassThroughStart(passThrough, null);
    } catch (IOException | RuntimeException e) {
      String skipped = e.getMessage();
      log.println("bench: the pass-through subject is skipped: " + skipped);
      log.flush();
      return new PassThroughStart(null, skipped);
    }
  }

  /** This JVM's class path with every entry absolute: the child runs in the run's directory. */
  static String absoluteClassPath() {
    List<String> entries = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      if (!e.isEmpty()) {
        entries.add(Path.of(e).toAbsolutePath().toString());
      }
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  /** The target holds its next action for {@code hold} before acting and answering (its {@code delay=} fault). */
  void holdNextAction(Duration hold) throws IOException, InterruptedException {
    String body = "{\"next\":\"delay=" + hold.toMillis() + "\",\"count\":1}";
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(target + "/admin/faults")).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException("the demo target refused to hold its next action: " + r.statusCode() + " " + r.body());
    }
  }

  /** Requests the target acted on whose body contains {@code text} (its {@code /ledger}). */
  int actionsContaining(String text) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(target + "/ledger")).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
    int n = 0;
    for (com.fasterxml.jackson.databind.JsonNode e : McpDriver.JSON.readTree(r.body())) {
      if (e.path("body").toString().contains(text)) {
        n++;
      }
    }
    return n;
  }

  URI mcp() {
    return URI.create("http://127.0.0.1:" + frontend.port() + "/mcp");
  }

  URI passThroughMcp() {
    return URI.create("http://127.0.0.1:" + passThrough.port() + "/mcp");
  }

  /** Prefix of a process's JIT compiler threads' CPU in {@link #cpuNanosByProcess} ({@code jit:bench}, …). */
  static final String JIT = "jit:";

  /** CPU time so far of each process the bench runs, in nanoseconds ({@link ProcessCpu}). */
  Map<String, Long> cpuNanosByProcess() {
    return ProcessCpu.of(this);
  }

  /** The demo contracts (endpoints moved to this run's target) plus the bench's constant-size read. */
  private static Path contracts(BenchSettings settings, Path dir, String target) throws IOException {
    String port = target.substring(target.lastIndexOf(':') + 1);
    Path out = Files.createDirectories(dir.resolve("contracts"));
    if (!Files.isDirectory(settings.contracts())) {
      throw new IllegalArgumentException("contracts directory " + settings.contracts().toAbsolutePath()
          + " not found (run from the repository root or pass --contracts)");
    }
    try (Stream<Path> files = Files.list(settings.contracts())) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        Files.writeString(out.resolve(f.getFileName()),
            Files.readString(f).replace("127.0.0.1:8766", "127.0.0.1:" + port));
      }
    }
    // list_releases grows with every release the bench creates; this read stays one small object.
    Files.writeString(out.resolve(READ_TOOL + ".yaml"), """
        tool: %s
        description: Read one release (onceport bench's read_only subject).
        input_schema:
          type: object
          required: [id]
          properties:
            id: {type: string}
          additionalProperties: false
        channel: http
        http:
          method: GET
          url: http://127.0.0.1:%s/v1/releases/{{id}}
          timeout: PT10S
        replay:
          class: read_only
          attach_window: PT1M
        """.formatted(READ_TOOL, port));
    return out;
  }

  /**
   * Every call of the bench is one agent's, so the per-agent limit on long waits (64 by default,
   * there to keep one agent from starving others) would refuse the curve's 256 callers and the
   * storm's 1,000 with 429s: the bench sets it as an operator expecting that load would ({@code
   * --agent-max-waits}), to measure the call path, not the limit.
   */
  static AgentLimits agentLimits(BenchSettings settings) {
    int callers = Math.max(settings.stormCalls(), Math.max(settings.concurrency(),
        settings.curve().stream().mapToInt(Integer::intValue).max().orElse(0)));
    return new AgentLimits(Math.max(AgentLimits.DEFAULT_LONG_WAITS, callers), AgentLimits.DEFAULT_OPEN_SESSIONS,
        AgentLimits.DEFAULT_SESSIONS_PER_MINUTE);
  }

  private static String createRelease(HttpClient http, String target) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(target + "/v1/releases"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"service\":\"bench-read\",\"version\":\"1\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("the demo target did not create the read subject's release: " + r.body());
    }
    return McpDriver.JSON.readTree(r.body()).path("id").asText();
  }

  @Override
  public void close() {
    closeAll(running);
  }

  private static void closeAll(List<AutoCloseable> running) {
    for (int i = running.size() - 1; i >= 0; i--) {
      try {
        running.get(i).close();
      } catch (Exception ignored) {
        // best effort: stop the rest
      }
    }
    running.clear();
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** As serve on its own engine: unversioned on the embedded one, else a current version (the dev server refuses pinned tasks from an unversioned worker). */
  private static WorkerVersioning versioning(LocalEngine.Kind kind) {
    return kind == LocalEngine.Kind.EMBEDDED
        ? WorkerVersioning.unversioned("the embedded engine has no Worker Deployments")
        : WorkerVersioning.of(WorkerVersioning.DEFAULT_DEPLOYMENT_NAME, BuildInfo.current().defaultBuildId(), WorkerVersioning.Current.ALWAYS);
  }
}
