package io.onceport.app.cli;

import io.onceport.frontend.temporal.TemporalConnection;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --temporal}, {@code --namespace} and {@code --data}: the options of every command that
 * talks to Temporal, declared once. The data directory holds the payload keys that decode
 * encrypted records. {@code --keys-from} is a hidden, deprecated alias of {@code --data} (older
 * scripts pass it to {@code executions}, {@code approve} and {@code sessions}).
 */
public final class TemporalOptions {
  public static final String ENV_TEMPORAL = "ONCEPORT_TEMPORAL";
  public static final String ENV_NAMESPACE = "ONCEPORT_NAMESPACE";
  public static final String DEFAULT_TARGET = "127.0.0.1:7233";

  @Spec(Spec.Target.MIXEE) CommandSpec mixee;

  @Option(names = "--temporal", paramLabel = "HOST:PORT", defaultValue = "${env:" + ENV_TEMPORAL + ":-" + DEFAULT_TARGET + "}",
      description = "Temporal frontend (default: $" + ENV_TEMPORAL + " or " + DEFAULT_TARGET + ", a running `onceport serve`).")
  String temporal;

  @Option(names = "--namespace", defaultValue = "${env:" + ENV_NAMESPACE + ":-default}",
      description = "Temporal namespace (default: $" + ENV_NAMESPACE + " or default).")
  String namespace;

  @Mixin DataOptions data;

  private Path keysFrom;

  @Option(names = "--keys-from", paramLabel = "DIR", hidden = true, description = "Deprecated alias of --data.")
  void keysFrom(Path dir) {
    keysFrom = dir;
    if (mixee != null && mixee.commandLine() != null) {
      mixee.commandLine().getErr().println("onceport: warning: --keys-from is deprecated; use --data " + dir);
    }
  }

  public String target() {
    return temporal;
  }

  public String namespace() {
    return namespace;
  }

  /** {@code --data}, or the deprecated {@code --keys-from} when a script still passes it. */
  public Path data() {
    return keysFrom != null ? keysFrom : data.data();
  }

  /**
   * True when a Temporal address was chosen — on the command line, in the config file or in
   * {@code $ONCEPORT_TEMPORAL} — rather than defaulted: {@code serve} then uses that cluster
   * instead of starting an engine, {@code investigate} reads records from it.
   */
  public boolean chosen() {
    String env = System.getenv(ENV_TEMPORAL);
    if (env != null && !env.isBlank()) {
      return true;
    }
    OptionSpec option = mixee == null ? null : mixee.findOption("--temporal");
    CommandSpec command = option == null ? null : option.command();
    if (command == null) {
      return false;
    }
    if (command.commandLine() != null && command.commandLine().getParseResult() != null
        && command.commandLine().getParseResult().hasMatchedOption("--temporal")) {
      return true;
    }
    var provider = command.defaultValueProvider();
    try {
      return provider != null && provider.defaultValue(option) != null;
    } catch (Exception e) {
      return false;
    }
  }

  /** Connects for a CLI command: a short timeout and a one-line error when nothing answers. */
  public TemporalConnection connect() {
    try {
      return TemporalConnection.connect(temporal, namespace, false, Codecs.cliDataConverter(data()), Duration.ofSeconds(5));
    } catch (IllegalStateException e) {
      throw new CliException(e.getMessage());
    }
  }
}
