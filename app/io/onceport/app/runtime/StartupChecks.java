package io.onceport.app.runtime;

import io.onceport.activity.journal.Journals;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Checks a process makes before it starts an engine, so that the commonest start-up mistakes —
 * the MCP port is taken, another process writes this data directory's journals — are one line at
 * once instead of an error after the engine spent half a minute starting. Both are probes: the
 * real bind and the real lock still decide (and fail with their own message) if another process
 * wins the moment in between.
 */
public final class StartupChecks {
  private StartupChecks() {}

  /**
   * Fails when {@code listen} cannot be bound now. Port 0 (any free port) always passes.
   *
   * @param option the option that chose the address, named in the message
   * @throws IllegalStateException naming the address and what to do
   */
  public static void listenPortFree(HostPort listen, String option) {
    if (listen.port() == 0) {
      return;
    }
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new InetSocketAddress(InetAddress.getByName(listen.host()), listen.port()));
    } catch (BindException e) {
      throw new IllegalStateException("cannot listen on " + listen + ": address already in use (another onceport serve "
          + "or frontend? stop it, or choose another address with " + option + " HOST:PORT)");
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on " + listen + ": " + e.getMessage() + " (see " + option + ")");
    }
  }

  /**
   * Fails when another process holds this data directory's journal segment for {@code writer}
   * (null: the host-name default), i.e. another worker or {@code serve} uses the same data dir.
   *
   * @throws IllegalStateException naming the directory, the writer and {@code --journal-writer}
   */
  public static void journalWriterFree(Path dataDir, String writer) {
    String id = writer == null ? Journals.defaultWriterId() : writer;
    Path dir = Journals.journalDir(dataDir, Journals.ACTIVITY);
    Path lockFile = dir.resolve(id + ".lock");
    if (!Files.exists(lockFile)) {
      return;
    }
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // this JVM holds it (tests running two roles in one process)
      }
      if (lock == null) {
        throw new IllegalStateException("data directory " + dataDir.toAbsolutePath().normalize()
            + " is in use: another onceport process writes its journal segment '" + id + "' (" + lockFile + "). "
            + "Stop that process, give this one its own --data DIR, or — for two workers sharing one data dir on purpose — "
            + "a different --journal-writer NAME each");
      }
      lock.release();
    } catch (IOException e) {
      // Unreadable lock file: the journal's own open reports it with the cause.
    }
  }
}
