package io.onceport.testing;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.activity.auth.SessionAuthority;
import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.KdfParameters;
import io.onceport.activity.vault.PassphraseSource;
import io.onceport.activity.vault.Vault;
import io.onceport.activity.vault.VaultLock;
import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.app.demo.DemoTarget;
import io.onceport.frontend.mcp.McpConfig;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.workflow.execution.ExecutionRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The whole gateway on loopback, wired as {@code serve} wires it — embedded engine (or the Temporal
 * CLI's dev server), a real worker
 * (journals, HTTP channel, authorization ladder), the real MCP front end — with the demo releases
 * API as the target and the shipped demo contracts pointed at it.
 */
public final class GatewayHarness implements AutoCloseable {
  public static final String TASK_QUEUE = "onceport-e2e";
  public final Path dir;
  public final Path data;
  public final DemoTarget target;
  /** The embedded engine, or null when the gateway runs on the Temporal CLI's dev server ({@link #devServer}). */
  public final EmbeddedEngine engine;
  public final TemporalCliServer devServer;
  public final TemporalConnection connection;
  /** The front end's connection: {@link #connection} unless interceptors were asked for. */
  public final TemporalConnection frontendConnection;
  public final WorkerRuntime worker;
  public final FrontendRuntime frontend;
  public final ExecutionDirectory directory;
  public final String token;
  public final String otherToken;
  public final io.onceport.frontend.ops.Metrics metrics;

  public GatewayHarness(boolean startWorker) throws IOException {
    this(startWorker, Duration.ofSeconds(20));
  }

  /** @param callWait how long tools/call waits for a settled outcome */
  public GatewayHarness(boolean startWorker, Duration callWait) throws IOException {
    this(startWorker, callWait, java.util.Map.of());
  }

  /**
   * @param extraContracts further contract files (file name → YAML) next to the shipped ones;
   *     {@code http://127.0.0.1:8766} in them is pointed at the demo target like in the shipped ones
   */
  public GatewayHarness(boolean startWorker, Duration callWait, java.util.Map<String, String> extraContracts) throws IOException {
    this(startWorker, callWait, java.util.List.of(), extraContracts);
  }

  /**
   * @param frontendInterceptors gRPC interceptors on the front end's own connection to the engine
   *     (the worker keeps a clean one): engine hiccups as the front end sees them
   * @param extraContracts as in {@link #GatewayHarness(boolean, Duration, java.util.Map)}
   */
  public GatewayHarness(boolean startWorker, Duration callWait, java.util.List<io.grpc.ClientInterceptor> frontendInterceptors,
      java.util.Map<String, String> extraContracts) throws IOException {
    this(startWorker, callWait, frontendInterceptors, extraContracts, null, false, java.util.function.UnaryOperator.identity());
  }

  /** As {@link #GatewayHarness(boolean, Duration, java.util.Map)}, with the front end's settings adjusted (e.g. agent limits). */
  public GatewayHarness(boolean startWorker, Duration callWait, java.util.Map<String, String> extraContracts,
      java.util.function.UnaryOperator<io.onceport.app.runtime.FrontendSettings> settings) throws IOException {
    this(startWorker, callWait, java.util.List.of(), extraContracts, null, false, settings);
  }

  /**
   * The same gateway on a real Temporal server: the Temporal CLI's dev server (SQLite, visibility,
   * update admission limits, sticky queues), started here; workers keep sticky execution.
   */
  public static GatewayHarness onTemporalCli(Path binary, Duration callWait, java.util.List<io.grpc.ClientInterceptor> frontendInterceptors)
      throws IOException {
    return new GatewayHarness(true, callWait, frontendInterceptors, java.util.Map.of(), binary, false,
        java.util.function.UnaryOperator.identity());
  }

  /** As {@link #onTemporalCli(Path, Duration, java.util.List)}, with further contracts (see the constructor). */
  public static GatewayHarness onTemporalCli(Path binary, Duration callWait, java.util.Map<String, String> extraContracts)
      throws IOException {
    return new GatewayHarness(true, callWait, java.util.List.of(), extraContracts, binary, false,
        java.util.function.UnaryOperator.identity());
  }

  /**
   * As {@link #onTemporalCli(Path, Duration, java.util.List)} without a worker: the test starts and
   * stops its own (the front end then reads as a front end in its own process does).
   */
  public static GatewayHarness onTemporalCliWithoutWorker(Path binary, Duration callWait) throws IOException {
    return new GatewayHarness(false, callWait, java.util.List.of(), java.util.Map.of(), binary, false,
        java.util.function.UnaryOperator.identity());
  }

  /**
   * As {@link #onTemporalCli(Path, Duration, java.util.List)}, with further contracts (see the
   * constructor) and a vault holding one bearer credential, {@value #VAULT_CREDENTIAL}, for contracts
   * that reference it ({@link #lockVault()} locks it as {@code onceport vault lock} does).
   */
  public static GatewayHarness onTemporalCliWithVault(Path binary, Duration callWait, java.util.Map<String, String> extraContracts)
      throws IOException {
    return new GatewayHarness(true, callWait, java.util.List.of(), extraContracts, binary, true,
        java.util.function.UnaryOperator.identity());
  }

  /** The credential in the vault of {@link #onTemporalCliWithVault}. */
  public static final String VAULT_CREDENTIAL = "deploy";
  private static final String VAULT_PASSPHRASE = "harness vault passphrase";

  /** Locks the vault: the authorization ladder then refuses every credentialed call ({@code vault_locked}). */
  public void lockVault() {
    VaultLock.lock(data, "harness", java.time.Instant.now());
  }

  private GatewayHarness(boolean startWorker, Duration callWait, java.util.List<io.grpc.ClientInterceptor> frontendInterceptors,
      java.util.Map<String, String> extraContracts, Path temporalCli, boolean withVault,
      java.util.function.UnaryOperator<io.onceport.app.runtime.FrontendSettings> settings) throws IOException {
    dir = Files.createTempDirectory("onceport-e2e");
    data = dir.resolve("data");
    target = DemoTarget.start("127.0.0.1", 0);
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    try (var files = Files.list(Path.of("contracts"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        Files.writeString(contracts.resolve(f.getFileName()),
            Files.readString(f).replace("127.0.0.1:8766", "127.0.0.1:" + target.port()));
      }
    }
    for (var extra : extraContracts.entrySet()) {
      Files.writeString(contracts.resolve(extra.getKey()), extra.getValue().replace("127.0.0.1:8766", "127.0.0.1:" + target.port()));
    }
    ContractSet tools;
    try {
      tools = new ContractLoader().load(contracts);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    AgentRegistry agents = new AgentRegistry(data);
    token = agents.add("agent:deployer");
    otherToken = agents.add("agent:other");
    engine = temporalCli == null ? EmbeddedEngine.start("127.0.0.1", 0) : null;
    devServer = temporalCli == null ? null
        : TemporalCliServer.start(temporalCli, dir.resolve("temporal"), "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
    boolean nonSticky = engine != null; // the embedded engine's sticky queues never time out
    metrics = new io.onceport.frontend.ops.Metrics();
    connection = TemporalConnection.connect(temporalTarget(), "default", nonSticky,
        io.onceport.shared.codec.Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope());
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    VaultService vault = null;
    if (withVault) {
      Files.createDirectories(data);
      try (Vault v = Vault.create(data, VAULT_PASSPHRASE.toCharArray(),
          KdfParameters.forTests())) {
        v.put(new Credential(VAULT_CREDENTIAL, Credential.Type.BEARER, null, null,
            "harness_not_a_real_token"), false);
      }
      vault = VaultService.open(data, PassphraseSource.fromEnvironment(
          java.util.Map.of(PassphraseSource.ENV, VAULT_PASSPHRASE)));
    }
    worker = startWorker ? WorkerRuntime.start(connection, TASK_QUEUE, data, vault, "auto", Duration.ofMinutes(1), "harness") : null;
    frontendConnection = frontendInterceptors.isEmpty() ? connection : TemporalConnection.connect(temporalTarget(), "default", nonSticky,
        io.onceport.shared.codec.Payloads.dataConverter(true, data), Duration.ofSeconds(10), null, frontendInterceptors);
    // As serve: with a worker in this JVM the read path may use its vault and journal.
    frontend = FrontendRuntime.start(frontendConnection, TASK_QUEUE, data, tools,
        settings.apply(io.onceport.app.runtime.FrontendSettings.loopback(callWait, "auto")), metrics,
        worker != null ? worker.readAccess() : FrontendRuntime.ReadAccess.NONE);
    directory = new ExecutionDirectory(connection);
  }

  /** {@code HOST:PORT} of the engine this gateway runs on. */
  public String temporalTarget() {
    return engine != null ? engine.target() : devServer.target();
  }

  /** Arms a demo-target fault for the next {@code count} matching requests. */
  public void armFault(String next, int count) throws IOException, InterruptedException {
    var http = java.net.http.HttpClient.newHttpClient();
    var r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(target.url() + "/admin/faults"))
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"next\":\"" + next + "\",\"count\":" + count + "}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException("arming fault failed: " + r.statusCode() + " " + r.body());
    }
  }

  public McpClient client() throws IOException, InterruptedException {
    return new McpClient(frontend.port(), token).initialize();
  }

  public ExecutionRecord record(String executionId) {
    return directory.record(directory.locate(executionId).orElseThrow());
  }

  /** Polls until the record satisfies the condition or the timeout passes. */
  public ExecutionRecord awaitRecord(String executionId, java.util.function.Predicate<ExecutionRecord> condition, Duration timeout)
      throws InterruptedException {
    return Records.await(directory, executionId, condition, timeout);
  }

  /** Moves the embedded engine's clock on by {@code d} at once ({@link EngineClock}; not on the dev server). */
  public void skipTime(java.time.Duration d) {
    if (engine == null) {
      throw new IllegalStateException("time skipping needs the embedded engine");
    }
    EngineClock.skip(connection, d);
  }

  @Override
  public void close() {
    frontend.close();
    if (frontendConnection != connection) {
      frontendConnection.close();
    }
    if (worker != null) {
      worker.close();
    }
    connection.close();
    if (engine != null) {
      engine.close();
    }
    if (devServer != null) {
      devServer.close();
    }
    target.close();
  }
}
