package io.onceport.activity.ssh;

import java.security.KeyPair;
import java.util.List;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.server.shell.ProcessShellCommandFactory;

/** Apache MINA SSHD with a real shell: exec requests run as {@code /bin/sh -c <command>}. */
final class MinaServer implements SshServer {
  private final org.apache.sshd.server.SshServer sshd;
  private final KeyPair hostKey;

  MinaServer(List<KeyPair> authorized) throws Exception {
    hostKey = TestKeys.ec();
    sshd = org.apache.sshd.server.SshServer.setUpDefaultServer();
    sshd.setHost("127.0.0.1");
    sshd.setPort(0);
    sshd.setKeyPairProvider(KeyPairProvider.wrap(List.of(hostKey)));
    sshd.setPublickeyAuthenticator(
        (user, key, session) -> "deploy".equals(user)
            && authorized.stream().anyMatch(k -> KeyUtils.compareKeys(key, k.getPublic())));
    sshd.setCommandFactory(ProcessShellCommandFactory.INSTANCE);
    sshd.start();
  }

  @Override
  public int port() {
    return sshd.getPort();
  }

  @Override
  public String hostKeyFingerprint() {
    return TestKeys.fingerprint(hostKey);
  }

  @Override
  public String user() {
    return "deploy";
  }

  @Override
  public void close() throws Exception {
    sshd.stop(true);
  }
}
