package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Journal} segment's durability: which written entries are forced, the group commit that
 * forces them (a waiting appender or the background syncer, see the journal's javadoc), the
 * futures of asynchronous appends, and the failure after which nothing is durable any more. The
 * journal reports each write ({@link #beginAppend}, {@link #wrote}, {@link #endAppend}) and asks
 * for durability ({@link #awaitDurable}, {@link #durable}).
 *
 * <p><b>Group commit.</b> Whoever finds no force running forces once for every line written so far
 * — the first synchronous waiter, or the background syncer when only asynchronous appends are
 * pending — so concurrent appenders share one fsync. Before forcing, a waiting appender that
 * becomes the syncer waits up to {@link #GATHER_NANOS} for appenders that are writing at that
 * moment and, adaptively, until as many lines are unforced as the previous waited-for force
 * covered: the writers that force released are usually about to append again, and without the
 * wait each force would cover only the few that were scheduled first. A lone writer (previous
 * batch of one) never waits.
 */
final class GroupCommit {
  /** Longest a syncer waits for appenders that are writing before it forces. */
  static final long GATHER_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

  private final String name;
  private final JournalOptions options;
  private final FileChannel channel;
  private volatile long written;

  private final ReentrantLock syncLock = new ReentrantLock();
  private final Condition syncDone = syncLock.newCondition();
  private final Condition syncWanted = syncLock.newCondition();
  private long synced;
  private boolean syncing;
  /** Lines the last force by a waiting appender covered: the next one gathers that many. Guarded by syncLock. */
  private long lastBatch = 1;
  /** Futures of asynchronous appends not yet durable. Guarded by syncLock. */
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  /** Appenders between entering an append and finishing their write: a syncer waits for them. */
  private final AtomicInteger appending = new AtomicInteger();
  private final AtomicLong fsyncs = new AtomicLong();
  private final Thread syncer;

  private record Waiting(Appended appended, CompletableFuture<Appended> future) {}

  private volatile IOException failure;
  private volatile boolean closed;

  /**
   * @param name the journal's name, for messages
   * @param channel the segment's write channel, forced here
   * @param entries the entries already in the segment (durable: checked on open)
   */
  GroupCommit(String name, JournalOptions options, FileChannel channel, long entries) {
    this.name = name;
    this.options = options;
    this.channel = channel;
    this.written = entries;
    this.synced = entries;
    this.syncer = new Thread(this::syncLoop, "journal-sync-" + name);
    syncer.setDaemon(true);
  }

  /** Starts the background syncer. */
  void start() {
    syncer.start();
  }

  /** Entries written (durable once the appends that wrote them returned). */
  long written() {
    return written;
  }

  long fsyncCount() {
    return fsyncs.get();
  }

  /** The write or force failure after which the journal accepts no appends, or null. */
  IOException failure() {
    return failure;
  }

  /** A write failed: the page cache can no longer be trusted, nothing more becomes durable. */
  void fail(IOException e) {
    failure = e;
  }

  /** An appender enters: a syncer that gathers waits for it to finish its write. */
  void beginAppend() {
    appending.incrementAndGet();
  }

  /** Entry {@code seq} is written (the caller holds the journal's write lock). */
  void wrote(long seq) {
    written = seq;
  }

  void endAppend() {
    appending.decrementAndGet();
  }

  /** A future that completes with {@code result} once it is durable, or exceptionally if it cannot become so. */
  CompletableFuture<Appended> durable(Appended result) {
    CompletableFuture<Appended> durable = new CompletableFuture<>();
    syncLock.lock();
    try {
      if (synced >= result.seq()) {
        durable.complete(result);
      } else if (failure != null) {
        durable.completeExceptionally(unavailable(failure));
      } else {
        waiting.add(new Waiting(result, durable));
        if (!syncing) {
          syncWanted.signal();
        }
      }
    } finally {
      syncLock.unlock();
    }
    return durable;
  }

  /** Returns once entry {@code seq} is durable, forcing itself when no force is running. */
  void awaitDurable(long seq) {
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
        syncOnce(true);
      }
    } finally {
      syncLock.unlock();
    }
  }

  /**
   * One group commit, by the caller (holding syncLock, no force running): forces once for
   * everything written, then completes what became durable. A waiting appender first gathers the
   * appenders writing right now (they would otherwise wait for the next force); the background
   * syncer does not, as nobody waits on it.
   */
  private void syncOnce(boolean gather) {
    syncing = true;
    long base = synced;
    long want = base + (gather ? lastBatch : 0);
    syncLock.unlock();
    IOException error = null;
    long target;
    try {
      long gatherUntil = gather && options.fsync() ? System.nanoTime() + GATHER_NANOS : 0;
      while ((appending.get() > 0 || written < want) && System.nanoTime() < gatherUntil) {
        Thread.yield(); // two cores: let the writers we wait for run
      }
      target = written;
      try {
        if (options.fsync()) {
          channel.force(false);
          fsyncs.incrementAndGet();
        }
      } catch (IOException e) {
        error = e;
      }
    } finally {
      syncLock.lock();
    }
    syncing = false;
    if (gather && error == null) {
      lastBatch = Math.max(1, target - base);
    }
    List<Waiting> done = settle(error, target);
    if (!waiting.isEmpty() || written > synced) {
      syncWanted.signal();
    }
    if (!done.isEmpty()) {
      completeOutsideLock(done, error);
    }
    // Only now wake the synchronous appenders: one that returns has every earlier entry's future
    // completed (they were forced by the same or an earlier force).
    syncDone.signalAll();
  }

  /**
   * After a force (holding syncLock): a failed one fails every waiting append and the log; a good
   * one advances {@code synced} to {@code target} and takes the appends it made durable.
   */
  private List<Waiting> settle(IOException error, long target) {
    List<Waiting> done = new ArrayList<>();
    if (error != null) {
      if (failure == null) {
        failure = error;
      }
      done.addAll(waiting);
      waiting.clear();
    } else {
      synced = Math.max(synced, target);
      // Nearly in sequence order (appenders enqueue right after writing), so look at them all.
      for (java.util.Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
        Waiting w = it.next();
        if (w.appended().seq() <= synced) {
          done.add(w);
          it.remove();
        }
      }
    }
    return done;
  }

  /**
   * Completes the settled appends' futures outside syncLock (held on entry and again on return): a
   * dependent stage must not run while we hold it.
   */
  private void completeOutsideLock(List<Waiting> done, IOException failed) {
    syncLock.unlock();
    try {
      for (Waiting w : done) {
        if (failed == null) {
          w.future().complete(w.appended());
        } else {
          w.future().completeExceptionally(unavailable(failed));
        }
      }
    } finally {
      syncLock.lock();
    }
  }

  /** The background syncer: forces whenever asynchronous appends wait and nobody else is forcing. */
  private void syncLoop() {
    syncLock.lock();
    try {
      while (!closed) {
        if (failure == null && !syncing && !waiting.isEmpty()) {
          syncOnce(false);
          continue;
        }
        try {
          syncWanted.await(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          if (closed) {
            return;
          }
        }
      }
    } finally {
      syncLock.unlock();
    }
  }

  JournalException unavailable(IOException cause) {
    String reason = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return new JournalException("journal " + name + " cannot write durably: " + reason, cause);
  }

  /** Stops the syncer; asynchronous appends still pending complete exceptionally. */
  void close() {
    closed = true;
    syncLock.lock();
    List<Waiting> left;
    try {
      syncWanted.signalAll();
      left = new ArrayList<>(waiting);
      waiting.clear();
    } finally {
      syncLock.unlock();
    }
    syncer.interrupt();
    for (Waiting w : left) {
      w.future().completeExceptionally(new JournalException("journal " + name + " closed before the entry was durable"));
    }
  }
}
