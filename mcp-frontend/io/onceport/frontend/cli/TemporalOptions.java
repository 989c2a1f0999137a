package io.onceport.frontend.cli;

import io.onceport.frontend.temporal.TemporalConnection;
import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code --temporal} and {@code --namespace}, shared by every command that talks to Temporal. */
public final class TemporalOptions {
  @Option(names = "--temporal", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7233",
      description = "Temporal frontend to use (default: ${DEFAULT-VALUE}, a running `onceport serve`).")
  public String temporal;

  @Option(names = "--namespace", defaultValue = "default", description = "Temporal namespace (default: ${DEFAULT-VALUE}).")
  public String namespace;

  @Option(names = "--keys-from", paramLabel = "DATA_DIR",
      description = "Data directory whose payload keys decode encrypted records (default: $ONCEPORT_DATA or ./data).")
  public java.nio.file.Path keysFrom;

  /** Connects for a CLI command: a short timeout and a one-line error when nothing answers. */
  public TemporalConnection connect() {
    try {
      return TemporalConnection.connect(temporal, namespace, false, keysFrom == null ? Codecs.cliDataConverter() : Codecs.cliDataConverter(keysFrom), Duration.ofSeconds(5));
    } catch (IllegalStateException e) {
      throw new CliException(e.getMessage());
    }
  }
}
