package io.onceport.activity.ssh;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * OpenSSH's {@code sshd} on 127.0.0.1 and a free port, with a generated host key and config in a
 * temporary directory; the client key is authorized for the current (root) user.
 */
final class OpenSshServer implements SshServer {
  static final Path SSHD = Path.of("/usr/sbin/sshd");
  private final Process process;
  private final int port;
  private final String fingerprint;
  private final String user;

  static boolean available() {
    return Files.isExecutable(SSHD) && Files.isExecutable(Path.of("/usr/bin/ssh-keygen"));
  }

  OpenSshServer(List<KeyPair> authorized, Path dir) throws Exception {
    user = System.getProperty("user.name");
    Path hostKey = dir.resolve("ssh_host_ed25519_key");
    run("/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey.toString());
    String listing = run("/usr/bin/ssh-keygen", "-l", "-E", "sha256", "-f", hostKey + ".pub");
    fingerprint = listing.split(" ")[1];
    Path authorizedFile = dir.resolve("authorized_keys");
    StringBuilder keys = new StringBuilder();
    for (KeyPair k : authorized) {
      keys.append(TestKeys.authorizedKey(k));
    }
    Files.writeString(authorizedFile, keys);
    port = freePort();
    Path config = dir.resolve("sshd_config");
    Files.writeString(config, String.join("\n",
        "ListenAddress 127.0.0.1",
        "Port " + port,
        "HostKey " + hostKey,
        "AuthorizedKeysFile " + authorizedFile,
        "PidFile none",
        "StrictModes no",
        "UsePAM no",
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "LogLevel ERROR",
        ""));
    Files.createDirectories(Path.of("/run/sshd"));
    process = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", config.toString())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("sshd.log").toFile())
        .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          process.destroyForcibly();
          throw new IllegalStateException("sshd did not start: " + Files.readString(dir.resolve("sshd.log")));
        }
        Thread.sleep(50);
      }
    }
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
    }
    return out;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public String hostKeyFingerprint() {
    return fingerprint;
  }

  @Override
  public String user() {
    return user;
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
  }
}
