package io.onceport.app.cli;

import io.onceport.frontend.auth.AgentRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code onceport agent add|list|remove}: manage the agents allowed to call the gateway. */
@Command(
    name = "agent",
    mixinStandardHelpOptions = true,
    description = "Manage agents (actors) and their bearer tokens.",
    subcommands = {AgentCommand.Add.class, AgentCommand.ListAgents.class, AgentCommand.Remove.class})
public final class AgentCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "add", mixinStandardHelpOptions = true,
      description = "Create a bearer token for ACTOR and print it once (only its hash is stored).")
  static final class Add implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.Mixin DataOptions data;

    @CommandLine.Parameters(index = "0", paramLabel = "ACTOR", description = "Actor name, e.g. agent:deployer.")
    String actor;

    @Override
    public void run() {
      String token;
      try {
        token = new AgentRegistry(data.data).add(actor);
      } catch (IllegalArgumentException e) {
        throw new CliException(e.getMessage());
      } catch (IOException e) {
        throw new CliException("cannot write " + data.data.resolve("agents.json") + ": " + e.getMessage(), e);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(token);
      out.flush();
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Print the actor names, one per line.")
  static final class ListAgents implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.Mixin DataOptions data;

    @Override
    public void run() {
      PrintWriter out = spec.commandLine().getOut();
      try {
        new AgentRegistry(data.data).actors().forEach(out::println);
      } catch (IOException e) {
        throw new CliException("cannot read " + data.data.resolve("agents.json") + ": " + e.getMessage(), e);
      }
      out.flush();
    }
  }

  @Command(name = "remove", mixinStandardHelpOptions = true, description = {"Revoke ACTOR's token.",
      "Every front end on this data directory ends the token's waits, streams and sessions within a second; an "
          + "execution already started goes on. Adding ACTOR again gives a new token whose sessions start undecided."})
  static final class Remove implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.Mixin DataOptions data;

    @CommandLine.Parameters(index = "0", paramLabel = "ACTOR")
    String actor;

    @Override
    public void run() {
      boolean removed;
      try {
        removed = new AgentRegistry(data.data).remove(actor);
      } catch (IOException e) {
        throw new CliException("cannot write " + data.data.resolve("agents.json") + ": " + e.getMessage(), e);
      }
      if (!removed) {
        throw new CliException("no such agent: " + actor);
      }
      spec.commandLine().getErr().println("removed " + actor + "; running front ends on " + data.data
          + " end its waits, streams and sessions within a second");
    }
  }
}
