package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.shared.runtime.FatalErrors;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code serve} and a real {@code worker} (child JVMs through {@code Main}, as {@code
 * bin/onceport} runs them) in which one thread throws an OutOfMemoryError once they are up: each
 * process ends with status 70 and a log line naming the error and the thread, instead of running
 * on without the thread (the embedded engine's timer thread once died so, and executions waiting on
 * timers never woke).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class FatalErrorsEndToEndTest {
  @TempDir Path dir;

  private ChildProcess start(Path trigger, String... args) throws Exception {
    return ChildProcess.java(List.of("-Donceport.test.trigger=" + trigger), "io.onceport.testing.ErrorOnTrigger", dir, Map.of(),
        args);
  }

  private static void assertEndedByTheError(ChildProcess child, Path trigger, String role) throws Exception {
    assertTrue(child.isAlive(), "running before the error: " + child.output());
    Files.createFile(trigger);
    int exit = child.awaitExit(Duration.ofSeconds(60));
    assertEquals(FatalErrors.EXIT_STATUS, exit, String.join("\n", child.output()));
    assertTrue(child.output().stream().anyMatch(l -> l.contains("fatal: java.lang.OutOfMemoryError in thread test-error-thread: "
        + "thrown by the test once " + trigger + " existed; onceport " + role + " exits with status 70 for its supervisor to "
        + "restart it")), String.join("\n", child.output()));
  }

  @Test
  void anErrorInAThreadOfServeEndsItWithStatus70AndALogLine() throws Exception {
    Path trigger = dir.resolve("trigger");
    try (ChildProcess serve = start(trigger, "serve", "--engine", "embedded", "--data", dir.resolve("data").toString(),
        "--contracts", Path.of("contracts").toAbsolutePath().toString(), "--listen", "127.0.0.1:0",
        "--embedded-port", Integer.toString(Cluster.freePort()), "--session-authorization", "auto")) {
      serve.awaitLine("onceport: MCP endpoint", Duration.ofSeconds(120));
      assertEndedByTheError(serve, trigger, "serve");
    }
  }

  @Test
  void anErrorInAThreadOfAWorkerEndsItWithStatus70AndALogLine() throws Exception {
    Path trigger = dir.resolve("trigger");
    try (EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
        ChildProcess worker = start(trigger, "worker", "--temporal", engine.target(), "--embedded-engine",
            "--data", dir.resolve("data").toString(), "--session-authorization", "auto")) {
      worker.awaitLine("onceport: worker", Duration.ofSeconds(120));
      assertEndedByTheError(worker, trigger, "worker");
    }
  }
}
