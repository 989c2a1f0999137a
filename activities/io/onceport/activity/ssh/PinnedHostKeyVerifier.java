package io.onceport.activity.ssh;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.util.Base64;
import java.util.List;
import net.schmizz.sshj.common.Buffer;
import net.schmizz.sshj.transport.verification.HostKeyVerifier;

/**
 * Accepts exactly one host key: the one whose OpenSSH SHA-256 fingerprint
 * ({@code SHA256:<base64 without padding>}, as {@code ssh-keygen -lf} prints it) the contract
 * pins. There is no "accept new": an unknown key is a mismatch. The offered fingerprint is kept so
 * the caller can name it in the failure.
 */
final class PinnedHostKeyVerifier implements HostKeyVerifier {
  private static final String PREFIX = "SHA256:";
  private final String pinned;
  private volatile String rejected;

  PinnedHostKeyVerifier(String pinned) {
    this.pinned = normalize(pinned);
  }

  /** {@code SHA256:...} with trailing base64 padding removed, or null if not in that format. */
  static String normalize(String fingerprint) {
    if (fingerprint == null || !fingerprint.startsWith(PREFIX)) {
      return null;
    }
    String b64 = fingerprint.substring(PREFIX.length()).trim();
    while (b64.endsWith("=")) {
      b64 = b64.substring(0, b64.length() - 1);
    }
    return b64.isEmpty() ? null : PREFIX + b64;
  }

  static String fingerprint(PublicKey key) {
    byte[] blob = new Buffer.PlainBuffer().putPublicKey(key).getCompactData();
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(blob);
      return PREFIX + Base64.getEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
  }

  boolean valid() {
    return pinned != null;
  }

  String pinned() {
    return pinned;
  }

  /** The fingerprint of a key this verifier refused, or null. */
  String rejected() {
    return rejected;
  }

  @Override
  public boolean verify(String hostname, int port, PublicKey key) {
    String offered = fingerprint(key);
    if (pinned != null && MessageDigest.isEqual(offered.getBytes(), pinned.getBytes())) {
      return true;
    }
    rejected = offered;
    return false;
  }

  @Override
  public List<String> findExistingAlgorithms(String hostname, int port) {
    return List.of();
  }
}
