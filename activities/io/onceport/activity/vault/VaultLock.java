package io.onceport.activity.vault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The lock marker {@code <data>/vault.locked}. Its presence means "running gateways must not use
 * the vault": {@link VaultService} checks it on every use and wipes its key while it exists.
 * Creating it needs no passphrase (stopping credential use must always be possible); removing it
 * through {@code onceport vault unlock} needs the passphrase. It is an operator switch, not a
 * cryptographic boundary: anyone who can write the data directory can delete it.
 */
public final class VaultLock {
  public static final String FILE_NAME = "vault.locked";

  private VaultLock() {}

  public static Path marker(Path dataDir) {
    return dataDir.resolve(FILE_NAME);
  }

  public static boolean isLocked(Path dataDir) {
    return Files.exists(marker(dataDir));
  }

  /** Creates the marker (durably); locking an already locked vault rewrites the marker. */
  public static void lock(Path dataDir, String by, Instant at) {
    String text = "locked at " + at + " by " + by + "\n";
    try {
      AtomicFile.write(marker(dataDir), text.getBytes(StandardCharsets.UTF_8), AtomicFile.ATOMIC_RENAME);
    } catch (IOException e) {
      throw new VaultException(VaultException.Kind.IO, "cannot write " + marker(dataDir) + ": " + e.getMessage(), e);
    }
  }

  /** Removes the marker; returns false if there was none. Callers check the passphrase first. */
  public static boolean unlock(Path dataDir) {
    Path marker = marker(dataDir);
    if (!Files.exists(marker)) {
      return false;
    }
    try {
      AtomicFile.delete(marker);
      return true;
    } catch (IOException e) {
      throw new VaultException(VaultException.Kind.IO, "cannot remove " + marker + ": " + e.getMessage(), e);
    }
  }

  /** The marker's one-line description ("locked at ... by ..."), or "locked" if unreadable. */
  static String describe(Path dataDir) {
    try {
      String text = Files.readString(marker(dataDir), StandardCharsets.UTF_8).strip();
      return text.isEmpty() || text.length() > 200 ? "locked" : text;
    } catch (IOException e) {
      return "locked";
    }
  }
}
