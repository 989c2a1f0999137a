package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.ssh.MarkerHelper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SshCommandTest {
  @Test
  void sshHelperPrintsTheShippedScriptVerbatim() {
    CommandLine cl = OnceportCommand.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));

    int exit = cl.execute("ssh", "helper");

    assertEquals(0, exit);
    assertEquals(MarkerHelper.script(), out.toString());
    assertTrue(out.toString().startsWith("#!/bin/sh\n"));
  }

  @Test
  void sshHelperHelpShowsTheInstallOneLiner() {
    CommandLine cl = OnceportCommand.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));

    assertEquals(0, cl.execute("ssh", "helper", "--help"));
    assertTrue(out.toString().contains("onceport ssh helper | ssh HOST 'cat > /usr/local/bin/onceport-run"), out.toString());
  }
}
