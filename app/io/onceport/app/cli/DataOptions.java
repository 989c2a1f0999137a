package io.onceport.app.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --data DIR}: the one data directory option of every command (keys, agents, vault,
 * journals), with one default, {@code $ONCEPORT_DATA} or {@code ./data}, so that a command run
 * next to {@code serve} finds what {@code serve} wrote without being told.
 */
public final class DataOptions {
  /** The environment variable every command reads for the data directory. */
  public static final String ENV = "ONCEPORT_DATA";

  @Option(names = "--data", paramLabel = "DIR", defaultValue = "${env:" + ENV + ":-data}",
      description = "Data directory: keys, agents, vault, journals (default: $" + ENV + " or ./data).")
  Path data;

  public Path data() {
    return data;
  }
}
