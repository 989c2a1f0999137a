package io.onceport.app.cli;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.ops.HealthChecks;
import io.onceport.frontend.ops.Metrics;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.HostPort;
import io.onceport.app.runtime.StartupChecks;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.app.codec.CodecSignIn;
import io.onceport.app.engine.LocalEngine;
import io.onceport.app.engine.UiGateway;
import io.onceport.app.engine.TemporalCliInstaller;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.temporal.connect.ClientSettings;
import io.onceport.app.engine.WorkerTuning;
import io.onceport.app.versioning.WorkerVersioning;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code onceport serve}: engine, worker and MCP front end in one JVM. Without {@code --temporal}
 * it starts an engine itself ({@link LocalEngine}): by default ({@code --engine auto}) the Temporal
 * CLI's dev server with its database in the data dir whenever the {@code temporal} binary is
 * installed, else the embedded Temporal test server (in memory, for tests and demos). The start-up
 * line names the engine and why it was chosen.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Run the gateway: Temporal engine, worker and MCP front end in one process; MCP at http://127.0.0.1:8765/mcp.",
      "Engine (--engine auto): the Temporal CLI's dev server (durable, DATA/temporal.db, UI on 8233) when the `temporal` "
          + "binary is installed, else the embedded engine (in memory, for tests and demos).",
      "On this machine auto uses: ${sys:onceport.serve.auto-engine}."
    })
public final class ServeCommand implements Callable<Integer> {
  static {
    // Read by the description above when --help is printed: what auto would pick here, and why.
    if (System.getProperty("onceport.serve.auto-engine") == null) {
      System.setProperty("onceport.serve.auto-engine", LocalEngine.describeAuto());
    }
  }

  @Spec CommandSpec spec;
  @Mixin RoleOptions.Common common;
  @Mixin RoleOptions.Worker worker;
  @Mixin RoleOptions.Frontend frontend;

  @Option(names = "--embedded-port", paramLabel = "PORT", defaultValue = "7233",
      description = "Port of the engine on 127.0.0.1 (embedded or temporal-cli; default: ${DEFAULT-VALUE}).")
  int embeddedPort;

  @Option(names = "--engine", paramLabel = "auto|embedded|temporal-cli", defaultValue = "auto",
      description = "Engine when --temporal is not given. temporal-cli: the Temporal CLI's dev server (durable SQLite in "
          + "DATA/temporal.db, closed runs kept 24 h, the Temporal UI; needs the `temporal` binary on PATH or in "
          + "~/.cache/onceport/bin — bin/install-temporal-cli). embedded: Temporal's Java test server in this JVM (nothing to "
          + "install; keeps every execution in memory until it exits — for tests and demos). auto: temporal-cli when the "
          + "binary is found, else embedded. Default: ${DEFAULT-VALUE}.")
  String engine;

  @Option(names = "--ui-port", paramLabel = "PORT",
      description = "Temporal UI port with temporal-cli (default: " + LocalEngine.DEFAULT_UI_PORT + ", or a free port when that one is taken; 0: any free port).")
  Integer uiPort;

  @Mixin WorkerTuningOptions tuning;
  @Mixin VersioningOptions versioningOptions;

  @Mixin ContractOptions contractOptions;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    common.validate();
    FrontendSettings settings = frontend.settings(common.sessionAuthorization);
    LocalEngine.Mode mode = engineMode(engine);
    WorkerTuning workerTuning = tuning.tuning();
    LocalEngine.Choice choice = common.temporal.chosen() ? null : chooseEngine(mode, err);
    ContractSet tools = contractOptions.load(frontend.contracts, "--contracts DIR");
    tools.warnings().forEach(w -> err.println("onceport: warning: " + w));
    // Before any engine starts: a busy port or a data dir in use is one line, at once.
    StartupChecks.listenPortFree(settings.listen(), "--listen");
    StartupChecks.journalWriterFree(common.data(), worker.journalWriter);
    VaultService vault = worker.openVault(common.data());
    boolean useCluster = common.temporal.chosen();
    WorkerVersioning versioning = versioningOptions.versioning(useCluster ? WorkerVersioning.Current.WHEN_NEW : WorkerVersioning.Current.ALWAYS);
    List<AutoCloseable> running = new ArrayList<>();
    Metrics metrics = new Metrics();
    LocalEngine local = null;
    try {
      ClientSettings temporal;
      if (useCluster) {
        temporal = common.settings();
      } else {
        local = startLocalEngine(choice, mode, settings, running, err);
        if (local.uiUrl().isPresent() && codecEndpoint(settings) != null) {
          settings = settings.withCodecUiOrigin(local.uiUrl().get());
        }
        temporal = ClientSettings.plaintext(local.target(), common.namespace());
        versioning = localVersioning(local, versioning);
      }
      // Sticky even on an embedded engine: this worker lives and dies with it in this JVM (LocalEngine#nonSticky).
      common.startTracing("serve", running);
      TemporalConnection connection = common.connect(temporal, false, metrics);
      running.add(connection);
      registerSearchAttributes(connection, err);
      FrontendRuntime front = startRoles(connection, vault, workerTuning, versioning, tools, settings, metrics, running);
      printEndpoint(out, settings, front, tools, connection, local);
    } catch (CliException e) {
      RoleCommands.closeAll(running);
      throw e;
    } catch (IllegalStateException | IllegalArgumentException | java.io.UncheckedIOException e) {
      RoleCommands.closeAll(running);
      throw new CliException(e.getMessage());
    }
    running.add(0, metrics);
    RoleCommands.runUntilStopped(running);
    return 0;
  }

  /** The worker and the front end in this one JVM, each added to {@code running} once started. */
  private FrontendRuntime startRoles(TemporalConnection connection, VaultService vault, WorkerTuning workerTuning,
      WorkerVersioning versioning, ContractSet tools, FrontendSettings settings, Metrics metrics, List<AutoCloseable> running) {
    WorkerRuntime workerRuntime = WorkerRuntime.start(connection, common.taskQueue, common.data(), vault,
        common.sessionAuthorization, worker.approvalTimeout, worker.journalWriter, workerTuning, versioning);
    running.add(workerRuntime);
    if (versioning.versioned()) {
      LoggerFactory.getLogger(ServeCommand.class).info("worker: {}", workerRuntime.describeVersioning());
    }
    // One JVM: the read path may use the worker's vault and journal (a frontend-only process may not).
    FrontendRuntime front = FrontendRuntime.start(connection, common.taskQueue, common.data(), tools, settings, metrics,
        workerRuntime.readAccess());
    running.add(front);
    return front;
  }

  /**
   * What serve prints once it listens: the engine and where the rest is, then the start-up line —
   * short, the MCP URL and the engine, ending in {@code ready} (or {@code not ready: <why> (fix:
   * <command>)}), as {@code /readyz} says. The Temporal connection is named by address, namespace and
   * kind of authentication, never a secret.
   */
  private void printEndpoint(PrintWriter out, FrontendSettings settings, FrontendRuntime front, ContractSet tools,
      TemporalConnection connection, LocalEngine local) throws InterruptedException {
    HostPort mcp = settings.listen();
    String engineWord = local == null ? "Temporal at " + connection.target()
        : local.kind() == LocalEngine.Kind.EMBEDDED ? "embedded (in memory)" : "temporal-cli (durable)";
    if (local != null) {
      // The embedded engine has no Worker Deployments: said on the engine's line, not a line of its own.
      out.println("onceport: engine " + local.describe()
          + (local.kind() == LocalEngine.Kind.EMBEDDED ? "; " + RoleCommands.EMBEDDED_UNVERSIONED + ": the worker runs unversioned" : ""));
    }
    out.printf("onceport: %d tools from %s, Temporal %s (namespace %s, %s, task queue %s), session authorization %s, data %s%n",
        tools.size(), frontend.contracts, connection.target(), connection.namespace(), connection.settings().auth().label(),
        common.taskQueue, common.sessionAuthorization, common.data().toAbsolutePath().normalize());
    HealthChecks.Report ready = front.awaitReady(READY_WITHIN);
    out.printf("onceport: MCP endpoint http://%s:%d/mcp, engine %s — %s%n",
        mcp.host().contains(":") ? "[" + mcp.host() + "]" : mcp.host(), front.port(), engineWord, ready.summary());
    printSignIn(out, settings, local);
    out.flush();
  }

  /** How long the sign-in link serve prints can be used (once). */
  static final Duration SIGN_IN_LINK = Duration.ofHours(24);

  /**
   * The Temporal UI's one-step sign-in, as a notebook server prints its link: opened once, the
   * browser holds the codec server's session cookie and the UI shows decoded payloads
   * ({@code CodecSignIn}); only whoever reads this output (or holds the data dir) has it.
   */
  private void printSignIn(PrintWriter out, FrontendSettings settings, LocalEngine local) {
    if (local == null || local.uiUrl().isEmpty() || codecEndpoint(settings) == null) {
      return;
    }
    String ui = local.uiUrl().get();
    String ticket = CodecSignIn.forDataDir(common.data()).mintLocal(SIGN_IN_LINK);
    out.println("onceport: Temporal UI " + ui + " — sign in once to see decoded payloads (one use, within 24 h; a new link: "
        + "onceport operator codec-link --local --data " + common.data() + " --url " + ui + UiGateway.CODEC_PATH + "):");
    out.println("  " + ui + UiGateway.CODEC_PATH + "/sign-in?ticket=" + ticket + "&next=/namespaces/" + common.namespace() + "/workflows");
  }

  /**
   * Registers the search attributes where this process may (its own engine, or a cluster that
   * lets it); where it may not, serve still starts and its start-up line and {@code /readyz} say
   * not ready, naming {@code temporal setup}.
   */
  private static void registerSearchAttributes(TemporalConnection connection, PrintWriter err) {
    try {
      connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    } catch (IllegalStateException e) {
      err.println("onceport: warning: " + e.getMessage());
    }
  }

  /** How long serve waits for its own worker to poll before its start-up line says "not ready" and why. */
  static final Duration READY_WITHIN = Duration.ofSeconds(30);

  /**
   * The UI (in the operator's browser) decodes payloads through this front end's codec server:
   * known only when the MCP port is fixed and reachable on loopback.
   */
  private static String codecEndpoint(FrontendSettings settings) {
    HostPort mcp = settings.listen();
    return mcp.port() != 0 && mcp.isLoopback() ? "http://" + mcp + "/codec" : null;
  }

  /** The local engine serve starts when no --temporal is given; warns when it keeps executions only in memory. */
  private LocalEngine startLocalEngine(LocalEngine.Choice choice, LocalEngine.Mode mode, FrontendSettings settings,
      List<AutoCloseable> running, PrintWriter err) {
    LocalEngine local = LocalEngine.start(choice, new LocalEngine.Settings(common.data(), "127.0.0.1", embeddedPort, uiPort,
        false, codecEndpoint(settings), Duration.ofSeconds(60)));
    running.add(local);
    if (local.kind() == LocalEngine.Kind.EMBEDDED && mode == LocalEngine.Mode.AUTO) {
      // One line: what the embedded engine costs, and why it runs (no binary, or the install failed).
      err.println("onceport: note: the embedded engine keeps every execution in memory and loses them when serve stops ("
          + choice.why() + ")");
    }
    return local;
  }

  /**
   * The worker's versioning on the engine serve started: the embedded engine has no Worker
   * Deployments (said in one line); on the Temporal CLI's server serve is the whole deployment, so
   * its build becomes current at once — an execution still pinned to an earlier build waits for a
   * worker of that build (docs/production.md, "Upgrading").
   */
  private static WorkerVersioning localVersioning(LocalEngine local, WorkerVersioning versioned) {
    if (local.kind() == LocalEngine.Kind.EMBEDDED) {
      return WorkerVersioning.unversioned(RoleCommands.EMBEDDED_UNVERSIONED);
    }
    return versioned;
  }

  static LocalEngine.Mode engineMode(String engine) {
    try {
      return LocalEngine.Mode.parse(engine);
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
  }

  /**
   * The engine {@code mode} names, given what is installed; a CLI error for temporal-cli without the
   * binary. Under auto with no binary, {@code bin/onceport} installs it first ({@link TemporalCliInstaller});
   * when that cannot be had (offline) serve falls back to the embedded engine and says why.
   */
  static LocalEngine.Choice chooseEngine(LocalEngine.Mode mode, PrintWriter err) {
    try {
      Optional<Path> binary = TemporalCliServer.findBinary();
      Optional<Path> installer = TemporalCliInstaller.configured();
      if (mode == LocalEngine.Mode.AUTO && binary.isEmpty() && installer.isPresent()) {
        TemporalCliInstaller.Result installed = TemporalCliInstaller.install(installer.get(), err);
        if (installed.binary().isEmpty()) {
          return new LocalEngine.Choice(LocalEngine.Kind.EMBEDDED, Optional.empty(), "auto: the Temporal CLI could not be "
              + "installed (" + installed.why() + "); --engine embedded skips the attempt");
        }
        return new LocalEngine.Choice(LocalEngine.Kind.TEMPORAL_CLI, installed.binary(), "auto: " + installed.why());
      }
      return LocalEngine.choose(mode, binary);
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
  }

  static HostPort parse(String option, String value) {
    try {
      return HostPort.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CliException(option + ": " + e.getMessage());
    }
  }

}
