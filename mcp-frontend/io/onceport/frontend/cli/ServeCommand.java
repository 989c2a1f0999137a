package io.onceport.frontend.cli;

import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.ops.Metrics;
import io.onceport.frontend.runtime.FrontendRuntime;
import io.onceport.frontend.runtime.FrontendSettings;
import io.onceport.frontend.runtime.HostPort;
import io.onceport.frontend.runtime.StartupChecks;
import io.onceport.frontend.runtime.WorkerRuntime;
import io.onceport.frontend.temporal.EmbeddedEngine;
import io.onceport.frontend.temporal.TemporalCliServer;
import io.onceport.frontend.temporal.TemporalConnection;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code onceport serve}: engine, worker and MCP front end in one JVM. By default the engine is the
 * embedded Temporal test server on 127.0.0.1:7233 (in memory: executions are lost when the process
 * exits); {@code --engine temporal-cli} runs the Temporal CLI's dev server with its database in the
 * data dir; {@code --temporal} uses a running cluster instead.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Run the gateway: Temporal engine, worker and MCP front end in one process.",
      "Default: the embedded engine (in memory, development only) on 127.0.0.1:7233, MCP at http://127.0.0.1:8765/mcp."
    })
public final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin RoleOptions.Common common;
  @Mixin RoleOptions.Worker worker;
  @Mixin RoleOptions.Frontend frontend;

  @Option(names = "--embedded-port", paramLabel = "PORT", defaultValue = "7233",
      description = "Port of the engine on 127.0.0.1 (embedded or temporal-cli; default: ${DEFAULT-VALUE}).")
  int embeddedPort;

  @Option(names = "--engine", paramLabel = "embedded|temporal-cli", defaultValue = "embedded",
      description = "Engine when --temporal is not given: the embedded test server (in memory), or the Temporal CLI's "
          + "dev server (durable SQLite in DATA/temporal.db, with the Temporal UI; needs `temporal` on PATH). Default: ${DEFAULT-VALUE}.")
  String engine;

  @Option(names = "--ui-port", paramLabel = "PORT", defaultValue = "8233", description = "Temporal UI port with --engine temporal-cli (default: ${DEFAULT-VALUE}).")
  int uiPort;

  @Mixin ContractOptions contractOptions;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    common.validate();
    FrontendSettings settings = frontend.settings(common.sessionAuthorization);
    if (!engine.equals("embedded") && !engine.equals("temporal-cli")) {
      throw new CliException("--engine must be 'embedded' or 'temporal-cli', not '" + engine + "'");
    }
    ContractSet tools = contractOptions.load(frontend.contracts, "--contracts DIR");
    tools.warnings().forEach(w -> err.println("onceport: warning: " + w));
    // Before any engine starts: a busy port or a data dir in use is one line, at once.
    StartupChecks.listenPortFree(settings.listen(), "--listen");
    StartupChecks.journalWriterFree(common.data(), worker.journalWriter);
    VaultService vault = worker.openVault(common.data());
    boolean useCluster = common.temporal.chosen();

    List<AutoCloseable> running = new ArrayList<>();
    Metrics metrics = new Metrics();
    String target;
    String engineNote;
    try {
      boolean embedded = !useCluster && engine.equals("embedded");
      if (useCluster) {
        target = parse("--temporal", common.temporal.target()).toString();
        engineNote = "";
      } else if (embedded) {
        EmbeddedEngine e = EmbeddedEngine.start("127.0.0.1", embeddedPort);
        running.add(e);
        target = e.target();
        engineNote = " embedded, in memory";
      } else {
        Path binary = TemporalCliServer.findBinary()
            .orElseThrow(() -> new CliException("--engine temporal-cli needs the `temporal` CLI on PATH (bin/install-temporal-cli installs it)"));
        // The UI (in the operator's browser) decodes payloads through this front end's codec server:
        // known only when the MCP port is fixed and reachable on loopback.
        HostPort mcp = settings.listen();
        String codecEndpoint = mcp.port() != 0 && mcp.isLoopback() ? "http://" + mcp + "/codec" : null;
        TemporalCliServer server = TemporalCliServer.start(binary, common.data(), "127.0.0.1", embeddedPort, uiPort, false,
            codecEndpoint, Duration.ofSeconds(60));
        running.add(server);
        if (codecEndpoint != null) {
          settings = settings.withCodecUiOrigin(server.uiUrl().orElseThrow());
        }
        target = server.target();
        engineNote = " temporal-cli, database " + common.data().resolve("temporal.db") + server.uiUrl().map(u -> ", UI " + u).orElse("");
      }
      TemporalConnection connection = common.connect(target, embedded, metrics);
      running.add(connection);
      connection.registerSearchAttributes();
      WorkerRuntime workerRuntime = WorkerRuntime.start(connection, common.taskQueue, common.data(), vault,
          common.sessionAuthorization, worker.approvalTimeout, worker.journalWriter);
      running.add(workerRuntime);
      // One JVM: the read path may use the worker's vault and journal (a frontend-only process may not).
      FrontendRuntime front = FrontendRuntime.start(connection, common.taskQueue, common.data(), tools, settings, metrics,
          workerRuntime.readAccess());
      running.add(front);
      HostPort mcp = settings.listen();
      out.printf("onceport: MCP endpoint http://%s:%d/mcp — %d tools from %s, Temporal %s%s (namespace %s, task queue %s), "
              + "session authorization %s, data %s%n",
          mcp.host().contains(":") ? "[" + mcp.host() + "]" : mcp.host(), front.port(), tools.size(), frontend.contracts, target,
          engineNote, common.namespace(), common.taskQueue, common.sessionAuthorization, common.data().toAbsolutePath().normalize());
      out.flush();
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

  static HostPort parse(String option, String value) {
    try {
      return HostPort.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CliException(option + ": " + e.getMessage());
    }
  }

}
