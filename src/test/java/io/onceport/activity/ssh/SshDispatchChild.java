package io.onceport.activity.ssh;

import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.dispatch.DispatchResult;
import java.nio.file.Path;
import java.util.List;

/**
 * A worker stand-in run in a child JVM: dispatches one marker command and waits for it, so the
 * parent test can {@code kill -9} it mid-command.
 *
 * <p>Arguments: port user hostKey keyFile helper stateDir executionId startedFile runsFile.
 */
public final class SshDispatchChild {
  private SshDispatchChild() {}

  public static void main(String[] args) {
    SshFixture fixture = new SshFixture(Integer.parseInt(args[0]), args[1], args[2], Path.of(args[3]),
        Path.of(args[4]), Path.of(args[5]));
    SshSpec spec = fixture.spec(SshChannelScenarios.startThenRun(args[7], args[8], 3), true);
    System.out.println("dispatching " + args[6]);
    DispatchResult result = new SshChannel().dispatch(SshFixture.request(spec, "{}", args[6]), new RecordingContext());
    System.out.println("exit " + result.exitStatus());
  }
}
