package io.onceport.frontend.cli;

import picocli.CommandLine;

/**
 * Maps exceptions escaping a command to one clear line on stderr and a non-zero exit code. A
 * {@link CliException} carries its own exit code; anything else is exit 1 with its message.
 */
final class CliErrors implements CommandLine.IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parseResult) {
    String message = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
    cmd.getErr().println("onceport: " + message);
    if (System.getenv("ONCEPORT_DEBUG") != null) {
      ex.printStackTrace(cmd.getErr());
    }
    return ex instanceof CliException ce ? ce.exitCode() : 1;
  }
}
