package io.onceport.app.bench;

import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.app.engine.LocalEngine;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.app.soak.ProcessStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The engine one bench run measures on, as {@code serve --engine} would start it: Temporal's Java
 * test server (the embedded engine) in a child JVM of its own (or, with {@code
 * --engine-in-process}, in the bench JVM), or the Temporal CLI's dev server ({@code temporal server
 * start-dev}, headless, its SQLite database in the run's directory). Every subject that uses the
 * engine — the gateway and bare Temporal alike — talks to this one server with the same
 * connection options, so their figures differ by what they do, not by where they run.
 */
final class BenchEngine implements AutoCloseable {
  final LocalEngine.Kind kind;
  /** {@code ip:port} of the engine's gRPC frontend. */
  final String target;
  /** For the result: which engine, where it runs. */
  final String description;
  private final ChildProcess child;
  private final TemporalCliServer cli;
  private final AutoCloseable inProcess;

  private BenchEngine(LocalEngine.Kind kind, String target, String description, ChildProcess child, TemporalCliServer cli,
      AutoCloseable inProcess) {
    this.kind = kind;
    this.target = target;
    this.description = description;
    this.child = child;
    this.cli = cli;
    this.inProcess = inProcess;
  }

  /** Starts the engine {@code choice} names; {@code inProcess} keeps the embedded one in this JVM. */
  static BenchEngine start(LocalEngine.Choice choice, boolean inProcess, Path dir) throws InterruptedException, java.io.IOException {
    if (choice.kind() == LocalEngine.Kind.TEMPORAL_CLI) {
      if (inProcess) {
        throw new IllegalArgumentException("--engine-in-process needs the embedded engine, not temporal-cli");
      }
      TemporalCliServer cli = TemporalCliServer.start(choice.binary().orElseThrow(), dir.resolve("temporal"), "127.0.0.1", 0, 0,
          true, null, Duration.ofSeconds(90));
      return new BenchEngine(choice.kind(), cli.target(), "temporal-cli (" + choice.why() + "), the dev server in a process of its own",
          null, cli, null);
    }
    if (inProcess) {
      EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
      return new BenchEngine(choice.kind(), engine.target(), "embedded (" + choice.why() + "), in the bench JVM", null, null, engine);
    }
    ChildProcess child = ChildProcess.start("engine", List.of(BenchRig.javaBinary(), "-cp", BenchRig.absoluteClassPath(),
        EngineChild.class.getName(), EngineChild.ENGINE), dir, null);
    try {
      String port = child.awaitLine(EngineChild.READY, Duration.ofSeconds(90));
      return new BenchEngine(choice.kind(), "127.0.0.1:" + port, "embedded (" + choice.why() + "), in a child JVM of its own",
          child, null, null);
    } catch (RuntimeException | InterruptedException e) {
      child.close();
      throw e;
    }
  }

  /** Whether the engine runs in a process of its own (its CPU and memory counted apart). */
  boolean apart() {
    return child != null || cli != null;
  }

  /** The pid of the engine's own JVM (the embedded engine in a child), or -1 (in the bench JVM, or the dev server: no JIT). */
  long jvmPid() {
    return child != null ? child.pid() : -1;
  }

  /** CPU time of the engine's process so far (0 when it runs in the bench JVM). */
  long cpuNanos() {
    if (child != null) {
      return child.cpuNanos();
    }
    return cli != null ? ProcessStats.of(cli.pid()).cpu().toNanos() : 0;
  }

  /** Resident set size of the engine's process, or -1 when it runs in the bench JVM. */
  long rssBytes() {
    if (child != null) {
      return child.rssBytes();
    }
    return cli != null ? ProcessStats.of(cli.pid()).rssKib() * 1024 : -1;
  }

  @Override
  public void close() throws Exception {
    if (child != null) {
      child.close();
    }
    if (cli != null) {
      cli.close();
    }
    if (inProcess != null) {
      inProcess.close();
    }
  }
}
