package io.onceport.frontend.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The top-level {@code onceport} command; each feature registers its subcommand here. */
@Command(
    name = "onceport",
    mixinStandardHelpOptions = true,
    versionProvider = OnceportCommand.Version.class,
    description = "MCP action gateway backed by Temporal: one requested action is executed once.",
    subcommands = {
      CommandLine.HelpCommand.class,
      ServeCommand.class,
      RoleCommands.EngineCommand.class,
      RoleCommands.WorkerCommand.class,
      RoleCommands.FrontendCommand.class,
      ExecutionsCommand.class,
      BenchCommand.class,
      DemoTargetCommand.class,
      VaultCommand.class,
      ContractsCommand.class,
      AgentCommand.class,
      AuditCommand.class,
      InvestigateCommand.class,
      SshCommand.class,
      ApprovalCommands.ApproveCommand.class,
      ApprovalCommands.DenyCommand.class,
      SessionsCommand.class,
      KeysCommand.class,
    })
public final class OnceportCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new OnceportCommand());
    cl.setExecutionExceptionHandler(new CliErrors());
    return cl;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = OnceportCommand.class.getPackage().getImplementationVersion();
      return new String[] {"onceport " + (v == null ? "dev" : v)};
    }
  }
}
