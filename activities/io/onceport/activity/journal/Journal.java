package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One writer's append-only, hash-chained journal segment: {@code <dir>/<writer-id>.jsonl}, one
 * canonical JSON entry per line (see {@link JournalFormat}), plus signed checkpoints under
 * {@code <dir>/checkpoints/<writer-id>/}.
 *
 * <p><b>One writer per segment.</b> Every process appends only to its own segment and holds an
 * exclusive {@link FileLock} on {@code <writer-id>.lock} for as long as the journal is open, so two
 * processes (or two opens in one JVM) can never interleave writes in one file. Several workers
 * share a data dir by using distinct writer ids; each segment is its own chain, Merkle tree and
 * checkpoint series (origin {@code onceport/<writer-id>/<journal>}).
 *
 * <p><b>Crash contract (write, then commit).</b> An append writes the whole line including its
 * newline at the end of the file; the newline-terminated line is the commit record. A crash can
 * therefore leave at most one incomplete last line without a newline, belonging to a write that
 * never finished; {@link #open} truncates exactly that and nothing else. Any other damage (a bad
 * line in the middle, a complete last line that fails its checks, fewer entries than a signed
 * checkpoint covers) makes {@code open} fail: the journal never silently accepts or rewrites
 * history. If a write or force fails, the journal stops accepting appends (the page cache can no
 * longer be trusted after a failed fsync), every waiting append fails and every pending
 * asynchronous append completes exceptionally; reopen to recover.
 *
 * <p><b>Two ways to append, one durability rule.</b> {@link #append} returns once its entry is
 * durable (forced with {@code fdatasync}): the entry survives a crash of this process and of the
 * machine. {@link #appendAsync} returns once its line is <em>written</em> — handed to the operating
 * system with {@code write(2)}, so it survives a crash of this process (kill -9, an OOM kill) but
 * not necessarily of the machine — and its {@link Pending#durable()} future completes once the
 * entry is forced. Forces cover the file, not entries: whenever any entry is durable, so is every
 * entry before it. An asynchronous entry therefore becomes durable at the latest with the next
 * synchronous append or checkpoint, and without one within a group-commit interval (the background
 * syncer forces as soon as unforced lines exist). What a machine crash can cost is only what was
 * written after the last completed force; if that loss is not a clean suffix (the file system wrote
 * later pages but not earlier ones), {@code open} refuses the segment as damaged, exactly as for any
 * other unexplained damage. Only the entry that must precede an effect — the {@code dispatched}
 * entry, fsynced before the first byte goes to the target ({@link JournalDispatchJournal}) — needs
 * the synchronous form; everything the workflow history also holds may use the asynchronous one.
 *
 * <p><b>Group commit.</b> Appenders write under a lock and wait for durability outside it, so
 * concurrent appenders share one fsync: see {@link GroupCommit}.
 *
 * <p><b>Idempotence, within a bounded window.</b> An append whose key is among the segment's last
 * {@link JournalOptions#keyWindow()} entries (65,536 by default) returns the existing entry (after
 * making sure it is durable) instead of writing a second one. The index holding those keys is a
 * fixed-size {@link RecentKeys} (a 64-bit key hash and the line's offset, 24 bytes per entry of the
 * window, 1.5 MB by default, allocated once), so a journal that runs all week holds no more memory than on its first
 * hour; on a hash match the line is read back and its key compared, so a collision never hides a
 * new entry. On open the window is refilled from the file's last entries. The window is what the
 * retries that re-append a key need: an activity retry, a re-run of a failed workflow task's local
 * activity or a dispatch attempt's retry re-appends within its retry schedule — seconds to
 * minutes — while 65,536 entries is about 9,800 calls (6.7 entries each), about six minutes at
 * the 26 side-effecting calls/s one gateway reached at C=16 on the reference machine. A re-append of a key older than the window
 * writes a second line under the same key: a new, correctly chained entry (verify still passes,
 * the chain and checkpoints are untouched), and the transition's metric is counted twice. Keys are
 * unique per segment: a retry on another worker process writes to that worker's segment.
 */
public final class Journal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Journal.class);
  /**
   * An asynchronous append: the entry as written (its line is in the file, see the crash contract)
   * and a future that completes with it once it is durable, or exceptionally if the journal could
   * not make it durable.
   */
  public record Pending(Appended appended, CompletableFuture<Appended> durable) {
    public Pending {
      Objects.requireNonNull(appended, "appended == null");
      Objects.requireNonNull(durable, "durable == null");
    }
  }

  private final JournalOptions options;
  private final String name;
  private final Path segment;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final FileChannel channel;
  /** Signs, stores and checks the segment's checkpoints. */
  private final Checkpoints checkpoints;

  private final ReentrantLock writeLock = new ReentrantLock();
  /** Keys of the last {@code keyWindow} entries and the lines they confirm against; guarded by writeLock. */
  private final KeyWindow window;
  private final MerkleTree.Accumulator tree;
  private long end;
  private long nextSeq;
  private String prevHash;
  /** What was written and what is durable: the group commit, its syncer and the journal's failure. */
  private final GroupCommit commit;

  private volatile boolean closed;

  private Journal(JournalOptions options, FileChannel lockChannel, FileLock lock) throws IOException {
    this.options = options;
    this.name = options.journalName() + "/" + options.writerId();
    this.segment = options.dir().resolve(options.writerId() + ".jsonl");
    this.checkpoints = new Checkpoints(this, options, name);
    this.lockChannel = lockChannel;
    this.lock = lock;

    Checkpoint latest = checkpoints.latestSigned();
    RecentKeys keys = new RecentKeys(options.keyWindow());
    SegmentScan scan = SegmentScan.scan(segment, false,
        (c, offset) -> keys.add(RecentKeys.hash(c.key()), offset),
        latest == null ? -1 : latest.size());
    if (scan.problem != null && !scan.tornTail) {
      throw new JournalException("journal " + name + " is damaged, refusing to append: "
          + scan.problem.message() + " (run onceport audit verify)");
    }
    checkpoints.checkAgainst(latest, scan);
    this.channel = options.opener().open(segment);
    if (scan.tornTail) {
      log.warn("journal {}: truncating an incomplete last line of {} bytes at offset {} left by a crash",
          name, scan.fileLength - scan.validEnd, scan.validEnd);
      channel.truncate(scan.validEnd);
      channel.force(true);
    }
    this.window = new KeyWindow(name, keys, segment);
    this.tree = scan.accumulator;
    this.end = scan.validEnd;
    this.nextSeq = scan.entries + 1;
    this.prevHash = scan.lastHash;
    this.commit = new GroupCommit(name, options, channel, scan.entries);

    checkpoints.start();
    commit.start();
  }

  /**
   * Opens (creating if needed) this writer's segment, holding its lock until {@link #close()}.
   *
   * @throws JournalException if another process or another open holds the segment, or the segment
   *     is damaged or shorter than its latest signed checkpoint
   */
  public static Journal open(JournalOptions options) {
    Objects.requireNonNull(options, "options == null");
    String name = options.journalName() + "/" + options.writerId();
    FileChannel lockChannel = null;
    try {
      io.onceport.shared.files.PrivateFiles.createDirectories(options.dir());
      lockChannel = io.onceport.shared.files.PrivateFiles.open(options.dir().resolve(options.writerId() + ".lock"),
          StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = lockChannel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw new JournalException("journal " + name + " is held by another writer"
            + " (each process needs its own writer id)");
      }
      return new Journal(options, lockChannel, lock);
    } catch (IOException e) {
      closeQuietly(lockChannel);
      throw new JournalException("journal " + name + " cannot be opened: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(lockChannel);
      throw e;
    }
  }

  /** "activity/worker-1": journal name and writer id. */
  public String name() {
    return name;
  }

  public String origin() {
    return options.origin();
  }

  public Path segment() {
    return segment;
  }

  /** Number of entries written (durable once the appends that wrote them returned). */
  public long size() {
    return commit.written();
  }

  /** How many times the segment was forced; less than the append count under concurrency. */
  public long fsyncCount() {
    return commit.fsyncCount();
  }

  /**
   * The entry written under {@code appendKey}, if it is among the last {@link
   * JournalOptions#keyWindow()} entries (the idempotence window, see the class javadoc).
   */
  public Optional<Appended> find(String appendKey) {
    Objects.requireNonNull(appendKey, "appendKey == null");
    writeLock.lock();
    try {
      return Optional.ofNullable(window.find(appendKey, RecentKeys.hash(appendKey)));
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Appends one entry and returns once it is durable; if an entry with {@code appendKey} exists,
   * returns it (existing = true) without writing, once it is durable.
   *
   * @param payload JSON-compatible fields; must not use seq, time, prev, key or hash
   * @throws JournalException if the entry cannot be made durable
   */
  public Appended append(Map<String, Object> payload, String appendKey) {
    Appended result = writeEntry(payload, appendKey);
    commit.awaitDurable(result.seq());
    scheduleCheckpoint(result);
    return result;
  }

  /**
   * Appends one entry without waiting for durability: returns once its line is written (it
   * survives a crash of this process), with a future that completes once it is durable (see the
   * class javadoc). An entry already written under {@code appendKey} is returned (existing = true)
   * with the same kind of future.
   *
   * @param payload JSON-compatible fields; must not use seq, time, prev, key or hash
   * @throws JournalException if the entry cannot be written (the journal failed or is closed)
   */
  public Pending appendAsync(Map<String, Object> payload, String appendKey) {
    Appended result = writeEntry(payload, appendKey);
    CompletableFuture<Appended> durable = commit.durable(result);
    scheduleCheckpoint(result);
    return new Pending(result, durable);
  }

  /** Writes the entry (or finds it); durability is the caller's business. */
  private Appended writeEntry(Map<String, Object> payload, String appendKey) {
    Objects.requireNonNull(payload, "payload == null");
    Objects.requireNonNull(appendKey, "appendKey == null");
    commit.beginAppend();
    try {
      writeLock.lock();
      try {
        checkUsable();
        long keyHash = RecentKeys.hash(appendKey);
        Appended existing = window.find(appendKey, keyHash);
        if (existing != null) {
          return existing;
        }
        long offset = end;
        String time = Instant.now(options.clock()).truncatedTo(ChronoUnit.MILLIS).toString();
        JournalFormat.Encoded e = JournalFormat.encode(nextSeq, time, prevHash, appendKey, payload);
        byte[] line = (e.line() + "\n").getBytes(StandardCharsets.UTF_8);
        write(line);
        tree.append(MerkleTree.leafHash(Arrays.copyOf(line, line.length - 1)));
        prevHash = e.hash();
        nextSeq++;
        commit.wrote(e.seq());
        window.add(keyHash, offset);
        return new Appended(e.seq(), e.hash(), false);
      } finally {
        writeLock.unlock();
      }
    } finally {
      commit.endAppend();
    }
  }

  private void scheduleCheckpoint(Appended result) {
    if (!result.existing() && options.checkpointEvery() > 0
        && result.seq() % options.checkpointEvery() == 0 && !closed) {
      checkpoints.soon();
    }
  }

  private void write(byte[] line) {
    ByteBuffer buf = ByteBuffer.wrap(line);
    long pos = end;
    try {
      while (buf.hasRemaining()) {
        pos += channel.write(buf, pos);
      }
      end = pos;
    } catch (IOException e) {
      try {
        channel.truncate(end);
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      commit.fail(e);
      throw unavailable(e);
    }
  }

  /**
   * Makes everything written durable, signs a checkpoint of the current tree and stores it; returns
   * the signed note. Returns the previous note if the journal did not grow since.
   */
  public String checkpoint() {
    return checkpoints.checkpoint();
  }

  /** The latest checkpoint this process signed, if any. */
  public Optional<String> latestCheckpoint() {
    return checkpoints.latest();
  }

  /** The tree a checkpoint signs: its size and root, read under the write lock from a usable journal. */
  record Tree(long size, byte[] root) {}

  Tree tree() {
    writeLock.lock();
    try {
      checkUsable();
      return new Tree(tree.size(), tree.root());
    } finally {
      writeLock.unlock();
    }
  }

  /** Returns once entry {@code seq} is durable. */
  void awaitDurable(long seq) {
    commit.awaitDurable(seq);
  }

  /** Open and not failed: a background checkpoint is worth signing. */
  boolean usable() {
    return !closed && commit.failure() == null;
  }

  private void checkUsable() {
    if (closed) {
      throw new JournalException("journal " + name + " is closed");
    }
    IOException failure = commit.failure();
    if (failure != null) {
      throw unavailable(failure);
    }
  }

  private JournalException unavailable(IOException cause) {
    return commit.unavailable(cause);
  }

  /**
   * Signs a final checkpoint (if the journal is healthy; this makes every written entry durable and
   * completes pending asynchronous appends), then releases the segment. Asynchronous appends still
   * pending after a failure complete exceptionally.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    try {
      if (commit.failure() == null) {
        checkpoint();
      }
    } catch (RuntimeException e) {
      log.warn("journal {}: final checkpoint failed: {}", name, e.getMessage());
    } finally {
      closed = true;
      commit.close();
      checkpoints.shutdown();
      closeQuietly(channel);
      closeQuietly(window);
      try {
        lock.release();
      } catch (IOException ignored) {
        // closing the channel releases it anyway
      }
      closeQuietly(lockChannel);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception ignored) {
        // best effort
      }
    }
  }
}
