package io.onceport.frontend.cli;

import io.onceport.activity.auth.SessionAuthority;
import io.onceport.activity.vault.VaultException;
import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.mcp.McpConfig;
import io.onceport.frontend.runtime.FrontendRuntime;
import io.onceport.frontend.runtime.HostPort;
import io.onceport.frontend.runtime.WorkerRuntime;
import io.onceport.frontend.temporal.EmbeddedEngine;
import io.onceport.frontend.temporal.TemporalConnection;
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

/** The split roles: {@code engine}, {@code worker} and {@code frontend}, for multi-process set-ups. */
final class RoleCommands {
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

  static TemporalConnection connect(String temporal, String namespace, boolean embeddedEngine) {
    try {
      return TemporalConnection.connect(ServeCommand.parse("--temporal", temporal).toString(), namespace, embeddedEngine,
          null, Duration.ofSeconds(10));
    } catch (IllegalStateException e) {
      throw new CliException(e.getMessage());
    }
  }

  static VaultService openVault(Path data, Path passphraseFile) {
    try {
      return VaultService.configure(data, passphraseFile, System.getenv());
    } catch (VaultException e) {
      throw new CliException(e.getMessage());
    }
  }

  @Command(name = "engine", mixinStandardHelpOptions = true,
      description = {"Run the embedded Temporal engine alone (in memory, development only), for local multi-process set-ups.",
          "Workers and front ends connect with --temporal 127.0.0.1:PORT --embedded-engine."})
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
        connection.registerSearchAttributes();
      }
      spec.commandLine().getOut().println("onceport: embedded Temporal engine on " + engine.target() + " (in memory)");
      spec.commandLine().getOut().flush();
      runUntilStopped(running);
      return 0;
    }
  }

  @Command(name = "worker", mixinStandardHelpOptions = true,
      description = "Run a worker only: the ToolExecution workflow and the activities that reach targets.")
  static final class WorkerCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--temporal", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7233", description = "Temporal frontend (default: ${DEFAULT-VALUE}).")
    String temporal;

    @Option(names = "--namespace", defaultValue = "default", description = "Temporal namespace (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--task-queue", defaultValue = "onceport", description = "Task queue (default: ${DEFAULT-VALUE}).")
    String taskQueue;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "data", description = "Data directory (default: ./${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--embedded-engine", description = "The engine is `onceport engine` (the test server): disable sticky execution.")
    boolean embeddedEngine;

    @Option(names = "--approval-timeout", defaultValue = "PT15M", description = "Approval wait before rejection (default: ${DEFAULT-VALUE}).")
    Duration approvalTimeout;

    @Option(names = "--session-authorization", paramLabel = "operator|auto", defaultValue = "operator",
        description = "Session authorization policy (default: ${DEFAULT-VALUE}).")
    String sessionAuthorization;

    @Option(names = "--passphrase-file", paramLabel = "FILE", description = "Vault passphrase file (or ONCEPORT_VAULT_PASSPHRASE).")
    Path passphraseFile;

    @Override
    public Integer call() throws Exception {
      Files.createDirectories(data);
      VaultService vault = openVault(data, passphraseFile);
      List<AutoCloseable> running = new ArrayList<>();
      try {
        TemporalConnection connection = connect(temporal, namespace, embeddedEngine);
        running.add(connection);
        running.add(WorkerRuntime.start(connection, taskQueue, data, vault, SessionAuthority.auto(), approvalTimeout));
      } catch (RuntimeException e) {
        closeAll(running);
        throw e instanceof CliException ? e : new CliException(e.getMessage());
      }
      spec.commandLine().getOut().println("onceport: worker on task queue " + taskQueue + " at " + temporal + " (namespace " + namespace + ")");
      spec.commandLine().getOut().flush();
      runUntilStopped(running);
      return 0;
    }
  }

  @Command(name = "frontend", mixinStandardHelpOptions = true,
      description = "Run an MCP front end only; it attaches calls to executions in Temporal and never talks to a target.")
  static final class FrontendCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:8765", description = "MCP endpoint address (default: ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--temporal", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7233", description = "Temporal frontend (default: ${DEFAULT-VALUE}).")
    String temporal;

    @Option(names = "--namespace", defaultValue = "default", description = "Temporal namespace (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--task-queue", defaultValue = "onceport", description = "Task queue (default: ${DEFAULT-VALUE}).")
    String taskQueue;

    @Option(names = "--contracts", paramLabel = "DIR", defaultValue = "contracts", description = "Tool contracts directory (default: ./${DEFAULT-VALUE}).")
    Path contracts;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "data", description = "Data directory: keys and agents (default: ./${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--call-wait", defaultValue = "PT30S", description = "tools/call wait before answering pending (default: ${DEFAULT-VALUE}).")
    Duration callWait;

    @Option(names = "--allowed-origin", paramLabel = "ORIGIN", description = "An Origin allowed besides loopback origins (repeatable).")
    List<String> allowedOrigins = new ArrayList<>();

    @Option(names = "--allow-anonymous", description = "Accept requests without a token as actor 'anonymous' (loopback only).")
    boolean allowAnonymous;

    @Option(names = "--session-authorization", paramLabel = "operator|auto", defaultValue = "operator",
        description = "Session authorization policy (default: ${DEFAULT-VALUE}).")
    String sessionAuthorization;

    @Override
    public Integer call() throws Exception {
      HostPort mcp = ServeCommand.parse("--listen", listen);
      if (allowAnonymous && !mcp.isLoopback()) {
        throw new CliException("--allow-anonymous is refused unless --listen is a loopback address");
      }
      Files.createDirectories(data);
      ContractSet tools = ServeCommand.loadContracts(contracts);
      tools.warnings().forEach(w -> spec.commandLine().getErr().println("onceport: warning: " + w));
      List<AutoCloseable> running = new ArrayList<>();
      FrontendRuntime frontend;
      try {
        TemporalConnection connection = connect(temporal, namespace, false);
        running.add(connection);
        frontend = FrontendRuntime.start(connection, taskQueue, data, tools, McpConfig.newBuilder()
            .listenHost(mcp.host()).listenPort(mcp.port()).allowAnonymous(allowAnonymous)
            .allowedOrigins(allowedOrigins).callWait(callWait));
        running.add(frontend);
      } catch (RuntimeException e) {
        closeAll(running);
        throw e instanceof CliException ? e : new CliException(e.getMessage());
      }
      spec.commandLine().getOut().printf("onceport: MCP endpoint http://%s:%d/mcp — %d tools, Temporal %s%n",
          mcp.host(), frontend.port(), tools.size(), temporal);
      spec.commandLine().getOut().flush();
      runUntilStopped(running);
      return 0;
    }
  }
}
