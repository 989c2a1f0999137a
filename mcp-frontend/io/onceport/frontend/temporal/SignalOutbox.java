package io.onceport.frontend.temporal;

import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.DeliveryReport;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The evidence and delivery reports this front end owes each run, sent in order and in batches:
 * while one signal to a run is in flight, what arrives meanwhile waits and goes in the next one
 * ({@code recordCalls} for callers coalesced onto another caller's attach, {@code reportDeliveries}
 * for their deliveries). Order per run is kept, so a coalesced caller's call is on the record
 * before its delivery is. A run that has closed takes no more signals; what was owed to it is
 * dropped (its delivery was settled, or its window passed).
 *
 * <p>Nothing stays here once sent: a run's queue is removed when it drains.
 */
final class SignalOutbox {
  private static final Logger LOG = LoggerFactory.getLogger(SignalOutbox.class);
  /** Items per signal: keeps each payload far below the engine's blob size limit. */
  static final int MAX_BATCH = 100;
  private static final int ATTEMPTS = 3;

  /** Sends one signal to one run. */
  interface Sender {
    void recordCalls(ExecutionLocation location, List<AttachRequest> calls);

    void reportDeliveries(ExecutionLocation location, List<DeliveryReport> reports);
  }

  private record Item(AttachRequest call, DeliveryReport report, CompletableFuture<Void> done) {}

  private static final class Queue {
    final ExecutionLocation location;
    final ArrayDeque<Item> items = new ArrayDeque<>();
    boolean sending;

    Queue(ExecutionLocation location) {
      this.location = location;
    }
  }

  private final Map<String, Queue> queues = new ConcurrentHashMap<>();
  private final Sender sender;
  private final Executor executor;

  SignalOutbox(Sender sender, Executor executor) {
    this.sender = sender;
    this.executor = executor;
  }

  /** One future per call, in their order: each completes once the batch holding that call was sent. */
  List<CompletableFuture<Void>> recordEach(ExecutionLocation location, List<AttachRequest> calls) {
    List<CompletableFuture<Void>> each = new ArrayList<>();
    for (AttachRequest c : calls) {
      each.add(enqueue(location, new Item(c, null, new CompletableFuture<>())));
    }
    return each;
  }

  CompletableFuture<Void> reportDelivery(ExecutionLocation location, DeliveryReport report) {
    return enqueue(location, new Item(null, report, new CompletableFuture<>()));
  }

  private CompletableFuture<Void> enqueue(ExecutionLocation location, Item item) {
    String key = location.workflowId() + "/" + location.runId();
    while (true) {
      Queue q = queues.computeIfAbsent(key, k -> new Queue(location));
      synchronized (q) {
        if (queues.get(key) != q) {
          continue; // drained and removed meanwhile: use a fresh queue
        }
        q.items.add(item);
        if (!q.sending) {
          q.sending = true;
          executor.execute(() -> drain(key, q));
        }
      }
      return item.done();
    }
  }

  private void drain(String key, Queue q) {
    while (true) {
      List<Item> batch = new ArrayList<>();
      synchronized (q) {
        Item first = q.items.peek();
        if (first == null) {
          q.sending = false;
          queues.remove(key, q);
          return;
        }
        boolean calls = first.call() != null;
        while (!q.items.isEmpty() && batch.size() < MAX_BATCH && (q.items.peek().call() != null) == calls) {
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
        if (batch.get(0).call() != null) {
          sender.recordCalls(location, batch.stream().map(Item::call).toList());
        } else {
          sender.reportDeliveries(location, batch.stream().map(Item::report).toList());
        }
        batch.forEach(i -> i.done().complete(null));
        return;
      } catch (RuntimeException e) {
        if (EngineFailures.classify(e) == EngineFailures.Kind.RUN_CLOSED) {
          LOG.debug("{} signal(s) for {} not sent: the run closed", batch.size(), location.workflowId());
          batch.forEach(i -> i.done().complete(null));
          return;
        }
        last = e;
        sleep(100L * attempt);
      }
    }
    LOG.warn("could not send {} signal(s) to {}: {}", batch.size(), location.workflowId(), EngineFailures.reason(last));
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
