package io.onceport.app.cli;

import io.onceport.activity.ssh.MarkerHelper;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code onceport ssh ...}: SSH host set-up. */
@Command(
    name = "ssh",
    mixinStandardHelpOptions = true,
    description = "SSH channel set-up.",
    subcommands = {SshCommand.Helper.class})
public final class SshCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "helper",
      mixinStandardHelpOptions = true,
      description = {
        "Prints the remote marker helper (onceport-run) to stdout. Install it with:",
        "  onceport ssh helper | ssh HOST 'cat > /usr/local/bin/onceport-run && chmod 755 /usr/local/bin/onceport-run'"
      })
  static final class Helper implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().getOut().print(MarkerHelper.script());
      spec.commandLine().getOut().flush();
    }
  }
}
