package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How processes start when something is in the way, each a real {@code onceport} JVM: a busy MCP
 * port and a data directory another {@code serve} writes are one line at once, before any engine
 * starts; a worker whose engine is not up yet keeps retrying (and says so) until it is.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ProcessStartupTest {
  @TempDir Path dir;

  @Test
  void aBusyMcpPortIsOneLineAtOnceBeforeTheEngineStarts() throws Exception {
    int enginePort = Cluster.freePort();
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      Files.createDirectories(dir.resolve("contracts"));
      Files.copy(Path.of("contracts/list_releases.yaml"), dir.resolve("contracts/list_releases.yaml"));
      long start = System.nanoTime();
      ChildProcess serve = ChildProcess.onceport(dir, "serve", "--listen", "127.0.0.1:" + taken.getLocalPort(),
          "--embedded-port", Integer.toString(enginePort), "--data", dir.resolve("data").toString());
      assertEquals(1, serve.awaitExit(Duration.ofSeconds(60)), serve.output().toString());
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
      List<String> lines = serve.output().stream().filter(l -> !l.isBlank()).toList();
      assertEquals(List.of("onceport: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": address already in use "
          + "(another onceport serve or frontend? stop it, or choose another address with --listen HOST:PORT)"), lines);
      assertTrue(seconds < 20, "answered after " + seconds + " s (a JVM start; the engine never started)");
    }
    assertFalse(listening(enginePort), "no engine was started");
  }

  @Test
  void aSecondServeOnTheSameDataDirNamesTheDirAndJournalWriter() throws Exception {
    Files.createDirectories(dir.resolve("contracts"));
    Files.copy(Path.of("contracts/list_releases.yaml"), dir.resolve("contracts/list_releases.yaml"));
    Path data = dir.resolve("data");
    int secondEngine = Cluster.freePort();
    try (ChildProcess first = ChildProcess.onceport(dir, "serve", "--listen", "127.0.0.1:0", "--embedded-port",
        Integer.toString(Cluster.freePort()), "--data", data.toString(), "--journal-writer", "gw")) {
      first.awaitLine("onceport: MCP endpoint", Duration.ofSeconds(90));
      ChildProcess second = ChildProcess.onceport(dir, "serve", "--listen", "127.0.0.1:0", "--embedded-port",
          Integer.toString(secondEngine), "--data", data.toString(), "--journal-writer", "gw");
      assertEquals(1, second.awaitExit(Duration.ofSeconds(60)), second.output().toString());
      String out = String.join("\n", second.output());
      assertTrue(out.contains("onceport: data directory " + data.toAbsolutePath().normalize() + " is in use: another "
          + "onceport process writes its journal segment 'gw'"), out);
      assertTrue(out.contains("a different --journal-writer NAME each"), out);
      assertFalse(listening(secondEngine), "the second serve started no engine");
    }
  }

  @Test
  void aWorkerStartedBeforeItsEngineKeepsRetryingAndSaysSo() throws Exception {
    Cluster cluster = new Cluster();
    try (cluster) {
      int port = Cluster.freePort();
      String temporal = "127.0.0.1:" + port;
      ChildProcess worker = cluster.worker(temporal, true, "early");
      worker.awaitLine("retrying in", Duration.ofSeconds(60));
      assertTrue(worker.isAlive(), "still waiting for the engine");
      String retry = worker.output().stream().filter(l -> l.contains("retrying in")).findFirst().orElseThrow();
      assertTrue(retry.contains("cannot reach Temporal at " + temporal), retry);
      assertTrue(retry.contains("the worker keeps trying until it is stopped"), retry);
      cluster.start("engine", "--port", Integer.toString(port)).awaitLine("onceport: embedded Temporal engine", Duration.ofSeconds(60));
      Cluster.awaitWorker(worker);
      assertTrue(worker.output().stream().anyMatch(l -> l.contains("connected to Temporal at " + temporal)), worker.output().toString());
    }
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket("127.0.0.1", port)) {
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
