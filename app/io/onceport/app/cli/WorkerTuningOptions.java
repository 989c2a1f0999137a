package io.onceport.app.cli;

import io.onceport.app.engine.WorkerTuning;
import picocli.CommandLine.Option;

/** {@code --workflow-cache-size} and {@code --workflow-threads}: the worker's bounds on cached executions (a picocli mixin). */
final class WorkerTuningOptions {
  @Option(names = "--workflow-cache-size", paramLabel = "N",
      description = "Executions the worker keeps cached between workflow tasks (default: " + WorkerTuning.DEFAULT_CACHE_SIZE
          + "). Each holds a parked thread and its state; evicted ones are replayed from history when they wake.")
  Integer workflowCacheSize;

  @Option(names = "--workflow-threads", paramLabel = "N",
      description = "Workflow threads the worker may use, at least the cache size (default: " + WorkerTuning.DEFAULT_THREADS + ").")
  Integer workflowThreads;

  WorkerTuning tuning() {
    int cache = workflowCacheSize == null ? WorkerTuning.DEFAULT.workflowCacheSize() : workflowCacheSize;
    int threads = workflowThreads == null ? Math.max(WorkerTuning.DEFAULT.maxWorkflowThreads(), cache) : workflowThreads;
    try {
      return new WorkerTuning(cache, threads);
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage().replace("workflow cache size", "--workflow-cache-size")
          .replace("workflow thread count", "--workflow-threads"));
    }
  }
}
