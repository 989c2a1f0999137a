package io.onceport.frontend.temporal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.onceport.workflow.execution.ExecutionRecord;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One waiter per execution: every caller on this front end that waits for an execution to change —
 * a {@code tools/call} waiting for its outcome, an SSE stream sending progress, a {@code tasks/result}
 * — shares one {@code awaitChange} update per execution instead of sending one each. Temporal admits
 * at most 10 in-flight updates per workflow execution: a thousand streaming callers of one intent
 * would be turned away (and their completions together exceed the 4 MiB gRPC message limit); here
 * they cost the workflow one waiting update and one record per change. Measured (issue 27, {@code
 * StormEndToEndTest} with the watches switched off): the 1,000-call storm's followers made the
 * engine refuse a 10.2 MB message (RESOURCE_EXHAUSTED, 10,245,778 bytes against 4,194,304) and their
 * waits timed out.
 *
 * <p>The poll runs on its own thread so that a caller can stop waiting (its deadline, a
 * cancellation) without abandoning a request in flight. When the run has closed, the final record is
 * read once and kept. Bounded (Caffeine): {@value #MAX_WATCHES} executions, each forgotten {@link
 * #MAX_AGE} after its last use — a settled one (its run closed, or its record terminal) {@link
 * #SETTLED_AGE} after its last use, since a final record is kilobytes and holding every finished
 * execution made memory grow with the call rate. Forgetting is safe: the next waiter polls the run
 * again, and a closed run answers with its final record from history. A caller already waiting keeps
 * its watch. One thing only the watch knows: an answer handed over in band before its run records it
 * (within the delivery grace).
 */
final class ExecutionWatches {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutionWatches.class);
  static final int MAX_WATCHES = 10_000;
  static final Duration MAX_AGE = Duration.ofMinutes(10);
  /** How long a settled execution's watch is kept after its last use. */
  static final Duration SETTLED_AGE = Duration.ofSeconds(10);

  /** The {@code awaitChange} update on one run; throws when the run is closed. */
  interface Poller {
    ExecutionRecord awaitChange(ExecutionLocation location, long afterVersion, long waitMillis);
  }

  private final Cache<String, Watch> watches;
  private final Poller poll;
  private final Function<ExecutionLocation, ExecutionRecord> read;
  private final Executor executor;
  private final Duration pollWait;

  /**
   * @param poll the {@code awaitChange} update
   * @param read the record of a run as it stands (its final record once closed)
   * @param pollWait how long one {@code awaitChange} waits in the workflow
   * @param clock monotonic nanoseconds of the bounds ({@code System::nanoTime}; tests move it on)
   */
  ExecutionWatches(Poller poll, Function<ExecutionLocation, ExecutionRecord> read, Executor executor, Duration pollWait,
      java.util.function.LongSupplier clock) {
    this.watches = Caffeine.newBuilder()
        .maximumSize(MAX_WATCHES)
        .expireAfter(Expiry.<String, Watch>accessing((k, w) -> w.settled() ? SETTLED_AGE : MAX_AGE))
        .ticker(clock::getAsLong)
        .executor(Runnable::run)
        .build();
    this.poll = poll;
    this.read = read;
    this.executor = executor;
    this.pollWait = pollWait;
  }

  private static final class Watch {
    final ExecutionLocation location;
    final String key;
    // Written under the watch's lock; volatile because the map reads them (under its own lock) to classify.
    volatile ExecutionRecord latest;
    volatile boolean closed;
    CompletableFuture<Void> inFlight;

    Watch(ExecutionLocation location, String key) {
      this.location = location;
      this.key = key;
    }

    /** Nothing left to wait for but its delivery: the run closed, or its record is terminal. */
    boolean settled() {
      ExecutionRecord r = latest;
      return closed || r != null && r.state().isTerminal();
    }
  }

  private static String key(ExecutionLocation location) {
    return location.executionId() == null ? location.runId() : location.executionId();
  }

  private Watch watch(ExecutionLocation location) {
    return watches.asMap().compute(key(location),
        (k, w) -> w != null && w.location.runId().equals(location.runId()) ? w : new Watch(location, k));
  }

  /** After a watch changed in place: the map files it again (a settled one is held for the shorter age). */
  private void changed(Watch w) {
    watches.asMap().computeIfPresent(w.key, (k, current) -> current);
  }

  /** A record learned elsewhere (an attach, a read): waiters take it if it is newer. */
  void offer(ExecutionLocation location, ExecutionRecord record) {
    Watch w = watch(location);
    synchronized (w) {
      if (w.latest == null || record.version() > w.latest.version()) {
        w.latest = record;
        w.notifyAll();
      }
    }
    changed(w);
  }

  /**
   * Waits up to {@code wait} for a record newer than {@code afterVersion}; returns the newest known
   * record when the wait ends (or the final record once the run closed).
   */
  ExecutionRecord await(ExecutionLocation location, long afterVersion, Duration wait) {
    Watch w = watch(location);
    long deadline = System.nanoTime() + wait.toNanos();
    int failures = 0;
    while (true) {
      CompletableFuture<Void> pending;
      synchronized (w) {
        if (w.latest != null && (w.latest.version() > afterVersion || w.closed)) {
          return w.latest;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        if (w.inFlight == null) {
          w.inFlight = startPoll(w, Math.max(afterVersion, w.latest == null ? afterVersion : w.latest.version()));
        }
        pending = w.inFlight;
      }
      try {
        pending.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        break;
      } catch (ExecutionException e) {
        // A transient failure of the poll: back off a little and poll again within the deadline.
        failures++;
        sleep(Math.min(1000, 50L << Math.min(failures, 4)), deadline);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    synchronized (w) {
      if (w.latest != null) {
        return w.latest;
      }
    }
    ExecutionRecord now = read.apply(location);
    offer(location, now);
    return now;
  }

  private CompletableFuture<Void> startPoll(Watch w, long afterVersion) {
    return CompletableFuture.runAsync(() -> {
      ExecutionRecord next = null;
      boolean closed = false;
      RuntimeException failure = null;
      try {
        next = poll.awaitChange(w.location, afterVersion, pollWait.toMillis());
      } catch (RuntimeException e) {
        if (EngineFailures.classify(e) == EngineFailures.Kind.RUN_CLOSED) {
          try {
            next = read.apply(w.location);
            closed = true;
          } catch (RuntimeException again) {
            failure = again;
          }
        } else {
          LOG.debug("awaitChange on {} failed: {}", w.location.workflowId(), EngineFailures.reason(e));
          failure = e;
        }
      }
      synchronized (w) {
        if (next != null && (w.latest == null || next.version() >= w.latest.version())) {
          w.latest = next;
        }
        w.closed |= closed;
        w.inFlight = null;
        w.notifyAll();
      }
      changed(w);
      if (failure != null) {
        throw failure;
      }
    }, executor);
  }

  private static void sleep(long millis, long deadline) {
    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    try {
      Thread.sleep(Math.max(0, Math.min(millis, left)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The newest record this front end knows of an execution (an in-band answer is newer than the run's own until it records it), or null. */
  ExecutionRecord latest(String executionId) {
    Watch w = watches.getIfPresent(executionId);
    if (w == null) {
      return null;
    }
    synchronized (w) {
      return w.latest;
    }
  }

  /** Whether some caller on this front end is waiting for a change of this execution through the engine right now. */
  boolean polling(String executionId) {
    Watch w = watches.getIfPresent(executionId);
    if (w == null) {
      return false;
    }
    synchronized (w) {
      return w.inFlight != null;
    }
  }

  int size() {
    watches.cleanUp();
    return (int) watches.estimatedSize();
  }

  /** Watches held as settled (for tests and diagnostics). */
  int settledSize() {
    watches.cleanUp();
    return (int) watches.asMap().values().stream().filter(Watch::settled).count();
  }
}
