package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;

/**
 * {@link SshChannel} against OpenSSH's {@code sshd} (Debian package {@code openssh-server});
 * skipped where it is not installed.
 */
class OpenSshChannelTest extends SshChannelScenarios {
  @Override
  SshServer start(List<KeyPair> authorized, Path dir) throws Exception {
    assumeTrue(OpenSshServer.available(), "/usr/sbin/sshd not installed (apt-get install openssh-server)");
    return new OpenSshServer(authorized, dir);
  }
}
