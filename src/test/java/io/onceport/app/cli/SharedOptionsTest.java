package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * One set of flags: every command that takes a data directory calls it {@code --data} with one
 * default ({@code $ONCEPORT_DATA}, else {@code ./data}); every command that talks to Temporal takes
 * the same {@code --temporal} and {@code --namespace}; {@code --keys-from} survives only as a
 * hidden alias. Checked on the real command tree, and the environment variables in child JVMs.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SharedOptionsTest {
  @TempDir Path tmp;

  /** Every leaf command ("onceport agent add") with its spec. */
  private static Map<String, CommandSpec> leaves() {
    Map<String, CommandSpec> out = new TreeMap<>();
    collect(OnceportCommand.commandLine(), out);
    return out;
  }

  private static void collect(CommandLine cl, Map<String, CommandSpec> out) {
    if (cl.getSubcommands().isEmpty() || cl.getSubcommands().keySet().equals(Set.of("help"))) {
      out.put(cl.getCommandSpec().qualifiedName(), cl.getCommandSpec());
    }
    cl.getSubcommands().forEach((name, sub) -> {
      if (!name.equals("help")) {
        collect(sub, out);
      }
    });
  }

  @Test
  void everyDataDirectoryOptionIsDataWithOneDefault() {
    Set<String> withData = new TreeSet<>();
    Set<String> defaults = new TreeSet<>();
    Set<String> descriptions = new TreeSet<>();
    for (Map.Entry<String, CommandSpec> e : leaves().entrySet()) {
      OptionSpec data = e.getValue().findOption("--data");
      if (data != null) {
        withData.add(e.getKey());
        defaults.add(data.defaultValueString(false));
        descriptions.add(String.join(" ", data.description()));
      }
      for (OptionSpec o : e.getValue().options()) {
        for (String name : o.names()) {
          assertFalse(Set.of("--data-dir", "--dir-data").contains(name), e.getKey() + " has " + name);
          if (name.equals("--keys-from")) {
            assertTrue(o.hidden(), e.getKey() + ": --keys-from is a hidden alias only");
          }
        }
      }
    }
    for (String command : List.of("agent add", "agent list", "agent remove", "vault init", "vault put", "vault list",
        "vault rm", "vault lock", "vault unlock", "audit verify", "audit pubkey", "audit checkpoint", "audit export",
        "investigate", "executions list", "executions show", "executions resolve", "approve", "deny", "sessions list",
        "sessions show", "sessions authorize", "sessions deny", "keys init", "keys rotate", "keys list", "serve",
        "worker", "frontend")) {
      assertTrue(withData.contains("onceport " + command), "onceport " + command + " takes --data: " + withData);
    }
    assertEquals(Set.of("${env:ONCEPORT_DATA:-data}"), defaults);
    assertEquals(1, descriptions.size(), descriptions.toString());
  }

  @Test
  void everyTemporalOptionIsDeclaredOnceWithTheSameDefault() {
    Set<String> defaults = new TreeSet<>();
    Set<String> namespaces = new TreeSet<>();
    List<String> withTemporal = new ArrayList<>();
    for (Map.Entry<String, CommandSpec> e : leaves().entrySet()) {
      OptionSpec temporal = e.getValue().findOption("--temporal");
      if (temporal != null) {
        withTemporal.add(e.getKey());
        defaults.add(temporal.defaultValueString(false) + " | " + String.join(" ", temporal.description()));
        OptionSpec ns = e.getValue().findOption("--namespace");
        namespaces.add(ns == null ? "missing in " + e.getKey() : ns.defaultValueString(false));
      }
    }
    assertTrue(withTemporal.containsAll(List.of("onceport serve", "onceport worker", "onceport frontend",
        "onceport investigate", "onceport executions show", "onceport approve", "onceport sessions authorize")), withTemporal.toString());
    assertEquals(1, defaults.size(), defaults.toString());
    assertTrue(defaults.iterator().next().startsWith("${env:ONCEPORT_TEMPORAL:-127.0.0.1:7233}"), defaults.toString());
    assertEquals(Set.of("${env:ONCEPORT_NAMESPACE:-default}"), namespaces);
    for (String command : withTemporal) {
      CommandSpec spec = leaves().get(command);
      for (String option : List.of("--profile", "--tls-cert", "--tls-key", "--tls-ca", "--tls-server-name", "--api-key-file")) {
        assertTrue(spec.findOption(option) != null, command + " takes " + option);
      }
      assertTrue(spec.findOption("--api-key") == null, command + ": an API key is never a flag");
    }
  }

  @Test
  void temporalAddressReachesEveryRoleAndCommandBelowOnceportsOwnSettingsAndTheFlag() throws Exception {
    Path work = Files.createDirectories(tmp.resolve("work"));
    String standard = "127.0.0.1:" + Cluster.freePort();
    String own = "127.0.0.1:" + Cluster.freePort();
    String flag = "127.0.0.1:" + Cluster.freePort();
    Map<String, String> env = new java.util.HashMap<>(Map.of("ONCEPORT_DATA", tmp.resolve("data").toString(),
        "TEMPORAL_ADDRESS", standard, "TEMPORAL_NAMESPACE", "ns-standard"));
    env.put("ONCEPORT_TEMPORAL", null);
    List<String> listed = run(work, env, 1, "executions", "list");
    assertTrue(String.join("\n", listed).contains("cannot reach Temporal at " + standard), listed.toString());
    ChildProcess worker = ChildProcess.onceport(work, env, "worker", "--session-authorization", "auto");
    try {
      worker.awaitLine("retrying in", Duration.ofSeconds(60));
      assertTrue(String.join("\n", worker.output()).contains("cannot reach Temporal at " + standard), worker.output().toString());
    } finally {
      worker.close();
    }
    env.put("ONCEPORT_TEMPORAL", own);
    assertTrue(String.join("\n", run(work, env, 1, "executions", "list")).contains("cannot reach Temporal at " + own));
    assertTrue(String.join("\n", run(work, env, 1, "executions", "list", "--temporal", flag)).contains("cannot reach Temporal at " + flag));
  }

  @Test
  void keysFromStillWorksAsADeprecatedAliasOfData() {
    CommandLine cl = OnceportCommand.commandLine();
    java.io.StringWriter err = new java.io.StringWriter();
    cl.setErr(new java.io.PrintWriter(err, true));
    CommandLine.ParseResult parsed = cl.parseArgs("executions", "show", "act_x", "--keys-from", "/srv/onceport");
    ExecutionsCommand.ShowCommand show = (ExecutionsCommand.ShowCommand) parsed.subcommand().subcommand().commandSpec().userObject();
    assertEquals(Path.of("/srv/onceport"), show.temporal.data());
    assertTrue(err.toString().contains("--keys-from is deprecated; use --data /srv/onceport"), err.toString());
    String help = OnceportCommand.commandLine().getSubcommands().get("executions").getSubcommands().get("show").getUsageMessage();
    assertFalse(help.contains("--keys-from"), help);
    assertTrue(help.contains("--data=DIR"), help);
  }

  @Test
  void serveUsesAClusterOnlyWhenTemporalIsChosen() throws Exception {
    assertFalse(serve().common.temporal.chosen(), "no --temporal: serve starts its own engine");
    assertTrue(serve("--temporal", "temporal.internal:7233").common.temporal.chosen());
    Path config = Files.writeString(tmp.resolve("onceport.yaml"), "temporal: temporal.internal:7233\n");
    String[] args = {"serve", "--config", config.toString()};
    CommandLine cl = OnceportCommand.commandLine(args);
    ServeCommand fromConfig = (ServeCommand) cl.parseArgs(OnceportCommand.withoutConfig(args)).subcommand().commandSpec().userObject();
    assertTrue(fromConfig.common.temporal.chosen(), "a config file's temporal: chooses the cluster too");
    assertEquals("temporal.internal:7233", fromConfig.common.temporal.target());
  }

  private static ServeCommand serve(String... extra) {
    List<String> args = new ArrayList<>(List.of("serve"));
    args.addAll(List.of(extra));
    return (ServeCommand) OnceportCommand.commandLine().parseArgs(args.toArray(String[]::new)).subcommand().commandSpec().userObject();
  }

  @Test
  void theEnvironmentVariablesReachEveryCommand() throws Exception {
    Path data = tmp.resolve("shared-data");
    new AgentRegistry(data).add("agent:from-env");
    Map<String, String> env = Map.of("ONCEPORT_DATA", data.toString(), "ONCEPORT_TEMPORAL", "127.0.0.1:" + Cluster.freePort(),
        "ONCEPORT_NAMESPACE", "ns-from-env");
    // The working directory has no ./data: only the environment can point the commands at it.
    Path work = Files.createDirectories(tmp.resolve("work"));
    assertEquals(List.of("agent:from-env"), run(work, env, 0, "agent", "list"));
    assertTrue(run(work, env, 0, "keys", "init").get(0).contains(data.resolve("keys").resolve("payload").toString()));
    assertTrue(run(work, env, 0, "keys", "list").get(0).startsWith("* "));
    List<String> vault = run(work, env, 1, "vault", "lock");
    assertTrue(String.join("\n", vault).contains(data.resolve("vault.bin").toString()), vault.toString());
    List<String> executions = run(work, env, 1, "executions", "list");
    assertTrue(String.join("\n", executions).contains("cannot reach Temporal at " + env.get("ONCEPORT_TEMPORAL")), executions.toString());
    List<String> investigate = run(work, env, 1, "investigate", "act_01NOPE");
    assertTrue(String.join("\n", investigate).contains(env.get("ONCEPORT_TEMPORAL")), investigate.toString());
  }

  private static List<String> run(Path work, Map<String, String> env, int exit, String... args) throws Exception {
    ChildProcess p = ChildProcess.onceport(work, env, args);
    assertEquals(exit, p.awaitExit(Duration.ofSeconds(60)), String.join(" ", args) + ": " + p.output());
    return p.output();
  }
}
