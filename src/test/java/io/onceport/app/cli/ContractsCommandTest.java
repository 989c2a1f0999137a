package io.onceport.app.cli;

import static io.onceport.app.cli.AgentCommandTest.run;
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
    assertEquals(17, lines.length, r.err());
    assertEquals("src/test/resources/contracts-broken/missing_status.yaml:11: replay.status: required for class "
        + "status_query", lines[7]);
    assertEquals("onceport: src/test/resources/contracts-broken: 16 errors, contracts not loaded", lines[16]);
    assertTrue(!r.err().contains("Exception"), r.err());
  }

  @Test
  void checkTakesContractVariablesFromSetAndNamesAnUndefinedOne() throws Exception {
    Files.writeString(tmp.resolve("r.yaml"), """
        tool: r
        input_schema: {type: object}
        channel: http
        http:
          method: GET
          url: ${ONCEPORT_TEST_UNSET_TARGET}/v1/releases
        replay: {class: read_only}
        """);
    AgentCommandTest.Run missing = run("contracts", "check", tmp.toString());
    assertEquals(1, missing.exit());
    assertEquals(tmp.resolve("r.yaml") + ":6: http.url: undefined variable ${ONCEPORT_TEST_UNSET_TARGET}: set it in the "
        + "environment or with --set ONCEPORT_TEST_UNSET_TARGET=VALUE (or give a default: ${ONCEPORT_TEST_UNSET_TARGET:-VALUE})\n"
        + "onceport: " + tmp + ": 1 error, contracts not loaded\n", missing.err());
    AgentCommandTest.Run set = run("contracts", "check", tmp.toString(), "--set", "ONCEPORT_TEST_UNSET_TARGET=http://127.0.0.1:9000");
    assertEquals(new AgentCommandTest.Run(0, "ok  r  http  read_only\n", ""), set);
    AgentCommandTest.Run bad = run("contracts", "check", tmp.toString(), "--set", "no-equals-sign");
    assertEquals(1, bad.exit());
    assertEquals("onceport: --set expects NAME=VALUE, not 'no-equals-sign'\n", bad.err());
  }

  @Test
  void checkHasHelp() {
    AgentCommandTest.Run r = run("contracts", "check", "--help");
    assertEquals(0, r.exit());
    assertTrue(r.out().startsWith("Usage: onceport contracts check"), r.out());
  }
}
