package io.onceport.frontend.cli;

import static io.onceport.frontend.cli.AgentCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContractsCommandTest {
  @TempDir Path tmp;

  @Test
  void checkPrintsOneOkLinePerTool() {
    AgentCommandTest.Run r = run("contracts", "check", "src/test/resources/contracts-valid");
    assertEquals(new AgentCommandTest.Run(0, "ok  create_release  http  status_query\n", ""), r);
  }

  @Test
  void checkPrintsWarningsAndStillSucceeds() throws Exception {
    Files.writeString(tmp.resolve("m.yaml"), """
        tool: migrate
        input_schema: {type: object}
        channel: ssh
        ssh: {host: h, user: u, host_key: "SHA256:k", credential: c, command: [ls]}
        replay: {class: idempotency_key}
        """);
    AgentCommandTest.Run r = run("contracts", "check", tmp.toString());
    assertEquals(0, r.exit());
    assertEquals("ok  migrate  ssh  irreversible\nwarning: " + tmp.resolve("m.yaml") + ":4: ssh.marker: not true: "
        + "replay class forced to irreversible (contract says idempotency_key); set marker: true and install the "
        + "helper to allow status queries\n", r.out());
  }

  @Test
  void checkPrintsEveryErrorAndExits1WithoutAStackTrace() {
    AgentCommandTest.Run r = run("contracts", "check", "src/test/resources/contracts-broken");
    assertEquals(1, r.exit());
    assertEquals("", r.out());
    String[] lines = r.err().split("\n");
    assertEquals(16, lines.length, r.err());
    assertEquals("src/test/resources/contracts-broken/missing_status.yaml:11: replay.status: required for class "
        + "status_query", lines[7]);
    assertEquals("onceport: src/test/resources/contracts-broken: 15 errors, contracts not loaded", lines[15]);
    assertTrue(!r.err().contains("Exception"), r.err());
  }

  @Test
  void checkHasHelp() {
    AgentCommandTest.Run r = run("contracts", "check", "--help");
    assertEquals(0, r.exit());
    assertTrue(r.out().startsWith("Usage: onceport contracts check"), r.out());
  }
}
