package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The shipped {@code onceport-run} helper, run locally by {@code /bin/sh}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MarkerHelperScriptTest {
  private static final String ID = "act_01ARZ3NDEKTSV4RRFFQ69G5FAV";
  @TempDir Path tmp;
  Path helper;
  Path state;

  record Run(int exit, String stdout, String stderr) {}

  @BeforeEach
  void install() throws Exception {
    helper = SshFixture.installHelper(tmp);
    state = tmp.resolve("state");
  }

  private Run helper(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("/bin/sh", helper.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    return new Run(p.exitValue(), out, err);
  }

  @Test
  void runRecordsTheMarkerAndPassesOutputAndExitStatusThrough() throws Exception {
    Run run = helper("run", "--state-dir", state.toString(), ID, "--", "/bin/sh", "-c", "echo out; echo err >&2; exit 3");

    assertEquals(new Run(3, "out\n", "err\n"), run);
    Path marker = state.resolve(ID);
    assertEquals("3\n", Files.readString(marker.resolve("exit_status")));
    assertTrue(Files.readString(marker.resolve("finished")).matches("time=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\nexit=3\n"));
    assertTrue(Files.readString(marker.resolve("started")).matches("time=\\S+Z\npid=\\d+\n"));
    Run status = helper("status", "--state-dir", state.toString(), ID);
    assertEquals(0, status.exit());
    assertTrue(status.stdout().matches("state=finished\nexit=3\nstarted=\\S+\nfinished=\\S+\noutput=" + marker + "\n"),
        status.stdout());
  }

  @Test
  void markerIsPrivateWhileTheCommandKeepsTheCallersUmask() throws Exception {
    Run run = helper("run", "--state-dir", state.toString(), ID, "--", "/bin/sh", "-c", "umask 0022 >/dev/null; umask");
    ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", "umask 0027; exec /bin/sh \"$0\" run --state-dir \"$1\" "
        + "act_01ARZ3NDEKTSV4RRFFQ69G5FAW -- /bin/sh -c umask", helper.toString(), state.toString());
    Process p = pb.start();
    String mask = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));

    assertEquals(0, run.exit());
    assertEquals("0027\n", mask);
    assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(state.resolve(ID))));
    assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(state.resolve(ID).resolve("stdout"))));
  }

  @Test
  void secondRunWithTheSameIdRefusesWithoutRunningTheCommand() throws Exception {
    Path runs = tmp.resolve("runs");
    String[] args = {"run", "--state-dir", state.toString(), ID, "--", "/bin/sh", "-c", "echo ran >> \"$0\"", runs.toString()};

    assertEquals(0, helper(args).exit());
    Run again = helper(args);

    assertEquals(75, again.exit());
    assertEquals("", again.stdout());
    assertEquals("onceport-run: refused: execution " + ID + " already has a marker at " + state.resolve(ID)
        + "; not running it again\n", again.stderr());
    assertEquals(List.of("ran"), Files.readAllLines(runs));
  }

  @Test
  void concurrentRunsOfOneIdStartTheCommandOnce() throws Exception {
    Path runs = tmp.resolve("runs");
    List<Process> processes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      processes.add(new ProcessBuilder("/bin/sh", helper.toString(), "run", "--state-dir", state.toString(), ID, "--",
          "/bin/sh", "-c", "echo ran >> \"$0\"", runs.toString()).start());
    }
    List<Integer> exits = new ArrayList<>();
    for (Process p : processes) {
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));
      exits.add(p.exitValue());
    }

    assertEquals(1, exits.stream().filter(x -> x == 0).count(), exits.toString());
    assertEquals(5, exits.stream().filter(x -> x == 75).count(), exits.toString());
    assertEquals(List.of("ran"), Files.readAllLines(runs));
  }

  @Test
  void statusOfAnUnknownIdIsAbsent() throws Exception {
    assertEquals(new Run(11, "state=absent\n", ""), helper("status", "--state-dir", state.toString(), ID));
  }

  @Test
  void defaultStateDirComesFromTheEnvironment() throws Exception {
    ProcessBuilder pb = new ProcessBuilder("/bin/sh", helper.toString(), "run", ID, "--", "true");
    pb.environment().put("ONCEPORT_STATE_DIR", state.toString());

    assertEquals(0, pb.start().waitFor());
    assertTrue(Files.isRegularFile(state.resolve(ID).resolve("finished")));
  }

  @Test
  void idsThatCouldEscapeTheStateDirAreRejected() throws Exception {
    for (String id : List.of("../../etc", "act_../../../../../tmp/x", "act_01arz3ndektsv4rrffq69g5fav",
        "act_01ARZ3NDEKTSV4RRFFQ69G5FA", "act_01ARZ3NDEKTSV4RRFFQ69G5FAV/x", "")) {
      Run run = helper("run", "--state-dir", state.toString(), id, "--", "true");
      assertEquals(new Run(65, "", "onceport-run: error: invalid execution id\n"), run, id);
    }
    assertFalse(Files.exists(state));
  }

  @Test
  void usageErrorsExit64() throws Exception {
    assertEquals(64, helper().exit());
    assertEquals(64, helper("run", ID, "true").exit());
    assertEquals(64, helper("frobnicate", ID).exit());
  }

  @Test
  void commandSurvivesTheHelperBeingKilledAndStatusFollowsIt() throws Exception {
    Path runs = tmp.resolve("runs");
    Process run = new ProcessBuilder("/bin/sh", helper.toString(), "run", "--state-dir", state.toString(), ID, "--",
        "/bin/sh", "-c", "sleep 2; echo ran >> \"$0\"", runs.toString()).start();
    Path started = state.resolve(ID).resolve("started");
    while (!Files.exists(started)) {
      Thread.sleep(20);
    }

    run.destroyForcibly();
    assertTrue(run.waitFor(10, TimeUnit.SECONDS));
    Run running = helper("status", "--state-dir", state.toString(), ID);
    assertEquals(10, running.exit());
    assertTrue(running.stdout().startsWith("state=running\nstarted="), running.stdout());

    Run status;
    do {
      Thread.sleep(200);
      status = helper("status", "--state-dir", state.toString(), ID);
    } while (status.exit() == 10);
    assertEquals(0, status.exit(), status.stdout());
    assertTrue(status.stdout().startsWith("state=finished\nexit=0\n"), status.stdout());
    assertEquals(List.of("ran"), Files.readAllLines(runs));
  }

  @Test
  void supervisorThatVanishedIsReportedLost() throws Exception {
    Path marker = Files.createDirectories(state.resolve(ID));
    Process gone = new ProcessBuilder("/bin/true").start();
    gone.waitFor();
    Files.writeString(marker.resolve("started"), "time=2026-01-01T00:00:00Z\npid=" + gone.pid() + "\n");

    Run status = helper("status", "--state-dir", state.toString(), ID);

    assertEquals(new Run(12, "state=lost\nstarted=2026-01-01T00:00:00Z\npid=" + gone.pid() + "\noutput=" + marker + "\n", ""),
        status);
  }
}
