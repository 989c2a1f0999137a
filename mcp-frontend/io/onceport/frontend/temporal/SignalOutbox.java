package io.onceport.frontend.temporal;

import io.onceport.workflow.execution.AttachRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The evidence this front end owes each run: the calls coalesced onto another caller's attach
 * ({@link IntentFlights}), recorded on the run with {@code recordCalls}, at most {@value #MAX_BATCH}
 * per signal, one signal in flight per run (what arrives meanwhile goes in the next one). Why:
 * a follower's call is on no record until this signal lands, so it goes at once after the attach (a
 * follower whose record itemizes its call waits for it before it is answered, so its delivery
 * report comes after it); and a 1,000-call storm costs the run ten signals, each far below the
 * engine's 2 MiB blob limit, instead of a thousand. A run that has closed takes no more signals;
 * what was owed to it is dropped (its tail passed).
 *
 * <p>Delivery reports do not come through here: each is one signal of its own (issue 27: batching
 * them moved no bench figure by 10 % either way, and the 1,000-call storm passes without it).
 *
 * <p>Nothing stays here once sent: a run's queue is removed when it drains.
 */
final class SignalOutbox {
  private static final Logger LOG = LoggerFactory.getLogger(SignalOutbox.class);
  /** Calls per signal: keeps each payload far below the engine's blob size limit. */
  static final int MAX_BATCH = 100;
  private static final int ATTEMPTS = 3;

  private record Item(AttachRequest call, CompletableFuture<Void> done) {}

  private static final class Queue {
    final ExecutionLocation location;
    final ArrayDeque<Item> items = new ArrayDeque<>();
    boolean sending;

    Queue(ExecutionLocation location) {
      this.location = location;
    }
  }

  private final Map<String, Queue> queues = new ConcurrentHashMap<>();
  private final BiConsumer<ExecutionLocation, List<AttachRequest>> recordCalls;
  private final Executor executor;

  /** @param recordCalls sends one {@code recordCalls} signal to one run */
  SignalOutbox(BiConsumer<ExecutionLocation, List<AttachRequest>> recordCalls, Executor executor) {
    this.recordCalls = recordCalls;
    this.executor = executor;
  }

  /** One future per call, in their order: each completes once the batch holding that call was sent. */
  List<CompletableFuture<Void>> recordEach(ExecutionLocation location, List<AttachRequest> calls) {
    String key = location.workflowId() + "/" + location.runId();
    List<CompletableFuture<Void>> each = new ArrayList<>();
    while (true) {
      Queue q = queues.computeIfAbsent(key, k -> new Queue(location));
      synchronized (q) {
        if (queues.get(key) != q) {
          continue; // drained and removed meanwhile: use a fresh queue
        }
        for (AttachRequest c : calls) {
          Item item = new Item(c, new CompletableFuture<>());
          q.items.add(item);
          each.add(item.done());
        }
        if (!q.sending) {
          q.sending = true;
          executor.execute(() -> drain(key, q));
        }
      }
      return each;
    }
  }

  private void drain(String key, Queue q) {
    while (true) {
      List<Item> batch = new ArrayList<>();
      synchronized (q) {
        if (q.items.isEmpty()) {
          q.sending = false;
          queues.remove(key, q);
          return;
        }
        while (!q.items.isEmpty() && batch.size() < MAX_BATCH) {
          batch.add(q.items.poll());
        }
      }
      send(q.location, batch);
    }
  }

  private void send(ExecutionLocation location, List<Item> batch) {
    RuntimeException last = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        recordCalls.accept(location, batch.stream().map(Item::call).toList());
        batch.forEach(i -> i.done().complete(null));
        return;
      } catch (RuntimeException e) {
        if (EngineFailures.classify(e) == EngineFailures.Kind.RUN_CLOSED) {
          LOG.debug("{} call(s) for {} not recorded: the run closed", batch.size(), location.workflowId());
          batch.forEach(i -> i.done().complete(null));
          return;
        }
        last = e;
        sleep(100L * attempt);
      }
    }
    LOG.warn("could not record {} coalesced call(s) on {}: {}", batch.size(), location.workflowId(), EngineFailures.reason(last));
    RuntimeException failure = last;
    batch.forEach(i -> i.done().completeExceptionally(failure));
  }

  /** Waits (bounded) until everything queued so far was sent; for an orderly shutdown. */
  void flush(long timeoutMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (!queues.isEmpty() && System.nanoTime() < deadline) {
      sleep(20);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
