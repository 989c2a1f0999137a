package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.dispatch.StatusResult.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

class MarkerVerdictTest {
  private static final SshSpec SPEC = new SshSpec("h", 22, "u", "SHA256:x", null, "/k", List.of("true"), null, true, null, null, 0);

  private static StatusResult verdict(int exit, String stdout) {
    return SshChannel.verdict(new SshChannel.Output(exit, stdout, "", false), SPEC);
  }

  @Test
  void finishedWithExitZeroIsCompletedAndOtherExitsFailed() {
    StatusResult ok = verdict(0, "state=finished\nexit=0\nstarted=s\nfinished=2026-01-01T00:00:00Z\noutput=/st/act_X\n");
    StatusResult bad = verdict(0, "state=finished\nexit=2\nstarted=s\nfinished=f\noutput=/st/act_X\n");

    assertEquals(Verdict.COMPLETED, ok.verdict());
    assertEquals(0, ok.result().exitStatus());
    assertEquals("marker: finished with exit 0 at 2026-01-01T00:00:00Z; output in u@h:/st/act_X/stdout and /stderr", ok.detail());
    assertEquals(Verdict.FAILED, bad.verdict());
    assertEquals(2, bad.result().exitStatus());
  }

  @Test
  void runningAbsentAndLostMapToRunningNotExecutedAndUnknown() {
    assertEquals(Verdict.RUNNING, verdict(10, "state=running\nstarted=s\npid=9\noutput=/o\n").verdict());
    assertEquals(Verdict.NOT_EXECUTED, verdict(11, "state=absent\n").verdict());
    assertEquals(Verdict.UNKNOWN, verdict(12, "state=lost\nstarted=s\npid=9\noutput=/o\n").verdict());
  }

  @Test
  void stateLineThatDisagreesWithTheExitCodeIsUnknown() {
    assertEquals(Verdict.UNKNOWN, verdict(0, "state=absent\n").verdict());
    assertEquals(Verdict.UNKNOWN, verdict(127, "state=absent\n").verdict());
    assertEquals(Verdict.UNKNOWN, verdict(11, "state=finished\nexit=0\n").verdict());
    assertEquals(Verdict.UNKNOWN, verdict(0, "state=finished\nexit=zero\n").verdict());
    assertEquals(Verdict.UNKNOWN, verdict(0, "").verdict());
  }
}
