package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.SshSpec;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RemoteCommandTest {
  private static final String ID = "act_01ARZ3NDEKTSV4RRFFQ69G5FAV";

  @Test
  void singleQuoteIsClosedEscapedAndReopened() {
    assertEquals("'it'\\''s'", RemoteCommand.quote("it's"));
    assertEquals("''", RemoteCommand.quote(""));
    assertEquals("'; rm -rf /'", RemoteCommand.quote("; rm -rf /"));
  }

  @Test
  void placeholdersTakeArgumentValuesAndTheExecutionId() {
    List<String> argv = RemoteCommand.renderArgv(
        List.of("/opt/app/bin/migrate", "--to={{version}}", "{{ count }}", "{{flag}}", "{{execution_id}}", "{{obj}}"),
        "{\"version\":\"v2\",\"count\":3,\"flag\":true,\"obj\":{\"a\":[1]}}", ID);

    assertEquals(List.of("/opt/app/bin/migrate", "--to=v2", "3", "true", ID, "{\"a\":[1]}"), argv);
  }

  @Test
  void argumentValuesAreNotRenderedTwice() {
    assertEquals(List.of("{{b}}", "x"),
        RemoteCommand.renderArgv(List.of("{{a}}", "{{b}}"), "{\"a\":\"{{b}}\",\"b\":\"x\"}", ID));
  }

  @Test
  void missingOrNullArgumentIsAnInvalidRequest() {
    ApplicationFailure missing = assertThrows(ApplicationFailure.class,
        () -> RemoteCommand.renderArgv(List.of("echo", "{{version}}"), "{}", ID));
    ApplicationFailure nul = assertThrows(ApplicationFailure.class,
        () -> RemoteCommand.renderArgv(List.of("echo", "{{version}}"), "{\"version\":null}", ID));

    for (ApplicationFailure e : List.of(missing, nul)) {
      assertEquals(ErrorTypes.INVALID_REQUEST, e.getType());
      assertTrue(e.isNonRetryable());
      assertEquals("command placeholder {{version}} has no argument value", e.getOriginalMessage());
    }
  }

  @Test
  void nulCharacterIsAnInvalidRequest() {
    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> RemoteCommand.renderArgv(List.of("{{a}}"), "{\"a\":\"x\\u0000y\"}", ID));

    assertEquals("command argument contains a NUL character", e.getOriginalMessage());
  }

  @Test
  void workingDirectoryIsQuotedAndChainedWithAnd() {
    assertEquals("cd '/opt/my app' && 'ls' '-l'", RemoteCommand.commandLine("/opt/my app", List.of("ls", "-l")));
    assertEquals("'ls'", RemoteCommand.commandLine(null, List.of("ls")));
  }

  @Test
  void helperInvocationsCarryStateDirAndExecutionId() {
    SshSpec spec = new SshSpec("h", 22, "u", "SHA256:x", null, "/k", List.of("true"), null, true,
        "/usr/local/bin/onceport-run", "/var/lib/onceport", 0);
    SshSpec defaults = new SshSpec("h", 22, "u", "SHA256:x", null, "/k", List.of("true"), null, true, null, null, 0);

    assertEquals(List.of("/usr/local/bin/onceport-run", "run", "--state-dir", "/var/lib/onceport", ID, "--", "a", "b"),
        RemoteCommand.helperRun(spec, ID, List.of("a", "b")));
    assertEquals(List.of("onceport-run", "status", ID), RemoteCommand.helperStatus(defaults, ID));
  }

  @Test
  void aRealShellReceivesEachQuotedElementLiterally() throws Exception {
    List<String> values = List.of("; rm -rf /", "'", "''\\'", "a\nb", "$(id)", "`id`", "${HOME}", "*", " ", "", "\t\"x\"");
    List<String> argv = new ArrayList<>(List.of("printf", "%s\\0"));
    argv.addAll(values);

    Process p = new ProcessBuilder("/bin/sh", "-c", RemoteCommand.commandLine("/", argv)).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));

    assertEquals(0, p.exitValue());
    assertEquals(values, Arrays.asList(out.substring(0, out.length() - 1).split("\0", -1)));
  }
}
