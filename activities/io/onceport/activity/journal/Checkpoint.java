package io.onceport.activity.journal;

import java.util.Base64;
import java.util.Objects;

/**
 * A C2SP tlog-checkpoint body: origin line, decimal tree size, base64 RFC 6962 root hash, each
 * newline-terminated. Signed as a note by {@link NoteSigner}; a witness that keeps the last one it
 * saw can later prove the journal only grew.
 */
public record Checkpoint(String origin, long size, byte[] root) {
  public Checkpoint {
    Objects.requireNonNull(origin, "origin == null");
    Objects.requireNonNull(root, "root == null");
    if (origin.isEmpty() || origin.contains("\n")) {
      throw new IllegalArgumentException("Invalid origin: " + origin);
    }
    if (size < 0) {
      throw new IllegalArgumentException("Invalid tree size: " + size);
    }
    if (root.length != 32) {
      throw new IllegalArgumentException("Invalid root hash length: " + root.length);
    }
  }

  public String body() {
    return origin + "\n" + size + "\n" + rootBase64() + "\n";
  }

  public String rootBase64() {
    return Base64.getEncoder().encodeToString(root);
  }

  public static Checkpoint parse(String body) {
    String[] lines = body.split("\n", -1);
    if (lines.length < 4 || !lines[lines.length - 1].isEmpty()) {
      throw new IllegalArgumentException("Invalid checkpoint: expected origin, size and root lines");
    }
    if (!lines[1].matches("0|[1-9][0-9]{0,18}")) {
      throw new IllegalArgumentException("Invalid checkpoint: bad tree size line");
    }
    byte[] root;
    try {
      root = Base64.getDecoder().decode(lines[2]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid checkpoint: root hash is not base64");
    }
    return new Checkpoint(lines[0], Long.parseLong(lines[1]), root);
  }
}
