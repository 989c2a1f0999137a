package io.onceport.activity.ssh;

import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.execution.Ids;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;

/** Builds SSH contracts and requests for one server, helper and state directory. */
final class SshFixture {
  final int port;
  final String user;
  final String hostKey;
  final Path keyFile;
  final Path helper;
  final Path stateDir;

  SshFixture(int port, String user, String hostKey, Path keyFile, Path helper, Path stateDir) {
    this.port = port;
    this.user = user;
    this.hostKey = hostKey;
    this.keyFile = keyFile;
    this.helper = helper;
    this.stateDir = stateDir;
  }

  /** Writes the shipped helper into {@code dir} as an executable file. */
  static Path installHelper(Path dir) throws Exception {
    Path helper = dir.resolve("onceport-run");
    Files.writeString(helper, MarkerHelper.script());
    Files.setPosixFilePermissions(helper, PosixFilePermissions.fromString("rwxr-xr-x"));
    return helper;
  }

  static String newExecutionId() {
    return Ids.executionId(System.currentTimeMillis(), new SecureRandom());
  }

  SshSpec spec(List<String> command, boolean marker) {
    return new SshSpec("127.0.0.1", port, user, hostKey, null, keyFile.toString(), command, null, marker,
        helper.toString(), stateDir.toString(), 20_000);
  }

  static SshSpec with(SshSpec s, int port, String hostKey) {
    return new SshSpec(s.host(), port, s.user(), hostKey, s.credential(), s.keyFile(), s.command(), s.workingDir(),
        s.marker(), s.helperPath(), s.stateDir(), s.timeoutMillis());
  }

  static DispatchRequest request(SshSpec spec, String arguments, String executionId) {
    ToolContract contract = new ToolContract("remote", "", "{}", null, ToolContract.Channel.SSH, null, spec,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), null, null);
    return new DispatchRequest(executionId, "fp", contract, arguments, 1);
  }
}
