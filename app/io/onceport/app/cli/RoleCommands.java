package io.onceport.app.cli;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.ops.HealthChecks;
import io.onceport.frontend.ops.Metrics;
import io.onceport.frontend.ops.MetricsServer;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.HostPort;
import io.onceport.app.runtime.StartupChecks;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.app.versioning.WireCompatibility;
import io.onceport.app.versioning.WorkerVersioning;
import io.onceport.workflow.WireProtocol;
import io.onceport.shared.temporal.TemporalConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The split roles: {@code engine}, {@code worker} and {@code frontend}, for multi-process set-ups. */
final class RoleCommands {
  /** Why a worker on the embedded engine is unversioned, said once at start-up. */
  static final String EMBEDDED_UNVERSIONED = "the embedded engine has no Worker Deployments";

  private RoleCommands() {}

  /** Blocks until the JVM shuts down, then closes what was started, newest first. */
  static void runUntilStopped(List<AutoCloseable> running) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      closeAll(running);
      stopped.countDown();
    }, "onceport-shutdown"));
    stopped.await();
  }

  static void closeAll(List<AutoCloseable> running) {
    for (int i = running.size() - 1; i >= 0; i--) {
      try {
        running.get(i).close();
      } catch (Exception ignored) {
        // best effort on shutdown
      }
    }
  }

  @Command(name = "engine", mixinStandardHelpOptions = true,
      description = {"Run the embedded Temporal engine alone (in memory, development only), for local multi-process set-ups.",
          "Workers connect with --temporal 127.0.0.1:PORT --embedded-engine; front ends with --temporal 127.0.0.1:PORT."})
  static final class EngineCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--port", defaultValue = "7233", description = "Port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
    int port;

    @Override
    public Integer call() throws Exception {
      EmbeddedEngine engine;
      try {
        engine = EmbeddedEngine.start("127.0.0.1", port);
      } catch (IllegalStateException e) {
        throw new CliException(e.getMessage());
      }
      List<AutoCloseable> running = new ArrayList<>(List.of(engine));
      try (TemporalConnection connection = TemporalConnection.connect(engine.target(), "default", true, null, Duration.ofSeconds(10))) {
        connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
      }
      spec.commandLine().getOut().println("onceport: embedded Temporal engine on " + engine.target() + " (in memory)");
      spec.commandLine().getOut().flush();
      runUntilStopped(running);
      return 0;
    }
  }

  @Command(name = "worker", mixinStandardHelpOptions = true,
      description = {"Run a worker only: the ToolExecution workflow and the activities that reach targets.",
          "An unreachable Temporal is retried with backoff (logged) until it answers or the worker is stopped."})
  static final class WorkerCommand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin RoleOptions.Common common;
    @Mixin RoleOptions.Worker worker;
    @Mixin WorkerTuningOptions tuning;
    @Mixin VersioningOptions versioningOptions;

    @Option(names = "--embedded-engine", description = "The engine is `onceport engine` (the test server): disable sticky "
        + "execution and run unversioned (it has no Worker Deployments).")
    boolean embeddedEngine;

    @Option(names = "--metrics-listen", paramLabel = "HOST:PORT",
        description = "Serve /metrics, /healthz and /readyz on this address (a worker has no MCP listener).")
    String metricsListen;

    @Option(names = "--allowed-host", paramLabel = "HOST", split = ",",
        description = "A host name scrapers use to reach --metrics-listen (the Host header; repeatable). Default: the "
            + "loopback names on a loopback address, any host elsewhere.")
    List<String> allowedHosts = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      common.validate();
      io.onceport.app.engine.WorkerTuning workerTuning = tuning.tuning();
      WorkerVersioning versioning = embeddedEngine ? WorkerVersioning.unversioned(EMBEDDED_UNVERSIONED)
          : versioningOptions.versioning(WorkerVersioning.Current.WHEN_NEW);
      StartupChecks.journalWriterFree(common.data(), worker.journalWriter);
      VaultService vault = worker.openVault(common.data());
      List<AutoCloseable> running = new ArrayList<>();
      Metrics metrics = new Metrics();
      running.add(metrics);
      TemporalConnection connection;
      WorkerRuntime workerRuntime;
      try {
        common.startTracing("worker", running);
        connection = RoleOptions.connectRetrying(common, common.settings(), embeddedEngine, metrics, "worker");
        running.add(connection);
        workerRuntime = WorkerRuntime.start(connection, common.taskQueue, common.data(), vault, common.sessionAuthorization,
            worker.approvalTimeout, worker.journalWriter, workerTuning, versioning);
        running.add(workerRuntime);
        if (metricsListen != null) {
          HostPort at = ServeCommand.parse("--metrics-listen", metricsListen);
          running.add(MetricsServer.start(at.host(), at.port(), metrics,
              new HealthChecks().add("temporal", HealthChecks.temporalReachable(connection.stubs())),
              io.onceport.frontend.mcp.HostOriginPolicy.lenient(at.host(), RoleOptions.allowedHosts(allowedHosts))));
        }
      } catch (RuntimeException e) {
        closeAll(running);
        throw e instanceof CliException ? e : new CliException(e.getMessage());
      }
      spec.commandLine().getOut().println("onceport: worker on task queue " + common.taskQueue + " at Temporal "
          + connection.describe() + ", " + workerRuntime.describeVersioning());
      spec.commandLine().getOut().flush();
      runUntilStopped(running);
      return 0;
    }
  }

  @Command(name = "frontend", mixinStandardHelpOptions = true,
      description = {"Run an MCP front end only; it attaches calls to executions in Temporal and never talks to a target.",
          "An unreachable Temporal is retried with backoff (logged) until it answers or the front end is stopped."})
  static final class FrontendCommand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin RoleOptions.Common common;
    @Mixin RoleOptions.Frontend frontend;

    @Mixin ContractOptions contractOptions;
    @Mixin VersioningOptions.DeploymentName deployment;

    @Override
    public Integer call() throws Exception {
      common.validate();
      FrontendSettings settings = frontend.settings(common.sessionAuthorization);
      ContractSet tools = contractOptions.load(frontend.contracts, "--contracts DIR");
      tools.warnings().forEach(w -> spec.commandLine().getErr().println("onceport: warning: " + w));
      StartupChecks.listenPortFree(settings.listen(), "--listen");
      List<AutoCloseable> running = new ArrayList<>();
      Metrics metrics = new Metrics();
      running.add(metrics);
      FrontendRuntime front;
      TemporalConnection connection;
      try {
        common.startTracing("frontend", running);
        connection = RoleOptions.connectRetrying(common, common.settings(), false, metrics, "frontend");
        running.add(connection);
        checkWireProtocol(connection, deployment.name);
        front = FrontendRuntime.start(connection, common.taskQueue, common.data(), tools, settings, metrics);
        running.add(front);
      } catch (RuntimeException e) {
        closeAll(running);
        throw e instanceof CliException ? e : new CliException(e.getMessage());
      }
      // No wait for readiness: a worker may be started after its front end; /readyz follows it.
      spec.commandLine().getOut().printf("onceport: MCP endpoint http://%s:%d/mcp — %d tools, Temporal %s — %s%n",
          settings.listen().host(), front.port(), tools.size(), connection.describe(), front.readiness().evaluate().summary());
      spec.commandLine().getOut().flush();
      runUntilStopped(running);
      return 0;
    }

    /** Refuses to start against current workers of a build this front end cannot work with ({@link WireCompatibility}). */
    private static void checkWireProtocol(TemporalConnection connection, String deploymentName) {
      WireCompatibility.Verdict verdict = new WireCompatibility(connection.stubs(), connection.namespace())
          .check(deploymentName, WireProtocol.CURRENT);
      if (!verdict.compatible()) {
        throw new CliException(verdict.message());
      }
      LoggerFactory.getLogger("io.onceport.frontend").info("wire protocol: {}", verdict.message());
    }
  }
}
