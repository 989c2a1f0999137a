package io.onceport.shared.codec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The payload encryption keys: one file per key id under {@code <data>/keys/payload/} (32 random
 * bytes, mode 0600) and an {@code active} file naming the key new payloads are encrypted with.
 * Every key in the directory decrypts, so payloads written before a rotation stay readable.
 *
 * <p>Crash contract: a key file is written to a temporary name, fsynced and renamed into place
 * before {@code active} is switched to it (again temp file + fsync + atomic rename). A crash leaves
 * either the old active key or the new one, never an {@code active} that names a missing key. Keys
 * are never deleted by Onceport: deleting one makes every payload encrypted with it unreadable.
 */
public final class KeyRing {
  static final String ACTIVE = "active";
  private static final Pattern KEY_ID = Pattern.compile("k[0-9]{4}-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path dir;
  private volatile Map<String, SecretKey> keys;
  private volatile String activeId;

  private KeyRing(Path dir) {
    this.dir = dir;
  }

  /** The key directory of a data directory: {@code <data>/keys/payload}. */
  public static Path directory(Path dataDir) {
    return dataDir.resolve("keys").resolve("payload");
  }

  /** Loads the keys under {@code <dataDir>/keys/payload}, creating the first key when there is none. */
  public static KeyRing loadOrCreate(Path dataDir) {
    Objects.requireNonNull(dataDir, "dataDir == null");
    KeyRing ring = new KeyRing(directory(dataDir));
    try {
      io.onceport.shared.files.PrivateFiles.createDirectories(ring.dir); // keys/ and keys/payload/ 0700
      restrict(ring.dir, "rwx------");
      ring.reload();
      if (ring.activeId == null) {
        ring.rotate();
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot load payload keys from " + ring.dir + ": " + e.getMessage(), e);
    }
    return ring;
  }

  /** Loads existing keys only; fails when there are none (for commands that must not create keys). */
  public static KeyRing load(Path dataDir) {
    Objects.requireNonNull(dataDir, "dataDir == null");
    KeyRing ring = new KeyRing(directory(dataDir));
    if (!Files.isDirectory(ring.dir)) {
      throw new IllegalStateException("no payload keys in " + ring.dir);
    }
    try {
      ring.reload();
    } catch (IOException e) {
      throw new IllegalStateException("cannot load payload keys from " + ring.dir + ": " + e.getMessage(), e);
    }
    if (ring.activeId == null) {
      throw new IllegalStateException("no active payload key in " + ring.dir);
    }
    return ring;
  }

  /** Creates a new key and makes it the active one; returns its id. Old keys keep decrypting. */
  public synchronized String rotate() {
    int next = keys.keySet().stream().mapToInt(k -> Integer.parseInt(k.substring(1, 5))).max().orElse(0) + 1;
    if (next > 9999) {
      throw new IllegalStateException("too many payload keys in " + dir);
    }
    byte[] suffix = new byte[4];
    RANDOM.nextBytes(suffix); // ids stay unique across deployments, so a foreign payload reads "unknown key"
    String id = String.format("k%04d-%s-%s", next, java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
        .withZone(java.time.ZoneOffset.UTC).format(java.time.Instant.now()), java.util.HexFormat.of().formatHex(suffix));
    byte[] material = new byte[32];
    RANDOM.nextBytes(material);
    try {
      Path tmp = writeTemp(material);
      try {
        Files.move(tmp, dir.resolve(id), StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException e) {
        Files.deleteIfExists(tmp);
        throw e;
      }
      Path activeTmp = writeTemp(id.getBytes(StandardCharsets.US_ASCII));
      try {
        Files.move(activeTmp, dir.resolve(ACTIVE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(activeTmp, dir.resolve(ACTIVE), StandardCopyOption.REPLACE_EXISTING);
      }
      fsyncDirectory();
      reload();
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a payload key in " + dir + ": " + e.getMessage(), e);
    }
    return id;
  }

  /** The id new payloads are encrypted with. */
  public String activeId() {
    return activeId;
  }

  /** The active key. */
  SecretKey activeKey() {
    return keys.get(activeId);
  }

  /**
   * The key with this id, or null when the ring does not hold it. A miss re-reads the directory
   * once: another process sharing the key files may have rotated since this one loaded them.
   */
  SecretKey key(String id) {
    SecretKey key = keys.get(id);
    if (key == null && KEY_ID.matcher(id).matches() && Files.exists(dir.resolve(id))) {
      synchronized (this) {
        try {
          reload();
        } catch (IOException e) {
          throw new IllegalStateException("cannot reload payload keys from " + dir + ": " + e.getMessage(), e);
        }
      }
      key = keys.get(id);
    }
    return key;
  }

  /** All key ids, oldest first (ids are {@code k<sequence>-<creation time>-<random>}). */
  public List<String> ids() {
    List<String> ids = new ArrayList<>(keys.keySet());
    Collections.sort(ids);
    return ids;
  }

  public Path directory() {
    return dir;
  }

  private void reload() throws IOException {
    Map<String, SecretKey> loaded = new HashMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (!KEY_ID.matcher(name).matches()) {
          continue;
        }
        byte[] material = Files.readAllBytes(file);
        if (material.length != 32) {
          throw new IOException("key file " + name + " holds " + material.length + " bytes, expected 32");
        }
        loaded.put(name, new SecretKeySpec(material, "AES"));
      }
    }
    String active = null;
    Path activeFile = dir.resolve(ACTIVE);
    if (Files.exists(activeFile)) {
      active = Files.readString(activeFile, StandardCharsets.US_ASCII).trim();
      if (!loaded.containsKey(active)) {
        throw new IOException("the active key " + active + " is missing from " + dir);
      }
    }
    keys = Map.copyOf(loaded);
    activeId = active;
  }

  private Path writeTemp(byte[] content) throws IOException {
    Path tmp = io.onceport.shared.files.PrivateFiles.createTempFile(dir, ".tmp-", "");
    try (var channel = java.nio.channels.FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      channel.write(java.nio.ByteBuffer.wrap(content));
      channel.force(true);
    }
    return tmp;
  }

  private void fsyncDirectory() {
    try (var channel = java.nio.channels.FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException ignored) {
      // Not every file system lets a directory be opened for fsync; the renames are still atomic.
    }
  }

  private static void restrict(Path path, String perms) throws IOException {
    try {
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(perms));
    } catch (UnsupportedOperationException ignored) {
      // Not a POSIX file system.
    }
  }
}
