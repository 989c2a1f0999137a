package io.onceport.app.engine;

import io.onceport.frontend.temporal.TemporalConnection;
import io.onceport.workflow.WorkflowImplementations;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A worker polling one task queue: the ToolExecution and AgentSession workflows plus the given activity implementations. */
public final class WorkerHost implements AutoCloseable {
  private final WorkerFactory factory;

  private WorkerHost(WorkerFactory factory) {
    this.factory = factory;
  }

  /** As {@link #start(TemporalConnection, String, WorkerTuning, Object...)} with {@link WorkerTuning#DEFAULT}. */
  public static WorkerHost start(TemporalConnection connection, String taskQueue, Object... activities) {
    return start(connection, taskQueue, WorkerTuning.DEFAULT, activities);
  }

  /** Starts polling; {@code tuning} bounds the executions and threads cached workflows may hold. */
  public static WorkerHost start(TemporalConnection connection, String taskQueue, WorkerTuning tuning, Object... activities) {
    WorkerFactoryOptions.Builder options = WorkerFactoryOptions.newBuilder()
        .setWorkflowCacheSize(tuning.workflowCacheSize())
        .setMaxWorkflowThreadCount(tuning.maxWorkflowThreads());
    // An Error in an activity (or a VirtualMachineError in workflow code) ends the process, see FatalErrors;
    // then Temporal's tracing interceptors, only when tracing is on (TemporalConnection#workerInterceptors).
    List<WorkerInterceptor> interceptors = new ArrayList<>();
    interceptors.add(new FatalErrorInterceptor());
    interceptors.addAll(connection.workerInterceptors());
    options.setWorkerInterceptors(interceptors.toArray(WorkerInterceptor[]::new));
    WorkerFactory factory = WorkerFactory.newInstance(connection.client(), options.build());
    // A cold or CPU-starved JVM can spend over a second loading classes inside a workflow task; the
    // SDK's default 1 s deadlock detection would fail such a task (and any query replaying it).
    Worker worker = factory.newWorker(taskQueue, WorkerOptions.newBuilder().setDefaultDeadlockDetectionTimeout(10_000).build());
    worker.registerWorkflowImplementationTypes(WorkflowImplementations.types());
    worker.registerActivitiesImplementations(activities);
    factory.start();
    return new WorkerHost(factory);
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(5, TimeUnit.SECONDS);
    factory.shutdownNow();
  }
}
