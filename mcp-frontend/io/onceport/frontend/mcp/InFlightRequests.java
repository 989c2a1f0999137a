package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.onceport.workflow.ids.IdParts;
import io.onceport.workflow.execution.ExecutionRecord;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The requests in flight on this process, by (session scope, JSON-RPC id), so that a
 * {@code notifications/cancelled} finds the request it names. Delivery is a fact, so the request's
 * answer has a lifecycle here: waiting (a cancellation cancels the execution if it was not
 * dispatched yet, and otherwise means the answer is not written), writing, written (a short grace
 * follows, during which a cancellation still turns "delivered" into "not delivered": a client whose
 * timeout raced the answer never read it), done.
 *
 * <p>An entry lives while its request is answered and through the grace; the call ids of requests
 * cancelled after dispatch are remembered ({@value #MAX_CANCELLED}, {@link #CANCELLED_AGE}) so that
 * a client resuming the cancelled request's SSE stream with {@code Last-Event-ID} is not answered
 * either.
 */
final class InFlightRequests {
  static final int MAX_CANCELLED = 10_000;
  static final Duration CANCELLED_AGE = Duration.ofHours(1);

  /** Bounded as a safety net only: entries are released when their request is answered. */
  private final Cache<String, Entry> entries = Caffeine.newBuilder().maximumSize(MAX_IN_FLIGHT).expireAfterAccess(Duration.ofHours(2)).build();
  static final int MAX_IN_FLIGHT = 100_000;
  private final Cache<String, String> cancelledCalls = Caffeine.newBuilder().maximumSize(MAX_CANCELLED).expireAfterAccess(CANCELLED_AGE).build();

  enum Phase { WAITING, WRITING, WRITTEN, DONE }

  /** One request being answered. All state is guarded by the entry's monitor. */
  final class Entry {
    private final String key;
    private String executionId;
    private String callId;
    private String cancelReason;
    private boolean cancelIssued;
    private boolean cancelResolved;
    private ExecutionRecord afterCancel;
    private Phase phase = Phase.WAITING;

    private Entry(String key) {
      this.key = key;
    }

    /**
     * The call is on execution {@code executionId}. Returns the reason of a cancellation that
     * arrived before the execution was known (the caller then cancels it), or null.
     */
    synchronized String attached(String executionId, String callId) {
      this.executionId = executionId;
      this.callId = callId;
      if (cancelReason != null && !cancelIssued) {
        cancelIssued = true;
        return cancelReason;
      }
      return null;
    }

    synchronized String executionId() {
      return executionId;
    }

    synchronized String callId() {
      return callId;
    }

    synchronized boolean cancelled() {
      return cancelReason != null;
    }

    synchronized String cancelReason() {
      return cancelReason;
    }

    /** The execution's record after the cancellation was applied (cancelled, or dispatched and going on); null if it failed. */
    synchronized void resolveCancel(ExecutionRecord after) {
      afterCancel = after;
      cancelResolved = true;
      notifyAll();
    }

    /** Waits (bounded) for the cancellation to be applied to the execution; null when unknown. */
    synchronized ExecutionRecord awaitCancel(Duration max) {
      long deadline = System.nanoTime() + max.toNanos();
      while (!cancelResolved && executionId != null) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      return afterCancel;
    }

    /** Just before the answer is written: false when the request was cancelled (then it is not written). */
    synchronized boolean beginWrite() {
      if (cancelReason != null) {
        return false;
      }
      phase = Phase.WRITING;
      return true;
    }

    /** The answer was written and flushed; the grace begins. */
    synchronized void written() {
      if (phase == Phase.WRITING) {
        phase = Phase.WRITTEN;
      }
    }

    synchronized boolean inGrace() {
      return phase == Phase.WRITTEN;
    }

    /** The grace is over: null when the answer counts as delivered, else the cancellation that arrived meanwhile. */
    synchronized String settle() {
      phase = Phase.DONE;
      return cancelReason;
    }

    /** The request was cancelled after dispatch and not answered: its call's streams are not answered either. */
    void unanswered() {
      String c = callId();
      if (c != null) {
        cancelledCalls.put(c, String.valueOf(cancelReason()));
      }
    }

    /** Records a cancellation; returns the execution to cancel now, or null (unknown yet, or already done). */
    private synchronized String cancel(String reason) {
      if (phase == Phase.DONE || cancelReason != null) {
        return null;
      }
      cancelReason = reason;
      if (phase == Phase.WAITING && executionId != null && !cancelIssued) {
        cancelIssued = true;
        return executionId;
      }
      if (phase != Phase.WAITING) {
        cancelResolved = true; // too late to cancel anything: only the delivery changes
      }
      return null;
    }
  }

  /** A cancellation as {@link #cancel} found it. */
  record Cancellation(Entry entry, String executionToCancel) {}

  Entry open(String scope, JsonNode id) {
    Entry e = new Entry(key(scope, id));
    entries.put(e.key, e);
    return e;
  }

  /**
   * Forgets the entry once its request is answered. An answer in its delivery grace stays until the
   * grace decides (the writer releases it then).
   */
  void release(Entry e) {
    if (e != null && !e.inGrace()) {
      entries.asMap().compute(e.key, (k, current) -> current == e ? null : current);
    }
  }

  /** A {@code notifications/cancelled} for {@code requestId}; null when no such request is in flight. */
  Cancellation cancel(String scope, JsonNode requestId, String reason) {
    Entry e = entries.getIfPresent(key(scope, requestId));
    if (e == null) {
      return null;
    }
    return new Cancellation(e, e.cancel(reason));
  }

  /** True when the call's request was cancelled after dispatch (its result is owed to no one on that request). */
  boolean wasCancelled(String callId) {
    return callId != null && cancelledCalls.getIfPresent(callId) != null;
  }

  int size() {
    return (int) entries.estimatedSize();
  }

  /** Length-prefixed ({@link IdParts#tuple}): a scope holding {@code |} cannot pass for another scope's request. */
  private static String key(String scope, JsonNode requestId) {
    return IdParts.tuple(scope, requestId == null ? null : requestId.toString());
  }
}
