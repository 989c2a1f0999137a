package io.onceport.app.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.engine.LocalEngine;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.WorkflowIds;
import io.onceport.shared.temporal.TemporalConnection;
import io.temporal.api.common.v1.WorkflowExecution;
import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The state of one soak: counters, samples, and what the samples read (this JVM, the engine
 * process, execution histories). {@link SoakBench} drives it, {@link SoakReport} summarizes it.
 */
final class SoakRun {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long KIB = 1024;

  private final Consumer<String> progress;
  final TemporalConnection connection;
  final LocalEngine engine;
  final CountingTarget target;
  final FingerprintKey key;
  final AtomicLong completed = new AtomicLong();
  final AtomicLong seq = new AtomicLong();
  final AtomicLong errors = new AtomicLong();
  final AtomicLong errorsInARow = new AtomicLong();
  /** Waiting executions' calls made again: the engine turned them away ("busy", nothing started) or they timed out. */
  final AtomicLong busyRetries = new AtomicLong();
  final AtomicReference<String> firstError = new AtomicReference<>();
  final AtomicReference<String> broken = new AtomicReference<>();
  final Deque<String> completedIds = new ArrayDeque<>();
  final List<String> waitingIds = java.util.Collections.synchronizedList(new ArrayList<>());
  final ArrayNode samples = JSON.createArrayNode();
  final long startNanos = System.nanoTime();
  volatile int waiting;
  long lastNanos = System.nanoTime();
  Duration lastJvmCpu = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
  Duration lastEngineCpu = Duration.ZERO;
  long lastCompleted;

  /** @param progress receives one line per sample */
  SoakRun(TemporalConnection connection, LocalEngine engine, CountingTarget target, FingerprintKey key,
      Consumer<String> progress) {
    this.progress = progress;
    this.connection = connection;
    this.engine = engine;
    this.target = target;
    this.key = key;
    lastEngineCpu = engineStats().map(ProcessStats::cpu).orElse(Duration.ZERO);
  }

  void call(McpCaller caller) throws InterruptedException {
    long n = seq.getAndIncrement();
    String intentKey = n % SoakBench.HISTORY_EVERY == 0 ? "soak-call-" + n : null;
    try {
      JsonNode answer = caller.call(SoakBench.TOOL, JSON.createObjectNode().put("n", "c" + n), intentKey, false);
      String state = answer.at("/result/structuredContent/state").asText("");
      if (!state.equals("completed")) {
        throw new IOException("not completed: " + answer);
      }
      completed.incrementAndGet();
      errorsInARow.set(0);
      if (intentKey != null) {
        synchronized (completedIds) {
          completedIds.addLast(WorkflowIds.forIntentKey(key, SoakBench.ACTOR, intentKey));
          while (completedIds.size() > 3) {
            completedIds.removeFirst();
          }
        }
      }
    } catch (IOException e) {
      errors.incrementAndGet();
      firstError.compareAndSet(null, e.getMessage());
      if (errorsInARow.incrementAndGet() >= 50) {
        broken.compareAndSet(null, "50 calls in a row failed; the first error: " + firstError.get());
      }
    }
  }

  void failIfBroken() {
    if (broken.get() != null) {
      throw new IllegalStateException("soak stopped: " + broken.get());
    }
  }

  java.util.Optional<ProcessStats> engineStats() {
    return engine.cliServer().map(s -> ProcessStats.of(s.pid()));
  }

  void sample(String phase) {
    // CPU up to now first: the full GC and the history reads below are the sampler's, not the gateway's.
    long now = System.nanoTime();
    Duration jvmCpuNow = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
    java.util.Optional<ProcessStats> eng = engineStats();
    long heap = heapAfterFullGc();
    ProcessStats jvm = ProcessStats.self();
    double wall = Math.max(1e-9, (now - lastNanos) / 1e9);
    double jvmCpu = (jvmCpuNow.minus(lastJvmCpu).toNanos() / 1e9) / wall * 100;
    double engCpu = eng.map(e -> (e.cpu().minus(lastEngineCpu).toNanos() / 1e9) / wall * 100).orElse(0.0);
    long done = completed.get();
    double rate = (done - lastCompleted) / wall;
    ObjectNode s = JSON.createObjectNode();
    s.put("phase", phase);
    s.put("elapsed_s", Math.round((now - startNanos) / 1e8) / 10.0);
    s.put("completed", done);
    s.put("calls_per_s", Math.round(rate * 10) / 10.0);
    s.put("errors", errors.get());
    s.put("waiting", waiting);
    s.put("target_requests", target.requests());
    ObjectNode j = s.putObject("jvm");
    j.put("rss_kib", jvm.rssKib());
    j.put("heap_after_gc_kib", heap / KIB);
    j.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
    j.put("workflow_threads", workflowThreads());
    j.put("cpu_pct", Math.round(jvmCpu * 10) / 10.0);
    if (eng.isPresent()) {
      ObjectNode e = s.putObject("engine");
      e.put("rss_kib", eng.get().rssKib());
      e.put("threads", eng.get().threads());
      e.put("cpu_pct", Math.round(engCpu * 10) / 10.0);
      e.put("database_kib", engine.database().map(SoakRun::filesKib).orElse(0L));
    } else {
      s.putNull("engine");
    }
    ObjectNode h = s.putObject("history");
    List<String> done3;
    synchronized (completedIds) {
      done3 = List.copyOf(completedIds);
    }
    h.set("completed", history(done3, true));
    h.set("waiting", history(List.copyOf(waitingIds), false));
    samples.add(s);
    progress.accept(SoakReport.line(s));
    lastNanos = System.nanoTime();
    lastJvmCpu = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
    lastEngineCpu = engineStats().map(ProcessStats::cpu).orElse(Duration.ZERO);
    lastCompleted = done;
  }

  /**
   * Average events and bytes over the histories of {@code workflowIds} (their latest runs);
   * {@code settled}: of runs that recorded their delivery only, waiting a moment for one that is
   * settling (see {@link #awaitSettled}).
   */
  JsonNode history(List<String> workflowIds, boolean settled) {
    if (workflowIds.isEmpty()) {
      return JSON.nullNode();
    }
    long events = 0;
    long bytes = 0;
    int n = 0;
    for (String id : workflowIds) {
      try {
        if (settled && !awaitSettled(id)) {
          continue;
        }
        long[] eb = historySize(id);
        events += eb[0];
        bytes += eb[1];
        n++;
      } catch (RuntimeException e) {
        // closed and deleted, or not yet visible: skip this one
      }
    }
    if (n == 0) {
      return JSON.nullNode();
    }
    return JSON.createObjectNode().put("executions", n).put("events", events / n).put("bytes", bytes / n);
  }

  /**
   * Whether the latest run of {@code workflowId} recorded its delivery, waiting up to 5 s: a completed
   * call's run stays open for its late-arrival tail (minutes), so its history is read once settled,
   * not once closed (an answer given in band reaches the caller before the run records it).
   */
  private boolean awaitSettled(String workflowId) {
    ToolExecutionWorkflow run = connection.client().newWorkflowStub(ToolExecutionWorkflow.class, workflowId);
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    while (run.record().delivery() != Delivery.DELIVERED) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  long[] historySize(String workflowId) {
    long events = 0;
    long bytes = 0;
    com.google.protobuf.ByteString page = com.google.protobuf.ByteString.EMPTY;
    do {
      GetWorkflowExecutionHistoryResponse r = connection.stubs().blockingStub().getWorkflowExecutionHistory(
          GetWorkflowExecutionHistoryRequest.newBuilder().setNamespace(connection.namespace())
              .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).setNextPageToken(page).build());
      for (HistoryEvent e : r.getHistory().getEventsList()) {
        events++;
        bytes += e.getSerializedSize();
      }
      page = r.getNextPageToken();
    } while (!page.isEmpty());
    return new long[] {events, bytes};
  }

  /** The SQLite database with its journal files ({@code -wal}, {@code -shm}, {@code -journal}). */
  private static long filesKib(Path database) {
    long bytes = 0;
    for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
      try {
        bytes += Files.size(Path.of(database + suffix));
      } catch (IOException absent) {
        // not every journal file exists
      }
    }
    return bytes / KIB;
  }

  private static long heapAfterFullGc() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Threads the Temporal SDK runs workflow code on (one per cached execution, plus update handlers). */
  private static long workflowThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("workflow-")).count();
  }
}
