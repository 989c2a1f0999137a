package io.onceport.app.cli;

import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.temporal.connect.ClientSettings;
import io.onceport.shared.temporal.connect.ClientSettingsLoader;
import io.onceport.shared.temporal.connect.Sourced;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options of every command that talks to Temporal, declared once: where ({@code --temporal},
 * {@code --namespace}, {@code --profile}), how ({@code --tls-cert}, {@code --tls-key},
 * {@code --tls-ca}, {@code --tls-server-name}, {@code --api-key-file}) and {@code --data}, whose
 * payload keys decode encrypted records. Each setting is resolved as every Temporal SDK resolves
 * it, with Onceport's own on top: the flag (or the config file), then {@code ONCEPORT_*}, then
 * Temporal's {@code TEMPORAL_*}, then the {@code temporal.toml} profile, then the default (see
 * {@link ClientSettingsLoader}). An API key is never a flag: {@code TEMPORAL_API_KEY}, a profile,
 * or a file. {@code --keys-from} is a hidden, deprecated alias of {@code --data}.
 */
public final class TemporalOptions {
  public static final String ENV_TEMPORAL = "ONCEPORT_TEMPORAL";
  public static final String ENV_NAMESPACE = "ONCEPORT_NAMESPACE";
  public static final String DEFAULT_TARGET = ClientSettingsLoader.DEFAULT_ADDRESS;

  @Spec(Spec.Target.MIXEE) CommandSpec mixee;

  @Option(names = "--temporal", paramLabel = "HOST:PORT", defaultValue = "${env:" + ENV_TEMPORAL + ":-" + DEFAULT_TARGET + "}",
      description = "Temporal frontend (default: $" + ENV_TEMPORAL + ", $TEMPORAL_ADDRESS, the temporal.toml profile's "
          + "address, else " + DEFAULT_TARGET + ", a running `onceport serve`).")
  String temporal;

  @Option(names = "--namespace", defaultValue = "${env:" + ENV_NAMESPACE + ":-default}",
      description = "Temporal namespace (default: $" + ENV_NAMESPACE + ", $TEMPORAL_NAMESPACE, the profile's, else default).")
  String namespace;

  @Option(names = "--profile", paramLabel = "NAME", defaultValue = "${env:ONCEPORT_PROFILE}",
      description = "temporal.toml profile (default: $ONCEPORT_PROFILE, $TEMPORAL_PROFILE, else default) in "
          + "$TEMPORAL_CONFIG_FILE or ~/.config/temporalio/temporal.toml.")
  String profile;

  @Option(names = "--tls-cert", paramLabel = "FILE", defaultValue = "${env:ONCEPORT_TLS_CERT}",
      description = "Client certificate (PEM) for mTLS (default: $ONCEPORT_TLS_CERT, $TEMPORAL_TLS_CLIENT_CERT_PATH, the "
          + "profile's). Read again when it changes: a rotated certificate is used by new connections.")
  String tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", defaultValue = "${env:ONCEPORT_TLS_KEY}",
      description = "The client certificate's private key (PEM; default: $ONCEPORT_TLS_KEY, $TEMPORAL_TLS_CLIENT_KEY_PATH, the profile's).")
  String tlsKey;

  @Option(names = "--tls-ca", paramLabel = "FILE", defaultValue = "${env:ONCEPORT_TLS_CA}",
      description = "CA certificate (PEM) that signs the server's certificate, for a private CA (default: $ONCEPORT_TLS_CA, "
          + "$TEMPORAL_TLS_SERVER_CA_CERT_PATH, the profile's, else the system's CAs). Any --tls-* option turns TLS on.")
  String tlsCa;

  @Option(names = "--tls-server-name", paramLabel = "NAME", defaultValue = "${env:ONCEPORT_TLS_SERVER_NAME}",
      description = "Server name for TLS (SNI and certificate check) when it differs from the --temporal host "
          + "(default: $ONCEPORT_TLS_SERVER_NAME, $TEMPORAL_TLS_SERVER_NAME, the profile's).")
  String tlsServerName;

  @Option(names = "--api-key-file", paramLabel = "FILE", defaultValue = "${env:ONCEPORT_API_KEY_FILE}",
      description = "File holding a Temporal API key (default: $ONCEPORT_API_KEY_FILE, else $TEMPORAL_API_KEY or the "
          + "profile's api_key); never on the command line. Read again when it changes. An API key turns TLS on.")
  String apiKeyFile;

  @Mixin DataOptions data;

  private Path keysFrom;

  @Option(names = "--keys-from", paramLabel = "DIR", hidden = true, description = "Deprecated alias of --data.")
  void keysFrom(Path dir) {
    keysFrom = dir;
    if (mixee != null && mixee.commandLine() != null) {
      mixee.commandLine().getErr().println("onceport: warning: --keys-from is deprecated; use --data " + dir);
    }
  }

  /** The address the settings resolve to (see {@link #settings()}). */
  public String target() {
    return settings().address().value();
  }

  /** The namespace the settings resolve to. */
  public String namespace() {
    return settings().namespace().value();
  }

  /** {@code --data}, or the deprecated {@code --keys-from} when a script still passes it. */
  public Path data() {
    return keysFrom != null ? keysFrom : data.data();
  }

  /**
   * Where and how to reach Temporal, from every source in order of precedence.
   *
   * @throws CliException naming the setting at fault
   */
  public ClientSettings settings() {
    // Not cached: picocli resets the options, not other fields, when one CommandLine runs again.
    return settings(System.getenv());
  }

  ClientSettings settings(Map<String, String> env) {
    try {
      return ClientSettingsLoader.load(new ClientSettingsLoader.Overrides(
          explicit("--temporal", ENV_TEMPORAL, temporal), explicit("--namespace", ENV_NAMESPACE, namespace),
          explicit("--profile", "ONCEPORT_PROFILE", profile), explicit("--tls-cert", "ONCEPORT_TLS_CERT", tlsCert),
          explicit("--tls-key", "ONCEPORT_TLS_KEY", tlsKey), explicit("--tls-ca", "ONCEPORT_TLS_CA", tlsCa),
          explicit("--tls-server-name", "ONCEPORT_TLS_SERVER_NAME", tlsServerName),
          explicit("--api-key-file", "ONCEPORT_API_KEY_FILE", apiKeyFile)), env);
    } catch (IllegalArgumentException | UncheckedIOException e) {
      throw new CliException(e.getMessage());
    }
  }

  /**
   * True when a Temporal address was chosen — on the command line, in the config file, in
   * {@code $ONCEPORT_TEMPORAL}, {@code $TEMPORAL_ADDRESS} or a {@code temporal.toml} profile —
   * rather than defaulted: {@code serve} then uses that cluster instead of starting an engine,
   * {@code investigate} reads records from it.
   */
  public boolean chosen() {
    return !settings().address().source().equals("the default");
  }

  /** {@code value} with the setting it came from, when it was set above the environment (flag, config file, ONCEPORT_*). */
  private Sourced<String> explicit(String option, String env, String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    OptionSpec spec = mixee == null ? null : mixee.findOption(option);
    CommandSpec command = spec == null ? null : spec.command();
    if (command != null && command.commandLine() != null && command.commandLine().getParseResult() != null
        && command.commandLine().getParseResult().hasMatchedOption(option)) {
      return new Sourced<>(value, option);
    }
    if (fromConfigFile(command, spec)) {
      return new Sourced<>(value, option.substring(2) + " in the config file");
    }
    String fromEnv = System.getenv(env);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return new Sourced<>(value, env);
    }
    boolean picocliDefault = List.of("--temporal", "--namespace").contains(option);
    return picocliDefault ? null : new Sourced<>(value, option);
  }

  private static boolean fromConfigFile(CommandSpec command, OptionSpec spec) {
    IDefaultValueProvider provider = command == null ? null : command.defaultValueProvider();
    try {
      return provider != null && provider.defaultValue(spec) != null;
    } catch (Exception e) {
      return false;
    }
  }

  /** Connects for a CLI command: a short timeout and a one-line error that names what to fix. */
  public TemporalConnection connect() {
    try {
      return TemporalConnection.connect(settings(), false, Codecs.cliDataConverter(data()), Duration.ofSeconds(5), null, List.of());
    } catch (IllegalStateException e) {
      throw new CliException(e.getMessage());
    }
  }
}
