package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Signed checkpoints of one segment, one file per tree size:
 * {@code <journal dir>/checkpoints/<writer-id>/<size, 20 digits>.note}. Each file is written to a
 * temp file, fsynced and renamed into place, so a crash leaves either the whole note or none.
 */
final class CheckpointStore {
  private CheckpointStore() {}

  static Path dir(Path journalDir, String writerId) {
    return journalDir.resolve("checkpoints").resolve(writerId);
  }

  static String fileName(long size) {
    return String.format("%020d.note", size);
  }

  /** Checkpoint files, smallest tree size first. */
  static List<Path> list(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().matches("[0-9]{20}\\.note")).sorted().toList();
    }
  }

  static void write(Path dir, long size, String note) throws IOException {
    io.onceport.shared.files.PrivateFiles.createDirectories(dir);
    Path target = dir.resolve(fileName(size));
    Path tmp = dir.resolve(fileName(size) + ".tmp");
    try (FileChannel ch = io.onceport.shared.files.PrivateFiles.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      ByteBuffer buf = ByteBuffer.wrap(note.getBytes(StandardCharsets.UTF_8));
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    fsyncDir(dir);
  }

  static void fsyncDir(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Not every platform can open a directory; the rename is still atomic there.
    }
  }
}
