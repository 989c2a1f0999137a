package io.onceport.frontend.cli;

import io.onceport.activity.auth.SessionAuthority;
import io.onceport.activity.vault.VaultException;
import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.contract.ContractLoadException;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.mcp.McpConfig;
import io.onceport.frontend.runtime.FrontendRuntime;
import io.onceport.frontend.runtime.HostPort;
import io.onceport.frontend.runtime.WorkerRuntime;
import io.onceport.frontend.temporal.EmbeddedEngine;
import io.onceport.frontend.temporal.TemporalConnection;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code onceport serve}: engine, worker and MCP front end in one JVM. By default the engine is the
 * embedded Temporal test server on 127.0.0.1:7233 (in memory: executions are lost when the process
 * exits); {@code --temporal} uses a running cluster instead.
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

  @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:8765",
      description = "MCP endpoint address (default: ${DEFAULT-VALUE}; loopback unless you mean otherwise).")
  String listen;

  @Option(names = "--contracts", paramLabel = "DIR", defaultValue = "contracts", description = "Tool contracts directory (default: ./${DEFAULT-VALUE}).")
  Path contracts;

  @Option(names = "--data", paramLabel = "DIR", defaultValue = "data", description = "Data directory: keys, agents, vault, journals (default: ./${DEFAULT-VALUE}).")
  Path data;

  @Option(names = "--embedded-port", paramLabel = "PORT", defaultValue = "7233",
      description = "Port of the embedded Temporal engine on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
  int embeddedPort;

  @Option(names = "--temporal", paramLabel = "HOST:PORT", description = "Use this Temporal cluster instead of the embedded engine.")
  String temporal;

  @Option(names = "--namespace", defaultValue = "default", description = "Temporal namespace (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(names = "--task-queue", defaultValue = "onceport", description = "Temporal task queue (default: ${DEFAULT-VALUE}).")
  String taskQueue;

  @Option(names = "--call-wait", defaultValue = "PT30S",
      description = "How long tools/call waits for an outcome before answering with the pending state (ISO-8601, default: ${DEFAULT-VALUE}).")
  Duration callWait;

  @Option(names = "--allowed-origin", paramLabel = "ORIGIN", description = "An Origin allowed besides loopback origins (repeatable).")
  List<String> allowedOrigins = new ArrayList<>();

  @Option(names = "--allow-anonymous", description = "Accept requests without a bearer token as actor 'anonymous' (loopback only; for conformance testing).")
  boolean allowAnonymous;

  @Option(names = "--session-authorization", paramLabel = "operator|auto", defaultValue = "operator",
      description = "How a new agent session is authorized: 'operator' waits for `onceport sessions authorize`, 'auto' allows it (default: ${DEFAULT-VALUE}).")
  String sessionAuthorization;

  @Option(names = "--approval-timeout", defaultValue = "PT15M",
      description = "How long an execution waits for an operator's approval before it is rejected (default: ${DEFAULT-VALUE}).")
  Duration approvalTimeout;

  @Option(names = "--passphrase-file", paramLabel = "FILE",
      description = "Vault passphrase file (or set ONCEPORT_VAULT_PASSPHRASE); never on the command line.")
  Path passphraseFile;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    HostPort mcp = parse("--listen", listen);
    if (allowAnonymous && !mcp.isLoopback()) {
      throw new CliException("--allow-anonymous is refused unless --listen is a loopback address");
    }
    if (!sessionAuthorization.equals("operator") && !sessionAuthorization.equals("auto")) {
      throw new CliException("--session-authorization must be 'operator' or 'auto', not '" + sessionAuthorization + "'");
    }
    Files.createDirectories(data);
    ContractSet tools = loadContracts(contracts);
    tools.warnings().forEach(w -> err.println("onceport: warning: " + w));
    VaultService vault = openVault();

    List<AutoCloseable> running = new ArrayList<>();
    Runnable stopAll = () -> {
      for (int i = running.size() - 1; i >= 0; i--) {
        try {
          running.get(i).close();
        } catch (Exception ignored) {
          // best effort on shutdown
        }
      }
    };
    try {
      String target;
      boolean embedded = temporal == null;
      if (embedded) {
        EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", embeddedPort);
        running.add(engine);
        target = engine.target();
      } else {
        target = parse("--temporal", temporal).toString();
      }
      TemporalConnection connection = TemporalConnection.connect(target, namespace, embedded, null, Duration.ofSeconds(10));
      running.add(connection);
      connection.registerSearchAttributes();
      SessionAuthority sessions = SessionAuthority.auto();
      running.add(WorkerRuntime.start(connection, taskQueue, data, vault, sessions, approvalTimeout));
      McpConfig.Builder config = McpConfig.newBuilder()
          .listenHost(mcp.host()).listenPort(mcp.port())
          .allowAnonymous(allowAnonymous)
          .allowedOrigins(allowedOrigins)
          .callWait(callWait);
      FrontendRuntime frontend = FrontendRuntime.start(connection, taskQueue, data, tools, config);
      running.add(frontend);
      if (allowAnonymous) {
        err.println("onceport: warning: --allow-anonymous: requests without a token act as 'anonymous'");
      }
      out.printf("onceport: MCP endpoint http://%s:%d/mcp — %d tools from %s, Temporal %s%s (namespace %s, task queue %s), data %s%n",
          mcp.host().contains(":") ? "[" + mcp.host() + "]" : mcp.host(), frontend.port(), tools.size(), contracts, target,
          embedded ? " embedded, in memory" : "", namespace, taskQueue, data.toAbsolutePath().normalize());
      out.flush();
    } catch (IllegalStateException | java.io.UncheckedIOException e) {
      stopAll.run();
      throw new CliException(e.getMessage());
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stopAll.run();
      stopped.countDown();
    }, "onceport-shutdown"));
    stopped.await();
    return 0;
  }

  private VaultService openVault() {
    try {
      return VaultService.configure(data, passphraseFile, System.getenv());
    } catch (VaultException e) {
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

  static ContractSet loadContracts(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new CliException("contracts directory " + dir + " does not exist (use --contracts DIR)");
    }
    try {
      return new ContractLoader().load(dir);
    } catch (ContractLoadException e) {
      throw new CliException("invalid contracts:\n  " + String.join("\n  ", e.errors()));
    }
  }
}
