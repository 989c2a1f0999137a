package io.onceport.frontend.contract;

import java.util.List;

/**
 * A contracts directory that does not load. Carries every error found (not just the first), each
 * as one line {@code file:line: field: message}; the message is those lines joined by newlines.
 */
public final class ContractLoadException extends Exception {
  private final List<String> errors;

  public ContractLoadException(List<String> errors) {
    super(String.join("\n", errors));
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("errors is empty");
    }
    this.errors = List.copyOf(errors);
  }

  public List<String> errors() {
    return errors;
  }
}
