package io.onceport.app.cli;

import io.onceport.shared.cli.CommandName;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The top-level {@code onceport} command; each feature registers its subcommand here. */
@Command(
    name = "onceport",
    mixinStandardHelpOptions = true,
    versionProvider = OnceportCommand.Version.class,
    description = {"MCP action gateway backed by Temporal: one requested action is executed once.",
        "Option defaults may come from a YAML file: --config FILE (anywhere), $ONCEPORT_CONFIG or ./onceport.yaml."},
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
      OperatorCommand.class,
      AuditCommand.class,
      InvestigateCommand.class,
      SshCommand.class,
      ApprovalCommands.ApproveCommand.class,
      ApprovalCommands.DenyCommand.class,
      SessionsCommand.class,
      KeysCommand.class,
      TemporalCommand.class,
    })
public final class OnceportCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new OnceportCommand());
    // Usage and hints name the program as it was invoked (bin/onceport from a clone).
    cl.setCommandName(CommandName.get());
    cl.setExecutionExceptionHandler(new CliErrors());
    return cl;
  }

  /**
   * The command line with option defaults from the config file named by {@code --config FILE} in
   * {@code args}, {@code $ONCEPORT_CONFIG} or {@code ./onceport.yaml} (see {@link ConfigFile}).
   * Run it with {@link #withoutConfig(String...)}.
   *
   * @throws CliException when the named config file is missing or not a YAML mapping
   */
  public static CommandLine commandLine(String... args) {
    CommandLine cl = commandLine();
    cl.setDefaultValueProvider(ConfigFile.load(new java.util.ArrayList<>(java.util.List.of(args))));
    return cl;
  }

  /** {@code args} without {@code --config FILE}. */
  public static String[] withoutConfig(String... args) {
    java.util.List<String> rest = new java.util.ArrayList<>(java.util.List.of(args));
    try {
      ConfigFile.load(rest);
    } catch (CliException ignored) {
      // reported by commandLine(args)
    }
    return rest.toArray(String[]::new);
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = OnceportCommand.class.getPackage().getImplementationVersion();
      return new String[] {"onceport " + (v == null ? "dev" : v)};
    }
  }
}
