package io.onceport.activity.dispatch;

import io.onceport.workflow.execution.AnswerDesk;
import io.onceport.workflow.execution.DeliveryReport;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for the delivery reports of answers handed over in band without holding a thread per wait.
 *
 * <p>A send that handed its answer to a caller in this process waits for the caller's front end to
 * report the delivery, which comes only after the delivery grace (1 s by default), so that the
 * report travels in the activity's result and not as another signal and workflow task. Waiting on
 * the activity's own thread held one thread per call for that second: at 60 calls a second, 80 or
 * more parked activity threads, each with its stack and thread-local buffers. Here the activity
 * completes itself later (Temporal's local manual completion, which keeps its slot counted until
 * then): when the report arrives, or with none after the wait, heartbeating meanwhile every {@code
 * heartbeatEvery}. A failed heartbeat (the activity was cancelled or timed out) ends the wait as
 * the deadline does.
 */
final class ReportWaits implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReportWaits.class);

  /** How one wait ends: with the report, or null when none came (it then goes as a signal). */
  interface Ending {
    void complete(DeliveryReport reportOrNull);

    /** Throws when the activity is gone (cancelled, timed out): the wait then ends at once. */
    void heartbeat();
  }

  private final Duration wait;
  private final Duration heartbeatEvery;
  private final ScheduledThreadPoolExecutor timer;
  /** Completing and heartbeating are round trips to Temporal: off the timer and the reporter's thread. */
  private final ExecutorService calls;
  private final Set<Wait> pending = ConcurrentHashMap.newKeySet();

  ReportWaits(Duration wait, Duration heartbeatEvery) {
    this.wait = wait;
    this.heartbeatEvery = heartbeatEvery;
    this.timer = new ScheduledThreadPoolExecutor(1, daemon("onceport-report-timer"));
    this.timer.setRemoveOnCancelPolicy(true);
    this.calls = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), daemon("onceport-report-completion"));
  }

  /** Waits for {@code handoff}'s report and then ends with it; returns at once. */
  void await(AnswerDesk.Handoff handoff, Ending ending) {
    Wait w = new Wait(handoff, ending);
    pending.add(w);
    try {
      w.deadline = timer.schedule(() -> w.finish(handoff.abandon()), wait.toMillis(), TimeUnit.MILLISECONDS);
      w.beats = timer.scheduleAtFixedRate(w::beat, heartbeatEvery.toMillis(), heartbeatEvery.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      w.finish(handoff.abandon());
      return;
    }
    handoff.whenReported(w::finish);
  }

  /**
   * Waits on this thread (outside an activity: nothing to heartbeat or complete later) for the
   * report, at most {@code wait}; null when none came (it then goes as a signal).
   */
  static DeliveryReport awaitHere(AnswerDesk.Handoff handoff, Duration wait, Duration step) {
    long deadline = System.nanoTime() + wait.toNanos();
    try {
      while (System.nanoTime() - deadline < 0) {
        DeliveryReport report = handoff.poll(step.toMillis());
        if (report != null) {
          return report;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return handoff.abandon();
  }

  /** Waits not yet ended (for tests and diagnostics). */
  int pending() {
    return pending.size();
  }

  /**
   * Waits (at most {@code timeout}) until no wait is pending: before a worker stops, so that the
   * reports due within the delivery grace still travel in band, as they did when each wait held its
   * activity's thread and the worker's shutdown waited for running activities.
   */
  boolean awaitIdle(Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!pending.isEmpty()) {
      if (System.nanoTime() - end >= 0) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  /** Ends every wait now (no report then goes in band) and stops. */
  @Override
  public void close() {
    timer.shutdownNow();
    for (Wait w : pending) {
      w.finish(w.handoff.abandon());
    }
    calls.shutdown();
    try {
      calls.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class Wait {
    final AnswerDesk.Handoff handoff;
    final Ending ending;
    final AtomicBoolean done = new AtomicBoolean();
    volatile ScheduledFuture<?> deadline;
    volatile ScheduledFuture<?> beats;

    Wait(AnswerDesk.Handoff handoff, Ending ending) {
      this.handoff = handoff;
      this.ending = ending;
    }

    void finish(DeliveryReport report) {
      if (!done.compareAndSet(false, true)) {
        return;
      }
      pending.remove(this);
      cancel(deadline);
      cancel(beats);
      run(() -> ending.complete(report), "complete");
    }

    void beat() {
      run(() -> {
        if (done.get()) {
          return;
        }
        try {
          ending.heartbeat();
        } catch (RuntimeException gone) {
          finish(handoff.abandon());
        }
      }, "heartbeat");
    }

    private void run(Runnable work, String what) {
      Runnable guarded = () -> {
        try {
          work.run();
        } catch (RuntimeException e) {
          log.warn("call {}: could not {} the send's activity after its hand-over: {}", handoff.callId(), what, e.toString());
        }
      };
      try {
        calls.execute(guarded);
      } catch (RejectedExecutionException closed) {
        guarded.run();
      }
    }

    private void cancel(ScheduledFuture<?> f) {
      if (f != null) {
        f.cancel(false);
      }
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
