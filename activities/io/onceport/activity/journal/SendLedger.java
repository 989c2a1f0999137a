package io.onceport.activity.journal;

import com.carrotsearch.hppc.LongHashSet;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable send ledger: does any writer's segment of an activity journal directory
 * ({@code <data>/journal/activity/*.jsonl}) hold a {@code dispatched} entry under a key ({@code
 * act_…/dispatched/<attempt>})? The journal's {@code dispatched} entry is written before the first
 * byte of every send, so a key found here is a send that was made before, by this process or by any
 * other sharing the directory.
 *
 * <p><b>Why.</b> Workflow history is not a durable record of what was sent: {@code temporal
 * workflow reset} replays a run up to a workflow task before the send, and the new run asks for the
 * same send (same execution id, same attempt) again. The journal's own idempotence window ({@link
 * JournalOptions#keyWindow()}, 65,536 entries) is for retried appends, not for this: it covers one
 * segment and minutes of traffic, while a reset may come from another worker, days later. With every
 * send at {@code maximumAttempts = 1}, a key already in the ledger can only mean a replayed or reset
 * history, and the send fails closed ({@link #claim}).
 *
 * <p><b>Exact.</b> The index holds a 64-bit hash of every {@code dispatched} key of every segment
 * (no window); it is filled on open by reading every segment and kept up to date by reading what
 * each segment grew by since the last look, before every answer. A hash collision can only make a
 * new key look sent (fail closed, never a second send); its probability is about n / 2^64 per
 * lookup with n sends in the index (below 10^-12 at a million).
 *
 * <p><b>Atomic across processes.</b> {@link #claim} holds an exclusive lock on {@code
 * <dir>/ledger.lock} (a {@link FileLock}, and an in-JVM lock because a file lock is held per JVM)
 * from the refresh to the write of the {@code dispatched} line, so two processes claiming one key
 * at once cannot both send; the fsync that makes the line durable happens after the lock is
 * released (the next claimant reads the written line from the page cache). The lock requires the
 * directory on a local file system (or NFSv4, which has byte-range locks).
 *
 * <p><b>Cost.</b> A claim is a lock, a {@code stat} of the directory (segments are listed again only
 * when it changed), an {@code fstat} per segment, a read of the lines appended since the last look
 * (one JSON parse per {@code dispatched} line only), and a hash probe — microseconds, measured by
 * {@code SendLedgerCostTest} (docs/audit.md). Memory is one {@code long} per send ever made in the
 * directory in a primitive hash set (HPPC {@link LongHashSet}: 11–21 bytes per send, about 16 MB
 * per million sends), read again from the segments at every start.
 */
public final class SendLedger implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SendLedger.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A {@code dispatched} line ends with this: JCS sorts members, and {@code transition} is the last. */
  private static final byte[] DISPATCHED_SUFFIX = ",\"transition\":\"dispatched\"}".getBytes(StandardCharsets.UTF_8);
  private static final byte[] KEY_MEMBER = "\"key\":\"".getBytes(StandardCharsets.UTF_8);
  /** File locks are per JVM: ledgers of one directory in one JVM (tests with several writers) share one in-JVM lock. */
  private static final Map<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

  /** A key is in the ledger: the send it names was made before. */
  public static final class SentBefore extends RuntimeException {
    private final String key;

    SentBefore(String key) {
      super("the journal already holds " + key + ": this send was made before (a reset or replayed history asked for it again)");
      this.key = key;
    }

    public String key() {
      return key;
    }
  }

  private final Path dir;
  private final ReentrantLock jvmLock;
  private final FileChannel lockChannel;
  /** Guarded by jvmLock (and the file lock across processes). */
  private final LongHashSet keys = new LongHashSet();
  private final Map<Path, Tail> tails = new HashMap<>();
  private FileTime listedAt;
  private long lookups;
  private long bytesRead;

  /** Where one segment was read up to (the end of its last complete line). */
  private static final class Tail {
    final FileChannel channel;
    long offset;

    Tail(FileChannel channel) {
      this.channel = channel;
    }
  }

  private SendLedger(Path dir) throws IOException {
    this.dir = dir.toAbsolutePath().normalize();
    io.onceport.shared.files.PrivateFiles.createDirectories(this.dir);
    this.jvmLock = JVM_LOCKS.computeIfAbsent(this.dir, d -> new ReentrantLock());
    this.lockChannel = io.onceport.shared.files.PrivateFiles.open(this.dir.resolve("ledger.lock"),
        StandardOpenOption.CREATE, StandardOpenOption.WRITE);
  }

  /**
   * Opens the ledger of an activity journal directory and reads every segment in it.
   *
   * @throws JournalException if the directory or a segment cannot be read
   */
  public static SendLedger open(Path dir) {
    Objects.requireNonNull(dir, "dir == null");
    try {
      SendLedger ledger = new SendLedger(dir);
      ledger.locked(() -> null);
      return ledger;
    } catch (IOException e) {
      throw new JournalException("send ledger of " + dir + " cannot be opened: " + e.getMessage(), e);
    }
  }

  /** Whether any segment holds a {@code dispatched} entry under {@code key} (read now). */
  public boolean contains(String key) {
    Objects.requireNonNull(key, "key == null");
    return locked(() -> keys.contains(RecentKeys.hash(key)));
  }

  /**
   * Claims {@code key} for a send: under the ledger lock, reads what every segment grew by, refuses
   * a key already there, else runs {@code write} (which writes the {@code dispatched} line to this
   * process's segment) and remembers the key.
   *
   * @throws SentBefore if the key is in the ledger; {@code write} was not run
   */
  public <T> T claim(String key, Supplier<T> write) {
    Objects.requireNonNull(key, "key == null");
    Objects.requireNonNull(write, "write == null");
    long hash = RecentKeys.hash(key);
    return locked(() -> {
      if (keys.contains(hash)) {
        throw new SentBefore(key);
      }
      T written = write.get();
      keys.add(hash);
      return written;
    });
  }

  /** Keys (sends) in the index. */
  public int size() {
    return locked(keys::size);
  }

  /** Lookups (claims and contains) so far, and the bytes read to keep up: for the cost figures. */
  long lookups() {
    return lookups;
  }

  long bytesRead() {
    return bytesRead;
  }

  private <T> T locked(Supplier<T> body) {
    jvmLock.lock();
    try (FileLock ignored = lockChannel.lock()) {
      refresh();
      lookups++;
      return body.get();
    } catch (IOException e) {
      throw new JournalException("send ledger of " + dir + " unavailable: " + e.getMessage(), e);
    } finally {
      jvmLock.unlock();
    }
  }

  /** Reads what every segment grew by; lists the directory again when it changed (a new writer). */
  private void refresh() throws IOException {
    FileTime modified = Files.getLastModifiedTime(dir);
    if (!modified.equals(listedAt)) {
      listedAt = modified;
      try (DirectoryStream<Path> segments = Files.newDirectoryStream(dir, "*.jsonl")) {
        for (Path segment : segments) {
          if (!tails.containsKey(segment)) {
            try {
              tails.put(segment, new Tail(FileChannel.open(segment, StandardOpenOption.READ)));
            } catch (NoSuchFileException gone) {
              // listed, then removed: nothing to read
            }
          }
        }
      }
    }
    for (Map.Entry<Path, Tail> e : tails.entrySet()) {
      readNew(e.getKey(), e.getValue());
    }
  }

  /** Adds the {@code dispatched} keys of the complete lines a segment grew by. */
  private void readNew(Path segment, Tail tail) throws IOException {
    long size = tail.channel.size();
    if (size < tail.offset) {
      // Only a torn last line is ever truncated, and it is never consumed: a shorter file was replaced.
      log.warn("send ledger: {} shrank from {} to {} bytes; reading it again", segment, tail.offset, size);
      tail.offset = 0;
    }
    if (size == tail.offset) {
      return;
    }
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(size - tail.offset, 1 << 20));
    java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream(512);
    long pos = tail.offset;
    long consumed = tail.offset;
    while (pos < size) {
      buf.clear();
      int n = tail.channel.read(buf, pos);
      if (n <= 0) {
        break;
      }
      bytesRead += n;
      byte[] a = buf.array();
      int from = 0;
      for (int i = 0; i < n; i++) {
        if (a[i] == '\n') {
          line.write(a, from, i - from);
          from = i + 1;
          consumed = pos + i + 1;
          addIfDispatched(segment, line.toByteArray());
          line.reset();
        }
      }
      line.write(a, from, n - from);
      pos += n;
    }
    // An incomplete last line (a write in progress, or torn by a crash) is read again next time.
    tail.offset = consumed;
  }

  private void addIfDispatched(Path segment, byte[] line) {
    if (!endsWith(line, DISPATCHED_SUFFIX)) {
      return;
    }
    String key = topLevelKey(line);
    if (key == null) {
      try {
        JsonNode entry = JSON.readTree(line);
        key = "dispatched".equals(entry.path("transition").asText()) ? entry.path("key").asText(null) : null;
      } catch (IOException e) {
        log.warn("send ledger: an unreadable dispatched line in {} ({}); run onceport audit verify", segment, e.getMessage());
      }
    }
    if (key != null) {
      keys.add(RecentKeys.hash(key));
    }
  }

  /**
   * The top-level {@code key} of a canonical (JCS) line without parsing it: members are sorted, so
   * the last {@code "key":"} is the top-level one (only {@code prev}, {@code seq}, {@code time} and
   * {@code transition} follow it; a {@code key} inside {@code detail} comes earlier). Null when the
   * value holds an escape (then the line is parsed).
   */
  private static String topLevelKey(byte[] line) {
    int at = lastIndexOf(line, KEY_MEMBER);
    if (at < 0) {
      return null;
    }
    int from = at + KEY_MEMBER.length;
    for (int i = from; i < line.length; i++) {
      if (line[i] == '\\') {
        return null;
      }
      if (line[i] == '"') {
        return new String(line, from, i - from, StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private static int lastIndexOf(byte[] a, byte[] b) {
    outer:
    for (int i = a.length - b.length; i >= 0; i--) {
      for (int j = 0; j < b.length; j++) {
        if (a[i + j] != b[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static boolean endsWith(byte[] line, byte[] suffix) {
    if (line.length < suffix.length) {
      return false;
    }
    for (int i = 0; i < suffix.length; i++) {
      if (line[line.length - suffix.length + i] != suffix[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    jvmLock.lock();
    try {
      for (Tail tail : tails.values()) {
        try {
          tail.channel.close();
        } catch (IOException ignored) {
          // best effort
        }
      }
      tails.clear();
      lockChannel.close();
    } catch (IOException ignored) {
      // best effort
    } finally {
      jvmLock.unlock();
    }
  }
}
