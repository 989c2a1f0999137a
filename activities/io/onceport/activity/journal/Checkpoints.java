package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Journal} segment's signed checkpoints under {@code <dir>/checkpoints/<writer-id>/}:
 * signs the current Merkle tree once everything it covers is durable, in the background every
 * {@link JournalOptions#checkpointInterval()} and every {@link JournalOptions#checkpointEvery()}
 * entries, and on open refuses a segment shorter than or different from its latest checkpoint.
 */
final class Checkpoints {
  private static final Logger log = LoggerFactory.getLogger(Journal.class);

  private final Journal journal;
  private final JournalOptions options;
  private final String name;
  private final Path checkpointDir;
  /** Set once by {@link #start()}, in the journal's constructor, before the journal is published. */
  private ScheduledExecutorService checkpointer;

  private final Object checkpointMonitor = new Object();
  private long lastCheckpointSize = -1;
  private String lastCheckpoint;

  Checkpoints(Journal journal, JournalOptions options, String name) {
    this.journal = journal;
    this.options = options;
    this.name = name;
    this.checkpointDir = CheckpointStore.dir(options.dir(), options.writerId());
  }

  /** Starts the background checkpoints (the journal is open and checked). */
  void start() {
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

  /** A background checkpoint now (every {@code checkpointEvery} entries). */
  void soon() {
    try {
      checkpointer.execute(this::backgroundCheckpoint);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // closing: close() signs the final checkpoint
    }
  }

  void shutdown() {
    checkpointer.shutdownNow();
  }

  /**
   * Makes everything written durable, signs a checkpoint of the current tree and stores it; returns
   * the signed note. Returns the previous note if the journal did not grow since.
   */
  String checkpoint() {
    synchronized (checkpointMonitor) {
      Journal.Tree tree = journal.tree();
      long size = tree.size();
      byte[] root = tree.root();
      // Everything the checkpoint covers is durable before it is signed (and pending asynchronous
      // appends complete with it).
      journal.awaitDurable(size);
      if (size == lastCheckpointSize && lastCheckpoint != null) {
        return lastCheckpoint;
      }
      String note = options.signer().sign(new Checkpoint(options.origin(), size, root).body());
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
  Optional<String> latest() {
    synchronized (checkpointMonitor) {
      return Optional.ofNullable(lastCheckpoint);
    }
  }

  private void backgroundCheckpoint() {
    try {
      if (journal.usable() && journal.size() != lastCheckpointSizeSnapshot()) {
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

  /** The latest checkpoint stored for this segment, verified, or null. */
  Checkpoint latestSigned() throws IOException {
    List<Path> files = CheckpointStore.list(checkpointDir);
    if (files.isEmpty()) {
      return null;
    }
    Path latest = files.get(files.size() - 1);
    try {
      Checkpoint cp = Checkpoint.parse(options.signer().verifier().open(Files.readString(latest)));
      if (!cp.origin().equals(options.origin())) {
        throw new IllegalArgumentException("origin " + cp.origin() + " is not " + options.origin());
      }
      return cp;
    } catch (RuntimeException e) {
      throw new JournalException("journal " + name + ": checkpoint " + latest.getFileName()
          + " does not verify: " + e.getMessage());
    }
  }

  /** Refuses a segment shorter than, or different from, what {@code cp} signed. */
  void checkAgainst(Checkpoint cp, SegmentScan scan) {
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
}
