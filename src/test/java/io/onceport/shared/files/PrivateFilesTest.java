package io.onceport.shared.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Modes of what {@link PrivateFiles} creates (the umask-000 case runs in {@code DataDirPermissionsTest}). */
class PrivateFilesTest {
  @TempDir Path dir;

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void createdDirectoriesAre0700AndExistingOnesKeepTheirMode() throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path deep = dir.resolve("a/b/c");
    assertEquals(deep, PrivateFiles.createDirectories(deep));
    assertEquals("rwx------", mode(dir.resolve("a")));
    assertEquals("rwx------", mode(dir.resolve("a/b")));
    assertEquals("rwx------", mode(deep));
    assertEquals("rwxr-xr-x", mode(dir));
    Files.setPosixFilePermissions(deep, PosixFilePermissions.fromString("rwxr-x---"));
    PrivateFiles.createDirectories(deep);
    assertEquals("rwxr-x---", mode(deep));
  }

  @Test
  void createdFilesAre0600AndExistingOnesKeepTheirMode() throws Exception {
    assertEquals("rw-------", mode(PrivateFiles.createFile(dir.resolve("f"))));
    assertThrows(FileAlreadyExistsException.class, () -> PrivateFiles.createFile(dir.resolve("f")));
    assertEquals("rw-------", mode(PrivateFiles.createTempFile(dir, "t", ".tmp")));
    try (FileChannel ch = PrivateFiles.open(dir.resolve("segment"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      assertEquals("rw-------", mode(dir.resolve("segment")));
    }
    PrivateFiles.writeString(dir.resolve("pub"), "key\n");
    assertEquals("rw-------", mode(dir.resolve("pub")));
    assertEquals("key\n", Files.readString(dir.resolve("pub")));

    Path shared = Files.writeString(dir.resolve("shared"), "x");
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rw-r-----"));
    PrivateFiles.open(shared, StandardOpenOption.CREATE, StandardOpenOption.WRITE).close();
    PrivateFiles.touch(shared);
    PrivateFiles.writeString(shared, "y");
    assertEquals("rw-r-----", mode(shared));
    assertEquals("y", Files.readString(shared));
  }
}
