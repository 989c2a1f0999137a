package io.onceport.activity.ssh;

import static io.onceport.activity.ssh.SshChannel.target;

import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.SshSpec;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import net.schmizz.keepalive.KeepAliveProvider;
import net.schmizz.sshj.DefaultConfig;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.Session;
import net.schmizz.sshj.userauth.keyprovider.KeyProvider;

/**
 * The {@link SshChannel}'s way up to the exec request: the private key parsed first, the pinned
 * host key checked, then connect, authenticate and open a session. Everything here happens before
 * the command could start, so a failure is {@code NOT_SENT} (retryable) — except a host key other
 * than the pinned one ({@code HOST_KEY_MISMATCH}) and an unusable key ({@code
 * CREDENTIAL_UNAVAILABLE}), which a retry cannot mend.
 */
final class SshConnector {
  private SshConnector() {}

  static SSHClient connect(SshSpec spec, DispatchContext context, Duration connectTimeout) {
    PinnedHostKeyVerifier verifier = new PinnedHostKeyVerifier(spec.hostKey());
    if (!verifier.valid()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "host_key of " + target(spec) + " must be an OpenSSH SHA256 fingerprint (SHA256:...)", ErrorTypes.INVALID_REQUEST);
    }
    DefaultConfig config = new DefaultConfig();
    config.setKeepAliveProvider(KeepAliveProvider.KEEP_ALIVE);
    SSHClient client = new SSHClient(config);
    try {
      KeyProvider keys = keys(client, spec, context);
      client.addHostKeyVerifier(verifier);
      client.setConnectTimeout((int) connectTimeout.toMillis());
      client.getTransport().setTimeoutMs((int) connectTimeout.toMillis());
      context.heartbeat("ssh: connecting");
      try {
        client.connect(spec.host(), spec.port());
      } catch (IOException | RuntimeException e) {
        if (verifier.rejected() != null) {
          throw ApplicationFailure.newNonRetryableFailure("host key of " + target(spec) + " is " + verifier.rejected()
              + ", not the pinned " + verifier.pinned() + "; refusing to connect", ErrorTypes.HOST_KEY_MISMATCH);
        }
        throw ApplicationFailure.newFailureWithCause(
            "SSH connection to " + target(spec) + " failed: " + e.getMessage(), ErrorTypes.NOT_SENT, e);
      }
      client.getConnection().getKeepAlive().setKeepAliveInterval(15);
      try {
        client.authPublickey(spec.user(), keys);
      } catch (IOException | RuntimeException e) {
        throw ApplicationFailure.newFailureWithCause(
            "SSH authentication as " + spec.user() + " to " + target(spec) + " failed: " + e.getMessage(), ErrorTypes.NOT_SENT, e);
      }
      return client;
    } catch (RuntimeException e) {
      closeQuietly(client);
      throw e;
    }
  }

  static Session openSession(SSHClient client, SshSpec spec) {
    try {
      return client.startSession();
    } catch (IOException | RuntimeException e) {
      throw ApplicationFailure.newFailureWithCause(
          "SSH session to " + target(spec) + " could not be opened: " + e.getMessage(), ErrorTypes.NOT_SENT, e);
    }
  }

  /** The private key, parsed now so a bad key fails before connecting. Its text is never logged or echoed. */
  private static KeyProvider keys(SSHClient client, SshSpec spec, DispatchContext context) {
    if (spec.credential() != null && !spec.credential().isEmpty()) {
      Credential credential = context.credential(spec.credential());
      if (credential.type() != Credential.Type.SSH_KEY) {
        throw ApplicationFailure.newNonRetryableFailure(
            "credential " + spec.credential() + " is not an ssh-key credential", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
      try {
        return PrivateKeys.load(client, credential.secret());
      } catch (IOException | GeneralSecurityException | RuntimeException e) {
        throw ApplicationFailure.newNonRetryableFailure(
            "credential " + spec.credential() + " does not hold a readable unencrypted private key", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
    }
    if (spec.keyFile() != null && !spec.keyFile().isEmpty()) {
      if (!Files.isReadable(Path.of(spec.keyFile()))) {
        throw ApplicationFailure.newNonRetryableFailure(
            "key_file " + spec.keyFile() + " is not readable", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
      try {
        return PrivateKeys.load(client, Files.readString(Path.of(spec.keyFile())));
      } catch (IOException | GeneralSecurityException | RuntimeException e) {
        throw ApplicationFailure.newNonRetryableFailure(
            "key_file " + spec.keyFile() + " does not hold a readable unencrypted private key", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
    }
    throw ApplicationFailure.newNonRetryableFailure(
        "ssh contract for " + target(spec) + " names neither a credential nor a key_file", ErrorTypes.INVALID_REQUEST);
  }

  static void closeQuietly(SSHClient client) {
    try {
      client.close();
    } catch (IOException | RuntimeException ignored) {
      // Nothing more to learn from a failing close.
    }
  }
}
