package io.onceport.app.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One thing the bench measures, and what it measured: C=1 latencies, throughput per round at
 * C=concurrency, the CPU those batches cost, and failures (a failed call is counted, never timed).
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
    Batch run(int concurrency, java.time.Duration window) throws Exception;
  }

  /**
   * What a batch run elsewhere reports: its calls and time, its failures, its JVM's JIT time and
   * its gRPC calls to the engine (counts by method before and after).
   */
  record Batch(long calls, long elapsedNanos, long errors, String firstError, long jitMillis,
      Map<String, Long> rpcsBefore, Map<String, Long> rpcsAfter) {}

  final String key;
  final String label;
  /** The subject this one is compared with, or null for a baseline. */
  final String baseline;
  final Call call;
  /** Set when the calls are timed where they run. */
  TimedCall timedCall;
  /** Set when the throughput batches run where the subject runs. */
  RemoteBatch remoteBatch;
  String skipped;

  final List<Long> latencies = new ArrayList<>();
  final List<Double> throughputs = new ArrayList<>();
  long batchCalls;
  long batchCpuNanos;
  /** The part of {@link #batchCpuNanos} the engine and target child JVM spent. */
  long batchEngineCpuNanos;
  /** JIT compilation time of the bench JVM during the batches (part of {@link #batchCpuNanos}). */
  long batchJitMillis;
  /** gRPC calls to the engine during the batches (and their drain), by method. */
  final Map<String, Long> batchRpcs = new TreeMap<>();
  long errors;
  String firstError;
  private int next;

  Subject(String key, String label, String baseline, Call call) {
    this.key = key;
    this.label = label;
    this.baseline = baseline;
    this.call = call;
  }

  /** A throughput batch's calls, CPU and gRPC calls (counts before and after it, by method). */
  synchronized void addBatch(long calls, long cpuNanos, long engineCpuNanos, Map<String, Long> rpcsBefore,
      Map<String, Long> rpcsAfter) {
    rpcsAfter.forEach((k, v) -> batchRpcs.merge(k, v - rpcsBefore.getOrDefault(k, 0L), Long::sum));
    batchCalls += calls;
    batchCpuNanos += cpuNanos;
    batchEngineCpuNanos += engineCpuNanos;
  }

  /** Runs a batch where the subject runs; its failures counted here (a batch that could not run: 0 calls, one failure). */
  Batch remoteBatched(int concurrency, java.time.Duration window) throws InterruptedException {
    try {
      Batch b = remoteBatch.run(concurrency, window);
      failed(b.errors(), b.firstError());
      return b;
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      failed(e);
      return new Batch(0, window.toNanos(), 0, null, 0, Map.of(), Map.of());
    }
  }

  synchronized int nextIndex() {
    return next++;
  }

  /** Runs one call; returns its duration in nanoseconds, or -1 when it failed (counted). */
  long timed() {
    int n = nextIndex();
    long t0 = System.nanoTime();
    try {
      if (timedCall != null) {
        return timedCall.run(n);
      }
      call.run(n);
      return System.nanoTime() - t0;
    } catch (Exception e) {
      failed(e);
      return -1;
    }
  }

  synchronized void failed(Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    failed(1, e.getClass().getSimpleName() + ": " + McpDriver.abbreviate(e.getMessage()));
  }

  synchronized void failed(long count, String first) {
    errors += count;
    if (firstError == null && count > 0) {
      firstError = first;
    }
  }

  boolean measured() {
    return skipped == null;
  }

  /** Percentile of the C=1 latencies in milliseconds, NaN without samples. */
  double percentileMillis(double p) {
    if (latencies.isEmpty()) {
      return Double.NaN;
    }
    List<Long> sorted = new ArrayList<>(latencies);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(p * sorted.size()))) / 1e6;
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

  /** Process CPU (this JVM plus the bench's children) per call of the throughput batches, in ms. */
  double engineCpuPerCallMillis() {
    return batchCalls == 0 ? Double.NaN : batchEngineCpuNanos / 1e6 / batchCalls;
  }

  double cpuPerCallMillis() {
    return batchCalls == 0 ? Double.NaN : batchCpuNanos / 1e6 / batchCalls;
  }
}
