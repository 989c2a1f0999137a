package io.onceport.app.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One thing the bench measures, and what it measured: C=1 latencies, throughput per round at
 * C=concurrency, the CPU those batches cost in the processes the subject uses, its JVM's JIT time,
 * its round trips to the engine, and failures (a failed call is counted, never timed; a busy answer
 * is counted apart from failures).
 */
final class Subject {
  /** One call; {@code n} is unique per subject so every call is a distinct request. */
  @FunctionalInterface
  interface Call {
    void run(int n) throws Exception;
  }

  /**
   * One call timed where it runs (another JVM): returns its duration in nanoseconds, so the
   * latency does not include the bench's round trip to that JVM.
   */
  @FunctionalInterface
  interface TimedCall {
    long run(int n) throws Exception;
  }

  /** A throughput batch run where the subject runs (another JVM), with its own callers. */
  @FunctionalInterface
  interface RemoteBatch {
    Batch run(int concurrency, Duration window) throws Exception;
  }

  /**
   * What a batch run elsewhere reports: its calls and time, its failures and busy answers, its JVM's
   * JIT time, its gRPC calls to the engine (counts by method before and after; empty when that JVM
   * has no connection to the engine, as the driver's) and its calls' latencies (p50 and p99 in
   * nanoseconds, -1 without calls).
   */
  record Batch(long calls, long elapsedNanos, long errors, String firstError, long jitMillis,
      Map<String, Long> rpcsBefore, Map<String, Long> rpcsAfter, long p50Nanos, long p99Nanos, long busy, String firstBusy,
      long pending, String firstPending) {}

  /** A call the gateway answered with an honest "busy, retry" (counted apart from failures). */
  static final class BusyAnswer extends java.io.IOException {
    BusyAnswer(String message) {
      super(message);
    }
  }

  /**
   * A call answered while its execution was still in flight ("dispatched, outcome pending"): the
   * gateway's wait for the outcome ran out. Not a failure of the action, but the caller did not get
   * its result: counted apart from failures, as a busy answer is.
   */
  static final class PendingAnswer extends java.io.IOException {
    PendingAnswer(String message) {
      super(message);
    }
  }

  /** Failures, busy answers and answers before the outcome of a set of calls (the rounds, or one point of the curve). */
  static final class Tally {
    long errors;
    long busy;
    long pending;
    String firstError;
    String firstBusy;
    String firstPending;

    synchronized void failed(Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      String what = e.getClass().getSimpleName() + ": " + McpDriver.abbreviate(e.getMessage());
      if (e instanceof BusyAnswer) {
        busy++;
        firstBusy = firstBusy == null ? what : firstBusy;
      } else if (e instanceof PendingAnswer) {
        pending++;
        firstPending = firstPending == null ? what : firstPending;
      } else {
        failed(1, what);
      }
    }

    synchronized void failed(long count, String first) {
      errors += count;
      if (firstError == null && count > 0) {
        firstError = first;
      }
    }

    synchronized void busy(long count, String first) {
      busy += count;
      if (firstBusy == null && count > 0) {
        firstBusy = first;
      }
    }

    synchronized void pending(long count, String first) {
      pending += count;
      if (firstPending == null && count > 0) {
        firstPending = first;
      }
    }

    /** The counts into {@code o}: errors, busy and pending answers, each with its first message. */
    void into(com.fasterxml.jackson.databind.node.ObjectNode o) {
      o.put("errors", errors);
      if (firstError != null) {
        o.put("first_error", firstError);
      }
      o.put("busy", busy);
      if (firstBusy != null) {
        o.put("first_busy", firstBusy);
      }
      o.put("pending", pending);
      if (firstPending != null) {
        o.put("first_pending", firstPending);
      }
    }
  }

  final String key;
  final String label;
  /** The subject this one is compared with, or null for a baseline. */
  final String baseline;
  final Call call;
  /** The processes ({@link BenchRig#BENCH}, …) whose CPU time a call of this subject costs. */
  final Set<String> processes;
  /** The JVM whose JIT time {@code jit_ms_per_call} is: {@link BenchRig#BENCH} or {@link BenchRig#BARE}. */
  final String jvm;
  /** Set when the calls are timed where they run. */
  TimedCall timedCall;
  /** Set when the throughput batches run where the subject runs. */
  RemoteBatch remoteBatch;
  String skipped;

  final List<Long> latencies = new ArrayList<>();
  final List<Double> throughputs = new ArrayList<>();
  final Tally tally = new Tally();
  long batchCalls;
  /** CPU time of each process during the batches (and their drain), by process. */
  final Map<String, Long> batchCpuByProcess = new TreeMap<>();
  /** JIT compilation time of the subject's JVM during the batches, as the JVM counts it (elapsed). */
  long batchJitMillis;
  /** CPU time of the subject's JVM's compiler threads during the batches; -1 when unknown. */
  long batchJitCpuMillis;
  /** gRPC calls to the engine during the batches (and their drain), by method. */
  final Map<String, Long> batchRpcs = new TreeMap<>();
  /** Host CPU idle during the batches, summed over them as fractions (see {@link HostCpu}). */
  double batchHostIdle;
  int batches;
  /** Calls the subject's JVM answered so far, warm-up included (its JIT's progress depends on it). */
  final java.util.concurrent.atomic.AtomicLong served = new java.util.concurrent.atomic.AtomicLong();
  private int next;

  Subject(String key, String label, String baseline, Set<String> processes, String jvm, Call call) {
    this.key = key;
    this.label = label;
    this.baseline = baseline;
    this.processes = Set.copyOf(processes);
    this.jvm = jvm;
    this.call = call;
  }

  /** A throughput batch's calls, CPU by process, and gRPC calls (counts before and after it, by method). */
  synchronized void addBatch(long calls, Map<String, Long> cpuBefore, Map<String, Long> cpuAfter,
      Map<String, Long> rpcsBefore, Map<String, Long> rpcsAfter, double hostIdle) {
    rpcsAfter.forEach((k, v) -> batchRpcs.merge(k, v - rpcsBefore.getOrDefault(k, 0L), Long::sum));
    cpuAfter.forEach((k, v) -> batchCpuByProcess.merge(k, v - cpuBefore.getOrDefault(k, v), Long::sum));
    batchCalls += calls;
    batchHostIdle += hostIdle;
    batches++;
  }

  /** Runs a batch where the subject runs; its failures counted in {@code into} (a batch that could not run: 0 calls, one failure). */
  Batch remoteBatched(int concurrency, Duration window, Tally into) throws InterruptedException {
    try {
      Batch b = remoteBatch.run(concurrency, window);
      served.addAndGet(b.calls());
      into.failed(b.errors(), b.firstError());
      into.busy(b.busy(), b.firstBusy());
      into.pending(b.pending(), b.firstPending());
      return b;
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      into.failed(e);
      return new Batch(0, window.toNanos(), 0, null, 0, Map.of(), Map.of(), -1, -1, 0, null, 0, null);
    }
  }

  synchronized int nextIndex() {
    return next++;
  }

  /** Runs one call; returns its duration in nanoseconds, or -1 when it failed or was answered busy (counted in {@code into}). */
  long timed(Tally into) {
    int n = nextIndex();
    long t0 = System.nanoTime();
    try {
      long nanos;
      if (timedCall != null) {
        nanos = timedCall.run(n);
      } else {
        call.run(n);
        nanos = System.nanoTime() - t0;
      }
      served.incrementAndGet();
      return nanos;
    } catch (Exception e) {
      into.failed(e);
      return -1;
    }
  }

  boolean measured() {
    return skipped == null;
  }

  /** Percentile of the C=1 latencies in milliseconds, NaN without samples. */
  double percentileMillis(double p) {
    return percentileNanos(latencies, p) / 1e6;
  }

  /** Percentile of {@code nanos} (nearest rank), NaN when empty. */
  static double percentileNanos(List<Long> nanos, double p) {
    if (nanos.isEmpty()) {
      return Double.NaN;
    }
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(p * sorted.size())));
  }

  /** Median throughput over the rounds (calls/s), NaN without batches. */
  double throughput() {
    if (throughputs.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(throughputs);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  /** CPU per call of the throughput batches in ms, counting the processes the subject uses. */
  double cpuPerCallMillis() {
    return batchCalls == 0 ? Double.NaN : cpuNanos(processes) / 1e6 / batchCalls;
  }

  /**
   * CPU per call in ms of the processes the subject uses less their JIT compiler threads' — what a
   * call costs once its JVMs have compiled their code (the rounds of a short bench still compile:
   * at 1,200 calls the gateway's compiler threads were 45 % of its JVM's CPU); NaN when no JVM's
   * JIT was read. Processes that are not JVMs (Node, the dev server) count whole.
   */
  double cpuPerCallWithoutJitMillis() {
    if (batchCalls == 0 || processes.stream().noneMatch(p -> batchCpuByProcess.containsKey(BenchRig.JIT + p))) {
      return Double.NaN;
    }
    long sum = 0;
    for (String p : processes) {
      sum += batchCpuByProcess.getOrDefault(p, 0L) - batchCpuByProcess.getOrDefault(BenchRig.JIT + p, 0L);
    }
    return sum / 1e6 / batchCalls;
  }

  /** CPU per call in ms of one process, NaN when it was not measured. */
  double cpuPerCallMillis(String process) {
    Long nanos = batchCpuByProcess.get(process);
    return batchCalls == 0 || nanos == null ? Double.NaN : nanos / 1e6 / batchCalls;
  }

  private long cpuNanos(Set<String> of) {
    long sum = 0;
    for (String p : of) {
      sum += batchCpuByProcess.getOrDefault(p, 0L);
    }
    return sum;
  }

  /** Mean host CPU idle fraction during the throughput batches, NaN without batches. */
  double hostIdle() {
    return batches == 0 ? Double.NaN : batchHostIdle / batches;
  }
}
