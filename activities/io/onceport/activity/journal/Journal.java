package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
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
 * newline at the end of the file, then forces the file ({@code fdatasync}) before it returns; the
 * newline-terminated line is the commit record. A crash can therefore leave at most one
 * incomplete last line without a newline, belonging to an append that never returned; {@link
 * #open} truncates exactly that and nothing else. Any other damage (a bad line in the middle, a
 * complete last line that fails its checks, fewer entries than a signed checkpoint covers) makes
 * {@code open} fail: the journal never silently accepts or rewrites history. If a write or force
 * fails, the journal stops accepting appends (the page cache can no longer be trusted after a
 * failed fsync) and every waiting append fails; reopen to recover.
 *
 * <p><b>Group commit.</b> Appenders write under a lock, then wait for durability outside it; the
 * first waiter becomes the syncer and forces once for every line written so far, so concurrent
 * appenders share one fsync.
 *
 * <p><b>Idempotence.</b> An append whose key is already in the segment returns the existing entry
 * (after making sure it is durable) instead of writing a second one. The key index is rebuilt from
 * the file on open. Keys are unique per segment: a retry on another worker process writes to that
 * worker's segment.
 */
public final class Journal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Journal.class);

  private final JournalOptions options;
  private final String name;
  private final Path segment;
  private final Path checkpointDir;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final FileChannel channel;
  private final ScheduledExecutorService checkpointer;

  private final ReentrantLock writeLock = new ReentrantLock();
  private final Map<String, Appended> index = new HashMap<>();
  private final MerkleTree.Accumulator tree;
  private long end;
  private long nextSeq;
  private String prevHash;
  private volatile long written;

  private final ReentrantLock syncLock = new ReentrantLock();
  private final Condition syncDone = syncLock.newCondition();
  private long synced;
  private boolean syncing;
  private final AtomicLong fsyncs = new AtomicLong();

  private volatile IOException failure;
  private volatile boolean closed;

  private final Object checkpointMonitor = new Object();
  private long lastCheckpointSize = -1;
  private String lastCheckpoint;

  private Journal(JournalOptions options, FileChannel lockChannel, FileLock lock) throws IOException {
    this.options = options;
    this.name = options.journalName() + "/" + options.writerId();
    this.segment = options.dir().resolve(options.writerId() + ".jsonl");
    this.checkpointDir = CheckpointStore.dir(options.dir(), options.writerId());
    this.lockChannel = lockChannel;
    this.lock = lock;

    Checkpoint latest = latestSignedCheckpoint();
    Map<String, Appended> keys = new HashMap<>();
    SegmentScan scan = SegmentScan.scan(segment, false,
        c -> keys.put(c.key(), new Appended(c.seq(), c.hash(), true)),
        latest == null ? -1 : latest.size());
    if (scan.problem != null && !scan.tornTail) {
      throw new JournalException("journal " + name + " is damaged, refusing to append: "
          + scan.problem.message() + " (run onceport audit verify)");
    }
    checkAgainst(latest, scan);
    this.channel = options.opener().open(segment);
    if (scan.tornTail) {
      log.warn("journal {}: truncating an incomplete last line of {} bytes at offset {} left by a crash",
          name, scan.fileLength - scan.validEnd, scan.validEnd);
      channel.truncate(scan.validEnd);
      channel.force(true);
    }
    this.index.putAll(keys);
    this.tree = scan.accumulator;
    this.end = scan.validEnd;
    this.nextSeq = scan.entries + 1;
    this.prevHash = scan.lastHash;
    this.written = scan.entries;
    this.synced = scan.entries;

    this.checkpointer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "journal-checkpoint-" + name);
      t.setDaemon(true);
      return t;
    });
    long period = options.checkpointInterval().toMillis();
    if (period > 0) {
      checkpointer.scheduleWithFixedDelay(this::backgroundCheckpoint, period, period, TimeUnit.MILLISECONDS);
    }
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
      io.onceport.activity.files.PrivateFiles.createDirectories(options.dir());
      lockChannel = io.onceport.activity.files.PrivateFiles.open(options.dir().resolve(options.writerId() + ".lock"),
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
    return written;
  }

  /** How many times the segment was forced; less than the append count under concurrency. */
  public long fsyncCount() {
    return fsyncs.get();
  }

  /** The entry already written under {@code appendKey}, if any. */
  public Optional<Appended> find(String appendKey) {
    writeLock.lock();
    try {
      return Optional.ofNullable(index.get(appendKey));
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Appends one entry and returns once it is durable; if an entry with {@code appendKey} exists,
   * returns it (existing = true) without writing.
   *
   * @param payload JSON-compatible fields; must not use seq, time, prev, key or hash
   * @throws JournalException if the entry cannot be made durable
   */
  public Appended append(Map<String, Object> payload, String appendKey) {
    Objects.requireNonNull(payload, "payload == null");
    Objects.requireNonNull(appendKey, "appendKey == null");
    Appended result;
    writeLock.lock();
    try {
      checkUsable();
      Appended existing = index.get(appendKey);
      if (existing != null) {
        result = existing.existing() ? existing : new Appended(existing.seq(), existing.hash(), true);
      } else {
        String time = Instant.now(options.clock()).truncatedTo(ChronoUnit.MILLIS).toString();
        JournalFormat.Encoded e = JournalFormat.encode(nextSeq, time, prevHash, appendKey, payload);
        byte[] line = (e.line() + "\n").getBytes(StandardCharsets.UTF_8);
        write(line);
        tree.append(MerkleTree.leafHash(Arrays.copyOf(line, line.length - 1)));
        prevHash = e.hash();
        nextSeq++;
        written = e.seq();
        index.put(appendKey, new Appended(e.seq(), e.hash(), true));
        result = new Appended(e.seq(), e.hash(), false);
      }
    } finally {
      writeLock.unlock();
    }
    awaitDurable(result.seq());
    if (!result.existing() && options.checkpointEvery() > 0
        && result.seq() % options.checkpointEvery() == 0) {
      checkpointer.execute(this::backgroundCheckpoint);
    }
    return result;
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
      failure = e;
      throw unavailable(e);
    }
  }

  private void awaitDurable(long seq) {
    syncLock.lock();
    try {
      while (synced < seq) {
        if (failure != null) {
          throw unavailable(failure);
        }
        if (syncing) {
          syncDone.awaitUninterruptibly();
          continue;
        }
        syncing = true;
        long target = written;
        syncLock.unlock();
        IOException error = null;
        try {
          if (options.fsync()) {
            channel.force(false);
            fsyncs.incrementAndGet();
          }
        } catch (IOException e) {
          error = e;
        } finally {
          syncLock.lock();
        }
        syncing = false;
        if (error != null) {
          failure = error;
        } else {
          synced = Math.max(synced, target);
        }
        syncDone.signalAll();
      }
    } finally {
      syncLock.unlock();
    }
  }

  /**
   * Makes everything written durable, signs a checkpoint of the current tree and stores it; returns
   * the signed note. Returns the previous note if the journal did not grow since.
   */
  public String checkpoint() {
    synchronized (checkpointMonitor) {
      long size;
      byte[] root;
      writeLock.lock();
      try {
        checkUsable();
        if (options.fsync()) {
          try {
            channel.force(false);
            fsyncs.incrementAndGet();
          } catch (IOException e) {
            failure = e;
            throw unavailable(e);
          }
        }
        size = tree.size();
        root = tree.root();
      } finally {
        writeLock.unlock();
      }
      if (size == lastCheckpointSize && lastCheckpoint != null) {
        return lastCheckpoint;
      }
      String note = options.signer().sign(new Checkpoint(origin(), size, root).body());
      try {
        CheckpointStore.write(checkpointDir, size, note);
      } catch (IOException e) {
        throw new JournalException("journal " + name + ": cannot store checkpoint: " + e.getMessage(), e);
      }
      lastCheckpointSize = size;
      lastCheckpoint = note;
      return note;
    }
  }

  /** The latest checkpoint this process signed, if any. */
  public Optional<String> latestCheckpoint() {
    synchronized (checkpointMonitor) {
      return Optional.ofNullable(lastCheckpoint);
    }
  }

  private void backgroundCheckpoint() {
    try {
      if (!closed && failure == null && written != lastCheckpointSizeSnapshot()) {
        checkpoint();
      }
    } catch (RuntimeException e) {
      log.warn("journal {}: checkpoint failed: {}", name, e.getMessage());
    }
  }

  private long lastCheckpointSizeSnapshot() {
    synchronized (checkpointMonitor) {
      return lastCheckpointSize;
    }
  }

  private Checkpoint latestSignedCheckpoint() throws IOException {
    List<Path> files = CheckpointStore.list(checkpointDir);
    if (files.isEmpty()) {
      return null;
    }
    Path latest = files.get(files.size() - 1);
    try {
      Checkpoint cp = Checkpoint.parse(options.signer().verifier().open(Files.readString(latest)));
      if (!cp.origin().equals(origin())) {
        throw new IllegalArgumentException("origin " + cp.origin() + " is not " + origin());
      }
      return cp;
    } catch (RuntimeException e) {
      throw new JournalException("journal " + name + ": checkpoint " + latest.getFileName()
          + " does not verify: " + e.getMessage());
    }
  }

  private void checkAgainst(Checkpoint cp, SegmentScan scan) {
    if (cp == null) {
      return;
    }
    if (cp.size() > scan.entries) {
      throw new JournalException("journal " + name + " has " + scan.entries
          + " entries but its checkpoint signed " + cp.size()
          + " (truncated or rolled back), refusing to append");
    }
    if (!Arrays.equals(cp.root(), scan.capturedRoot)) {
      throw new JournalException("journal " + name + ": the first " + cp.size()
          + " entries do not match the signed checkpoint root (rewritten), refusing to append");
    }
    lastCheckpointSize = cp.size() == scan.entries ? cp.size() : -1;
  }

  private void checkUsable() {
    if (closed) {
      throw new JournalException("journal " + name + " is closed");
    }
    if (failure != null) {
      throw unavailable(failure);
    }
  }

  private JournalException unavailable(IOException cause) {
    String reason = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return new JournalException("journal " + name + " cannot write durably: " + reason, cause);
  }

  /** Signs a final checkpoint (if the journal is healthy), then releases the segment. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    try {
      if (failure == null) {
        checkpoint();
      }
    } catch (RuntimeException e) {
      log.warn("journal {}: final checkpoint failed: {}", name, e.getMessage());
    } finally {
      closed = true;
      checkpointer.shutdownNow();
      closeQuietly(channel);
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
