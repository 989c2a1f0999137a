package io.onceport.app.engine;

/**
 * How much of a worker's memory and threads cached workflows may hold.
 *
 * <p>The Temporal SDK keeps each cached execution's state machine and a parked Java thread (its
 * workflow method, blocked in {@code Workflow.await}) so that the next workflow task needs no
 * replay. Its defaults (600 executions, 600 threads) let executions that only wait — for an
 * operator, a session decision, an approval — pin a thread and its state each, for as long as they
 * wait. Bounding the cache evicts the least recently used ones; an evicted execution is replayed
 * from its history when it wakes, which for Onceport's short histories costs milliseconds. The
 * thread bound caps bursts (update handlers run on workflow threads too); when a task needs more
 * threads than are free, the SDK first evicts idle cached executions.
 *
 * <p>Why 256 by default, not fewer: the SDK's cache is a Guava cache with concurrency level 128,
 * so {@code n} entries are {@code n / 16} segments that each evict their own least recently used
 * entry. A call's run stays open for its delivery grace after the answer (about 1.1 s), so a
 * worker taking 100 calls a second holds some 110 runs in flight: with 128 (8 segments of 16)
 * segments overflowed and 35–76 % of the runs' second workflow tasks replayed from history
 * ({@code onceport bench}, docs/performance.md); 256 makes 16 segments. Each cached waiting
 * execution costs a parked thread: 1,000 waiting executions held 48 MiB more RSS and 9 MiB more
 * heap with 256 than with 128 (docs/production.md).
 *
 * @param workflowCacheSize executions kept in the worker's sticky cache (0: none)
 * @param maxWorkflowThreads workflow threads in the worker's pool, at least {@code workflowCacheSize}
 */
public record WorkerTuning(int workflowCacheSize, int maxWorkflowThreads) {
  public static final int DEFAULT_CACHE_SIZE = 256;
  public static final int DEFAULT_THREADS = 600;
  /** What a serve or worker uses unless told otherwise. */
  public static final WorkerTuning DEFAULT = new WorkerTuning(DEFAULT_CACHE_SIZE, DEFAULT_THREADS);
  /** The Temporal SDK's own defaults (what Onceport used before it bounded the cache). */
  public static final WorkerTuning SDK_DEFAULT = new WorkerTuning(600, 600);

  public WorkerTuning {
    if (workflowCacheSize < 0) {
      throw new IllegalArgumentException("Invalid workflow cache size: " + workflowCacheSize + " (must be 0 or more)");
    }
    if (maxWorkflowThreads < 1) {
      throw new IllegalArgumentException("Invalid workflow thread count: " + maxWorkflowThreads + " (must be at least 1)");
    }
    if (maxWorkflowThreads < workflowCacheSize) {
      throw new IllegalArgumentException("Invalid workflow thread count: " + maxWorkflowThreads
          + " (must be at least the workflow cache size, " + workflowCacheSize + ": every cached execution parks a thread)");
    }
  }
}
