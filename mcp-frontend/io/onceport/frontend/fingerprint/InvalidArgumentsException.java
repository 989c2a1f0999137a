package io.onceport.frontend.fingerprint;

import java.util.List;

/**
 * Arguments that do not satisfy a tool's input schema. Each error names the field ({@code region:
 * must be a string}); the message joins them with "; " and is meant for an MCP {@code isError}
 * result. Never contains an argument's value.
 */
public final class InvalidArgumentsException extends Exception {
  private final List<String> errors;

  public InvalidArgumentsException(List<String> errors) {
    super(String.join("; ", errors));
    this.errors = List.copyOf(errors);
  }

  public List<String> errors() {
    return errors;
  }
}
