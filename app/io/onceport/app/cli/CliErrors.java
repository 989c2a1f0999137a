package io.onceport.app.cli;

import io.onceport.shared.cli.CommandName;
import io.onceport.shared.text.InertText;
import io.temporal.client.WorkflowException;
import java.nio.file.Path;
import picocli.CommandLine;

/**
 * Maps exceptions escaping a command to one clear line on stderr and a non-zero exit code. A
 * {@link CliException} carries its own exit code; a Temporal client failure is explained by
 * {@link TemporalErrors} (what happened and what to do, not just the workflow id); anything else
 * is exit 1 with its message.
 */
final class CliErrors implements CommandLine.IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parseResult) {
    Exception shown = ex;
    if (!(ex instanceof CliException)) {
      CliException explained = TemporalErrors.explain(ex, subject(ex, parseResult), dataDir(cmd));
      if (explained != null) {
        shown = explained;
      }
    }
    String message = shown.getMessage() == null ? shown.getClass().getSimpleName() : shown.getMessage();
    // Hints in the message name the program as it was invoked, with their required flags (pasteable).
    // Messages may quote what an agent, upstream or target said: shown inert, line by line (our own lines stay lines).
    String hinted = CommandName.hint(message);
    cmd.getErr().println("onceport: " + String.join("\n", hinted.lines().map(InertText::of).toList()));
    if (System.getenv("ONCEPORT_DEBUG") != null) {
      ex.printStackTrace(cmd.getErr());
    }
    return shown instanceof CliException ce ? ce.exitCode() : 1;
  }

  /** "execution act_…" / "session mcp:…" from the command's arguments, else the workflow id. */
  static String subject(Throwable ex, CommandLine.ParseResult parseResult) {
    CommandLine.ParseResult leaf = parseResult;
    while (leaf != null && leaf.subcommand() != null) {
      leaf = leaf.subcommand();
    }
    if (leaf != null && !leaf.matchedPositionals().isEmpty()) {
      String arg = String.valueOf((Object) leaf.matchedPositionals().get(0).getValue());
      boolean session = leaf.commandSpec().parent() != null && leaf.commandSpec().parent().name().equals("sessions");
      if (arg.startsWith("act_")) {
        return "execution " + arg;
      }
      if (session) {
        return "session " + arg;
      }
    }
    for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof WorkflowException w) {
        return "workflow " + w.getExecution().getWorkflowId();
      }
    }
    return "the request";
  }

  /** The data directory of the command's {@link TemporalOptions} or {@link DataOptions}, else ./data. */
  static Path dataDir(CommandLine cmd) {
    Path found = dataDir(cmd.getCommandSpec());
    return found != null ? found : Path.of(System.getenv().getOrDefault(DataOptions.ENV, "data"));
  }

  private static Path dataDir(CommandLine.Model.CommandSpec spec) {
    for (CommandLine.Model.CommandSpec mixin : spec.mixins().values()) {
      if (mixin.userObject() instanceof TemporalOptions t) {
        return t.data();
      }
      if (mixin.userObject() instanceof DataOptions d) {
        return d.data();
      }
      Path nested = dataDir(mixin);
      if (nested != null) {
        return nested;
      }
    }
    return null;
  }
}
