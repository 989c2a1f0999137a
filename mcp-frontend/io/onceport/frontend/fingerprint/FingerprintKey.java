package io.onceport.frontend.fingerprint;

import io.onceport.shared.files.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret key fingerprints are computed with: 32 random bytes in {@code
 * <data>/keys/fingerprint.key}, mode 0600, generated on first use.
 *
 * <p>Why keyed: fingerprints are stored in records and search attributes; with a plain hash a
 * low-entropy secret argument could be recovered by guessing. Why stable: workflow ids are derived
 * from fingerprints, so a lost or changed key makes retries miss their first execution (they
 * would dispatch again) — back the key up with the data directory.
 *
 * <p>Crash contract: the key is written to a temp file (0600), fsynced, then hard-linked to its
 * final name, which fails if the name exists; two processes starting at once therefore agree on
 * one key (the loser reads the winner's), and a crash leaves no partial key under the final name.
 */
public final class FingerprintKey {
  public static final String PREFIX = "hmac-sha256:";
  static final int LENGTH = 32;

  private final SecretKeySpec key;
  private final Path file;

  private FingerprintKey(byte[] bytes, Path file) {
    this.key = new SecretKeySpec(bytes, "HmacSHA256");
    this.file = file;
  }

  /** A key from raw bytes (tests, and callers that manage the key themselves). */
  public static FingerprintKey of(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes == null");
    if (bytes.length != LENGTH) {
      throw new IllegalArgumentException("Invalid key length: " + bytes.length + " (expected " + LENGTH + ")");
    }
    return new FingerprintKey(bytes.clone(), null);
  }

  /**
   * Reads {@code <dataDir>/keys/fingerprint.key}, creating it if absent.
   *
   * @throws IOException if the file cannot be read or created, is not 32 bytes, or is accessible
   *     by group or others (the message says how to fix it)
   */
  public static FingerprintKey loadOrCreate(Path dataDir) throws IOException {
    Path dir = dataDir.resolve("keys");
    Path file = dir.resolve("fingerprint.key");
    if (!Files.exists(file)) {
      create(dir, file);
    }
    return load(file);
  }

  /** The key file, or null for a key made with {@link #of}. */
  public Path file() {
    return file;
  }

  /** {@code hmac-sha256:<64 lowercase hex>} of {@code data}. */
  public String hmac(byte[] data) {
    return PREFIX + HexFormat.of().formatHex(mac(data));
  }

  /** {@link #hmac(byte[])} of the UTF-8 bytes of {@code text}. */
  public String hmac(String text) {
    return hmac(text.getBytes(StandardCharsets.UTF_8));
  }

  byte[] mac(byte[] data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac.doFinal(data);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new AssertionError(e);
    }
  }

  private static FingerprintKey load(Path file) throws IOException {
    PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
    if (posix != null) {
      Set<PosixFilePermission> perms = posix.readAttributes().permissions();
      Set<PosixFilePermission> open = EnumSet.of(
          PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
      open.retainAll(perms);
      if (!open.isEmpty()) {
        throw new IOException("fingerprint key " + file + " is accessible by group or others ("
            + PosixFilePermissions.toString(perms) + "); run: chmod 600 " + file);
      }
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new IOException("fingerprint key " + file + " is missing", e);
    }
    if (bytes.length != LENGTH) {
      throw new IOException("fingerprint key " + file + " is " + bytes.length + " bytes, expected " + LENGTH
          + " (corrupt? restore it from backup: a new key changes every fingerprint)");
    }
    return new FingerprintKey(bytes, file);
  }

  private static void create(Path dir, Path file) throws IOException {
    PrivateFiles.createDirectories(dir); // the data dir and keys/ 0700 when created here
    byte[] bytes = new byte[LENGTH];
    new SecureRandom().nextBytes(bytes);
    Path tmp = dir.resolve("fingerprint.key.tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    try {
      PrivateFiles.createFile(tmp);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.wrap(bytes));
        ch.force(true);
      }
      try {
        Files.createLink(file, tmp); // commit: fails if another process won the race
      } catch (FileAlreadyExistsException e) {
        return; // keep the winner's key
      } catch (UnsupportedOperationException e) {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // directory fsync is not possible everywhere; the link itself is atomic
    }
  }
}
