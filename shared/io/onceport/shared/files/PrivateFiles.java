package io.onceport.shared.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * Creates what Onceport keeps under its data directory — keys, {@code agents.json}, the vault,
 * journals, checkpoints, the Temporal CLI's database directory — as the owner's alone: directories
 * 0700, files 0600.
 *
 * <p>Why set the modes explicitly: a mode passed at creation is filtered by the process umask, and
 * a file created without one gets {@code 0666 & ~umask}. Under {@code umask 000} (containers,
 * service managers and CI runners often start processes so) journals, lock files and key
 * directories came out world-readable or world-writable. Every path this class creates gets its
 * mode set afterwards with {@code chmod}, so the umask does not decide who can read them. Existing
 * files and directories are left as they are (an operator may have chosen their modes). On a file
 * system without POSIX permissions nothing is changed.
 */
public final class PrivateFiles {
  public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
  public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

  private PrivateFiles() {}

  /** Creates {@code dir} and its missing parents, each one it creates 0700; returns {@code dir}. */
  public static Path createDirectories(Path dir) throws IOException {
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = dir.toAbsolutePath(); p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.push(p);
    }
    for (Path p : missing) {
      try {
        if (posix(p)) {
          Files.createDirectory(p, attribute(DIRECTORY));
        } else {
          Files.createDirectory(p);
        }
      } catch (FileAlreadyExistsException e) {
        if (!Files.isDirectory(p)) {
          throw e;
        }
        continue; // created concurrently by another writer: theirs, leave it
      }
      restrict(p, DIRECTORY);
    }
    return dir;
  }

  /** Creates a new, empty file 0600 (fails when it exists); returns it. */
  public static Path createFile(Path file) throws IOException {
    if (posix(file)) {
      Files.createFile(file, attribute(FILE));
    } else {
      Files.createFile(file);
    }
    restrict(file, FILE);
    return file;
  }

  /** A new temp file 0600 in {@code dir}, as {@link Files#createTempFile(Path, String, String, FileAttribute[])}. */
  public static Path createTempFile(Path dir, String prefix, String suffix) throws IOException {
    Path tmp = posix(dir) ? Files.createTempFile(dir, prefix, suffix, attribute(FILE)) : Files.createTempFile(dir, prefix, suffix);
    restrict(tmp, FILE);
    return tmp;
  }

  /**
   * {@link FileChannel#open} that creates a missing file 0600 (with {@code CREATE} or {@code
   * CREATE_NEW} among the options); an existing file keeps its mode.
   */
  public static FileChannel open(Path file, OpenOption... options) throws IOException {
    boolean creates = List.of(options).contains(StandardOpenOption.CREATE) || List.of(options).contains(StandardOpenOption.CREATE_NEW);
    boolean existed = !creates || Files.exists(file);
    FileChannel channel = creates && posix(file)
        ? FileChannel.open(file, Set.of(options), attribute(FILE))
        : FileChannel.open(file, options);
    if (!existed) {
      try {
        restrict(file, FILE);
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
    }
    return channel;
  }

  /** Writes {@code text} (UTF-8) to {@code file}, replacing its content; a missing file is created 0600. */
  public static void writeString(Path file, String text) throws IOException {
    try (FileChannel ch = open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
    }
  }

  /** Creates {@code file} 0600 when it does not exist (for a file another writer appends to). */
  public static Path touch(Path file) throws IOException {
    try {
      return createFile(file);
    } catch (FileAlreadyExistsException e) {
      return file;
    }
  }

  /** Sets exactly {@code permissions} on {@code path} (no-op without POSIX permissions). */
  public static void restrict(Path path, Set<PosixFilePermission> permissions) throws IOException {
    if (posix(path)) {
      Files.setPosixFilePermissions(path, permissions);
    }
  }

  private static boolean posix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  private static FileAttribute<Set<PosixFilePermission>> attribute(Set<PosixFilePermission> permissions) {
    return PosixFilePermissions.asFileAttribute(permissions);
  }
}
