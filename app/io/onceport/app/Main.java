package io.onceport.app;

import io.onceport.app.cli.OnceportCommand;
import io.onceport.shared.runtime.FatalErrors;
import picocli.CommandLine;

/** Entry point of the {@code onceport} command. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    io.onceport.shared.net.JdkHttpServers.noDelay(); // before any JDK HTTP server starts (the demo target, /metrics)
    // An Error in any thread ends the process (status 70) rather than leave a half-alive worker or serve.
    FatalErrors.install(args.length == 0 ? "onceport" : args[0]);
    System.exit(run(args));
  }

  /** Runs the CLI and returns its exit code (tests call this instead of {@link #main}). */
  public static int run(String... args) {
    CommandLine cl;
    try {
      cl = OnceportCommand.commandLine(args);
    } catch (io.onceport.app.cli.CliException e) {
      System.err.println("onceport: " + e.getMessage());
      return 2;
    }
    return cl.execute(OnceportCommand.withoutConfig(args));
  }
}
