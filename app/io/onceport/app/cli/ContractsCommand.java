package io.onceport.app.cli;

import io.onceport.frontend.contract.ContractLoadException;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.contract.ToolContract;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code onceport contracts ...}: work with tool contract files. */
@Command(
    name = "contracts",
    mixinStandardHelpOptions = true,
    description = "Work with tool contracts (contracts/*.yaml).",
    subcommands = {ContractsCommand.Check.class, ImportMcpCommand.class, ImportOpenApiCommand.class})
public final class ContractsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Lints a contracts directory the way {@code serve} loads it. */
  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = "Load every contract in DIR and report each tool, or every error (exit 1).")
  static final class Check implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--upstream",
        description = "Also ask every upstream MCP server the mcp contracts name for its tools now, and report what changed "
            + "since import (a tool gone, a schema changed, a hint or tools.idempotency withdrawn): exit 1 if anything did.")
    boolean upstream;

    @CommandLine.Option(names = "--token-env", paramLabel = "VAR",
        description = "With --upstream: environment variable holding a bearer token for HTTP upstreams.")
    String tokenEnv;

    @CommandLine.Parameters(index = "0", arity = "0..1", defaultValue = "contracts", paramLabel = "DIR",
        description = "Directory of *.yaml contracts (default: ${DEFAULT-VALUE}).")
    Path dir;

    @CommandLine.Mixin ContractOptions contractOptions;

    @Override
    public void run() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      ContractSet set;
      try {
        set = new ContractLoader(contractOptions.variables()).load(dir);
      } catch (ContractLoadException e) {
        e.errors().forEach(line -> err.println(InertText.of(line)));
        err.flush();
        int n = e.errors().size();
        throw new CliException(dir + ": " + n + (n == 1 ? " error" : " errors") + ", contracts not loaded");
      }
      for (ToolContract c : set.contracts()) {
        out.println("ok  " + c.tool() + "  " + c.channel().name().toLowerCase(Locale.ROOT) + "  "
            + c.replayClass().wireName());
      }
      for (String w : set.warnings()) {
        out.println(InertText.of("warning: " + w));
      }
      if (upstream) {
        int changed = UpstreamCheck.run(set, ImportMcpCommand.UpstreamAccess.bearer(tokenEnv), 30_000, out);
        out.flush();
        if (changed > 0) {
          throw new CliException(dir + ": " + changed + (changed == 1 ? " upstream change" : " upstream changes")
              + " not reflected in the contracts (nothing was applied; re-import to adopt them)");
        }
      }
      out.flush();
    }
  }
}
