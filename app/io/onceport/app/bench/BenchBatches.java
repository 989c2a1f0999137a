package io.onceport.app.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Throughput batches: {@code C} callers of one subject for a window, after the previous calls' work
 * has ended, with what the batch cost read around it — CPU by process, the subject's JVM's JIT
 * time, gRPC calls to the engine, how idle the host's CPU stayed — and, for the concurrency curve,
 * every call's latency. A batch of a subject that runs in its own JVM ({@code bare}) runs there.
 */
final class BenchBatches {
  /** No gRPC call but long polls for this long: the previous calls' work has ended (longer than the 1 s delivery grace). */
  static final Duration QUIET = Duration.ofMillis(1500);
  static final Duration QUIET_LIMIT = Duration.ofSeconds(15);

  private final BenchRig rig;
  private final Duration callTimeout;

  BenchBatches(BenchRig rig, Duration callTimeout) {
    this.rig = rig;
    this.callTimeout = callTimeout;
  }

  /**
   * One measured batch and its cost.
   *
   * @param jitMillis the subject's JVM's compilation time as the JVM counts it (elapsed, waits for a core included)
   * @param jitCpuMillis the CPU time of that JVM's compiler threads ({@link JitCpu}), -1 when unknown
   * @param p50Nanos the calls' median latency (-1 unless latencies were kept)
   * @param p99Nanos their 99th percentile (-1 unless latencies were kept)
   */
  record Measured(long calls, long elapsedNanos, Map<String, Long> cpuBefore, Map<String, Long> cpuAfter,
      Map<String, Long> rpcsBefore, Map<String, Long> rpcsAfter, long jitMillis, long jitCpuMillis, double hostIdle,
      long p50Nanos, long p99Nanos) {
    double rate() {
      return calls / (elapsedNanos / 1e9);
    }
  }

  /**
   * A batch whose CPU and round trips include what its calls cause after their answers (a delivery
   * report after the grace, the run's last workflow task), not the next subject's batch.
   */
  Measured measure(Subject s, int concurrency, Duration window, Subject.Tally tally) throws InterruptedException {
    rig.awaitQuiet(QUIET, QUIET_LIMIT);
    Map<String, Long> rpcs0 = rig.rpcs.snapshot();
    Map<String, Long> cpu0 = rig.cpuNanosByProcess();
    HostCpu host0 = HostCpu.now();
    long jit0 = jitMillis();
    long pid = rig.jvmPid(s.jvm);
    long jitCpu0 = rig.jitCpu.millis(pid);
    Ran ran = run(s, concurrency, window, tally);
    HostCpu host1 = HostCpu.now(); // the callers' share, not the drain's
    rig.awaitQuiet(QUIET, QUIET_LIMIT);
    Map<String, Long> cpu1 = rig.cpuNanosByProcess();
    long benchJit = jitMillis() - jit0;
    long jitCpu1 = rig.jitCpu.millis(pid);
    long jitCpu = jitCpu0 < 0 || jitCpu1 < 0 ? -1 : jitCpu1 - jitCpu0;
    if (ran.remote() == null) {
      return new Measured(ran.calls(), ran.elapsedNanos(), cpu0, cpu1, rpcs0, rig.rpcs.snapshot(), benchJit, jitCpu,
          host1.idleSince(host0), percentile(ran.latencies(), 0.5), percentile(ran.latencies(), 0.99));
    }
    Subject.Batch b = ran.remote();
    if (b.rpcsAfter().isEmpty()) { // driven from the driver's JVM: the round trips are the gateway's, counted here
      return new Measured(ran.calls(), ran.elapsedNanos(), cpu0, cpu1, rpcs0, rig.rpcs.snapshot(),
          BenchRig.DRIVER.equals(s.jvm) ? b.jitMillis() : benchJit, jitCpu,
          host1.idleSince(host0), b.p50Nanos(), b.p99Nanos());
    }
    // bare: its JIT and round trips are its own JVM's, counted there
    return new Measured(ran.calls(), ran.elapsedNanos(), cpu0, cpu1, b.rpcsBefore(), b.rpcsAfter(), b.jitMillis(), jitCpu,
        host1.idleSince(host0), b.p50Nanos(), b.p99Nanos());
  }

  /** The JVM's JIT compilation time so far (ms), or 0 where the JVM does not tell. */
  static long jitMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
  }

  /** A batch's calls, time and latencies; {@code remote} when it ran in the subject's own JVM. */
  record Ran(long calls, long elapsedNanos, List<Long> latencies, Subject.Batch remote) {}

  /** {@code concurrency} callers for {@code window}; failures and busy answers counted in {@code tally}. */
  Ran run(Subject s, int concurrency, Duration window, Subject.Tally tally) throws InterruptedException {
    if (s.remoteBatch != null) {
      Subject.Batch b = s.remoteBatched(concurrency, window, tally);
      return new Ran(b.calls(), b.elapsedNanos(), List.of(), b);
    }
    ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
      Thread t = new Thread(r, "bench-caller-" + s.key);
      t.setDaemon(true);
      return t;
    });
    List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    long t0 = System.nanoTime();
    long deadline = t0 + window.toNanos();
    for (int k = 0; k < concurrency; k++) {
      pool.submit(() -> {
        while (System.nanoTime() < deadline) {
          long t = s.timed(tally);
          if (t >= 0) {
            latencies.add(t);
          } else {
            sleepQuietly(10);
          }
        }
      });
    }
    pool.shutdown();
    long limit = window.plus(callTimeout).plusSeconds(5).toMillis();
    if (!pool.awaitTermination(limit, TimeUnit.MILLISECONDS)) {
      pool.shutdownNow();
      tally.failed(new TimeoutException("the throughput batch did not end within " + limit + " ms"));
    }
    long elapsed = System.nanoTime() - t0;
    synchronized (latencies) {
      return new Ran(latencies.size(), elapsed, List.copyOf(latencies), null);
    }
  }

  private static long percentile(List<Long> nanos, double p) {
    return nanos.isEmpty() ? -1 : (long) Subject.percentileNanos(nanos, p);
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
