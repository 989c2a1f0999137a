package io.onceport.app.cli;

import java.io.Console;

/** Asks an operator on the console before a decision is sent; {@code --yes} skips it for scripts. */
final class Confirmation {
  private Confirmation() {}

  /**
   * Returns when confirmed; throws {@link CliException} when refused, or when there is no console to
   * ask on and {@code yes} was not given (a script must say {@code --yes} explicitly).
   */
  static void require(boolean yes, String question) {
    require(yes, question, null);
  }

  /**
   * As {@link #require(boolean, String)}; without a console the error shows {@code withYes}, the
   * command to run instead (e.g. {@code sessions authorize --agent agent:deployer --for P7D --yes}):
   * a piped {@code y} is not a confirmation, and the script must say {@code --yes} itself.
   */
  static void require(boolean yes, String question, String withYes) {
    if (yes) {
      return;
    }
    Console console = System.console();
    if (console == null) {
      throw new CliException("no console to confirm on; re-run with --yes to decide without confirmation"
          + (withYes == null ? "" : " (a piped 'y' does not count): onceport " + withYes));
    }
    String answer = console.readLine("%s [y/N] ", question);
    String a = answer == null ? "" : answer.strip();
    if (!a.equalsIgnoreCase("y") && !a.equalsIgnoreCase("yes")) {
      throw new CliException("not confirmed; nothing was sent");
    }
  }
}
