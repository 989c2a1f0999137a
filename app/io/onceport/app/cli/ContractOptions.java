package io.onceport.app.cli;

import io.onceport.frontend.contract.ContractLoadException;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.contract.ContractVariables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --set NAME=VALUE}: contract variables for every command that loads contracts
 * ({@code serve}, {@code frontend}, {@code contracts check}); {@code ${NAME}} in a contract value
 * takes it, else the environment variable, else the reference's {@code :-default}.
 */
public final class ContractOptions {
  @Option(names = "--set", paramLabel = "NAME=VALUE",
      description = "A contract variable: ${NAME} in contract values becomes VALUE (repeatable; else the environment).")
  List<String> assignments = new ArrayList<>();

  /** The variables: {@code --set} over the environment. */
  public ContractVariables variables() {
    try {
      return ContractVariables.of(System.getenv(), ContractVariables.parseAssignments(assignments));
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
  }

  /** Loads {@code dir} as {@code serve} does: every error of every file in one message. */
  public ContractSet load(Path dir, String option) {
    if (!Files.isDirectory(dir)) {
      throw new CliException("contracts directory " + dir + " does not exist (use " + option + ")");
    }
    try {
      return new ContractLoader(variables()).load(dir);
    } catch (ContractLoadException e) {
      throw new CliException("invalid contracts:\n  " + String.join("\n  ", e.errors()));
    }
  }
}
