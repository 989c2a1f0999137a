package io.onceport.activity.vault;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a file so that a crash at any point leaves either the old or the new content, never a
 * mix: (1) write the new bytes to a fresh {@code <name>.<random>.tmp} in the same directory
 * (owner-only permissions; unique, so two concurrent writers never share a temp file), (2) fsync it,
 * (3) rename it over the target (atomic on POSIX file systems), (4) fsync the directory so the
 * rename itself survives power loss. A crash before (3) leaves the old file untouched and at most a
 * stale temp file, which readers never look at. Concurrent writers are not serialized: the last
 * rename wins.
 */
final class AtomicFile {
  /** The commit step, replaceable in tests to simulate a crash right before it. */
  interface Renamer {
    void rename(Path from, Path to) throws IOException;
  }

  static final Renamer ATOMIC_RENAME =
      (from, to) -> Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

  private AtomicFile() {}

  static void write(Path target, byte[] data, Renamer renamer) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    io.onceport.shared.files.PrivateFiles.createDirectories(dir);
    Path tmp = io.onceport.shared.files.PrivateFiles.createTempFile(dir, target.getFileName() + ".", ".tmp"); // 0600
    boolean committed = false;
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(data);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      renamer.rename(tmp, target); // the commit point
      committed = true;
    } finally {
      if (!committed) {
        Files.deleteIfExists(tmp); // best effort; a real crash leaves it, and it is never read
      }
    }
    fsyncDirectory(dir);
  }

  static void delete(Path target) throws IOException {
    if (Files.deleteIfExists(target)) {
      fsyncDirectory(target.toAbsolutePath().getParent());
    }
  }

  private static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some platforms (Windows) cannot open a directory; the rename is still atomic there.
      if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win")) {
        throw e;
      }
    }
  }
}
