package io.onceport.app.runtime;

import io.onceport.frontend.temporal.InBandAnswers;
import io.onceport.workflow.execution.AnswerDesk;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The in-process {@link AnswerDesk} of one task queue, and the front end's {@link InBandAnswers}: a
 * front end and a worker in one process ({@code onceport serve}) meet here, so that a send hands its
 * settled record straight to the {@code tools/call} waiting for it, and the front end's delivery
 * report goes straight back to the send — the run then learns the delivery with the answer and
 * closes in that workflow task, instead of a signal and a third task later. Measured (issue 27, docs/performance.md, the bench with it
 * switched off): without it a side-effecting call costs 3.0–3.3 workflow tasks instead of 2 and
 * 17.2–18.3 KB sent to the engine instead of 14.9–15.0, and on the Temporal CLI dev server 1.78×
 * the floor's CPU instead of 1.07×.
 *
 * <p>It only ever shortens the way: a caller also waits on the engine as before, and whichever
 * answers first answers. Nothing here is durable and nothing needs to be: a record handed over is
 * the one the workflow records from the same answer, and a report the send did not take in time
 * goes as a signal. A worker in another process, or a caller that left, simply never meets here.
 *
 * <p>One slot per waiting call, keyed by call id (unique per call), removed when it is decided:
 * the caller left without a record, the report was taken, or the send stopped waiting.
 */
public final class InProcessAnswers implements AnswerDesk, InBandAnswers {
  private static final Map<String, InProcessAnswers> BY_TASK_QUEUE = new ConcurrentHashMap<>();

  private final AtomicInteger workers = new AtomicInteger();
  private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

  private InProcessAnswers() {}

  /** The desk of a task queue in this process. */
  public static InProcessAnswers of(String taskQueue) {
    return BY_TASK_QUEUE.computeIfAbsent(taskQueue, q -> new InProcessAnswers());
  }

  /** A worker of this task queue runs in this process and hands its answers over here; close to stop. */
  public AutoCloseable workerStarted() {
    workers.incrementAndGet();
    AtomicBoolean closed = new AtomicBoolean();
    return () -> {
      if (closed.compareAndSet(false, true)) {
        workers.decrementAndGet();
      }
    };
  }

  @Override
  public boolean answering() {
    return workers.get() > 0;
  }

  @Override
  public Slot open(String callId) {
    Slot slot = new Slot(callId);
    slots.put(callId, slot);
    return slot;
  }

  @Override
  public Handoff offer(List<String> callIds, ExecutionRecord record) {
    for (String id : callIds) {
      Slot slot = slots.get(id);
      if (slot != null && slot.offer(record)) {
        return slot;
      }
    }
    return null;
  }

  @Override
  public void sending(List<String> callIds) {
    for (String id : callIds) {
      Slot slot = slots.get(id);
      if (slot != null) {
        slot.started.complete(null);
      }
    }
  }

  @Override
  public void noAnswer(List<String> callIds) {
    for (String id : callIds) {
      Slot slot = slots.get(id);
      if (slot != null) {
        slot.noAnswer();
      }
    }
  }

  @Override
  public boolean report(DeliveryReport report) {
    Slot slot = slots.get(report.callId());
    return slot != null && slot.report(report);
  }

  /** One call's meeting point. */
  final class Slot implements Handoff, InBandAnswers.Slot {
    private static final int OPEN = 0;
    private static final int OFFERED = 1;
    private static final int DONE = 2;
    /** The send stopped waiting for the report before it came: the report goes by signal. */
    private static final int ABANDONED = 3;

    private final String callId;
    private final AtomicInteger state = new AtomicInteger(OPEN);
    private final CompletableFuture<ExecutionRecord> record = new CompletableFuture<>();
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private volatile BooleanSupplier decline;
    private final CompletableFuture<DeliveryReport> report = new CompletableFuture<>();

    Slot(String callId) {
      this.callId = callId;
    }

    @Override
    public String callId() {
      return callId;
    }

    /** Completes when a send handed a record over (null: the send here ended without one). */
    CompletableFuture<ExecutionRecord> record() {
      return record;
    }

    @Override
    public boolean awaitStarted(long timeoutNanos) throws InterruptedException {
      try {
        started.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        return true;
      } catch (TimeoutException | ExecutionException e) {
        return false;
      }
    }

    @Override
    public ExecutionRecord awaitRecord(long timeoutNanos) throws InterruptedException {
      try {
        return record.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        return null;
      }
    }

    void noAnswer() {
      if (state.compareAndSet(OPEN, DONE)) {
        slots.remove(callId, this);
        record.complete(null);
      }
    }

    /** {@inheritDoc} Then the answer goes through the engine, as for the other callers. */
    @Override
    public void declineWhen(BooleanSupplier decline) {
      this.decline = decline;
    }

    boolean offer(ExecutionRecord r) {
      BooleanSupplier d = decline;
      if (d != null && d.getAsBoolean()) {
        return false;
      }
      if (!state.compareAndSet(OPEN, OFFERED)) {
        return false;
      }
      record.complete(r);
      return true;
    }

    @Override
    public ExecutionRecord leave() {
      if (state.compareAndSet(OPEN, DONE)) {
        slots.remove(callId, this);
        return null;
      }
      return record.getNow(null);
    }

    boolean report(DeliveryReport r) {
      if (!state.compareAndSet(OFFERED, DONE)) {
        return false;
      }
      slots.remove(callId, this);
      report.complete(r);
      return true;
    }

    @Override
    public DeliveryReport poll(long timeoutMillis) throws InterruptedException {
      try {
        return report.get(timeoutMillis, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        return null;
      } catch (ExecutionException e) {
        return null;
      }
    }

    @Override
    public void whenReported(Consumer<DeliveryReport> then) {
      report.thenAccept(then);
    }

    @Override
    public DeliveryReport abandon() {
      if (state.compareAndSet(OFFERED, ABANDONED)) {
        slots.remove(callId, this);
        return null;
      }
      // Once offered, only report() moves the state on to DONE, and it completes the report right
      // after: wait for that instant rather than lose a report that report() already took.
      return state.get() == DONE ? report.join() : null;
    }
  }
}
