package io.onceport.app.cli;

/** A failure a command reports as one line and an exit code, without a stack trace. */
public class CliException extends RuntimeException {
  private final int exitCode;

  public CliException(String message) {
    this(message, 1);
  }

  public CliException(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  public CliException(String message, Throwable cause) {
    super(message, cause);
    this.exitCode = 1;
  }

  public int exitCode() {
    return exitCode;
  }
}
