package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.frontend.auth.AgentRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AgentCommandTest {
  @TempDir Path data;

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void agentAddPrintsOnlyTheTokenOnStdout() {
    Run r = run("agent", "add", "agent:deployer", "--data", data.toString());
    assertEquals(0, r.exit, r.err);
    assertTrue(r.out.matches("op_[A-Za-z0-9_-]{43}\n"), r.out);
    assertEquals(Optional.of("agent:deployer"), new AgentRegistry(data).authenticate(r.out.trim()));
  }

  @Test
  void agentListPrintsActorsAndRemoveRevokes() {
    String token = run("agent", "add", "agent:a", "--data", data.toString()).out.trim();
    run("agent", "add", "agent:b", "--data", data.toString());
    assertEquals(new Run(0, "agent:a\nagent:b\n", ""), run("agent", "list", "--data", data.toString()));
    assertEquals(new Run(0, "", "removed agent:a; running front ends on " + data + " end its waits, streams and sessions within a second\n"), run("agent", "remove", "agent:a", "--data", data.toString()));
    assertEquals(Optional.empty(), new AgentRegistry(data).authenticate(token));
    assertEquals(new Run(1, "", "onceport: no such agent: agent:a\n"),
        run("agent", "remove", "agent:a", "--data", data.toString()));
  }

  @Test
  void invalidActorIsOneClearLineAndExit1() {
    Run r = run("agent", "add", "Deployer", "--data", data.toString());
    assertEquals(new Run(1, "", "onceport: invalid actor 'Deployer': use a lowercase name like agent:deployer "
        + "(a-z first, then up to 63 of a-z 0-9 : . _ -)\n"), r);
  }

  @Test
  void anAgentCannotBeNamedAsAnOperator() {
    Run r = run("agent", "add", "operator:carol", "--data", data.toString());
    assertEquals(new Run(1, "", "onceport: agent names starting with 'operator:' are refused: operators are not agents; "
        + "an operator is a key pair made with `onceport operator add NAME`\n"), r);
  }
}
