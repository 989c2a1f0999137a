package io.onceport.activity.ssh;

import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;

/** {@link SshChannel} against Apache MINA SSHD running exec requests through {@code /bin/sh -c}. */
class MinaSshChannelTest extends SshChannelScenarios {
  @Override
  SshServer start(List<KeyPair> authorized, Path dir) throws Exception {
    return new MinaServer(authorized);
  }
}
