package io.onceport.app.engine;

import io.onceport.app.versioning.DeploymentRouting;
import io.onceport.app.versioning.WorkerVersioning;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.workflow.WorkflowImplementations;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A worker polling one task queue: the ToolExecution and AgentSession workflows plus the given
 * activity implementations, as a version of a Worker Deployment or unversioned ({@link
 * WorkerVersioning}).
 */
public final class WorkerHost implements AutoCloseable {
  private final WorkerFactory factory;
  private final WorkerVersioning versioning;
  private final DeploymentRouting.Joined joined;

  private WorkerHost(WorkerFactory factory, WorkerVersioning versioning, DeploymentRouting.Joined joined) {
    this.factory = factory;
    this.versioning = versioning;
    this.joined = joined;
  }

  /** As {@link #start(TemporalConnection, String, WorkerTuning, WorkerVersioning, Object...)}: default tuning, unversioned. */
  public static WorkerHost start(TemporalConnection connection, String taskQueue, Object... activities) {
    return start(connection, taskQueue, WorkerTuning.DEFAULT, activities);
  }

  /** As below, unversioned (a worker inside a test or a bench, not a role of a deployment). */
  public static WorkerHost start(TemporalConnection connection, String taskQueue, WorkerTuning tuning, Object... activities) {
    return start(connection, taskQueue, tuning, WorkerVersioning.unversioned("an in-process worker"), activities);
  }

  /**
   * Starts polling; {@code tuning} bounds the executions and threads cached workflows may hold. A
   * versioned worker then waits until the server lists its version and makes it current when its
   * policy says so ({@link DeploymentRouting#join}).
   */
  public static WorkerHost start(TemporalConnection connection, String taskQueue, WorkerTuning tuning, WorkerVersioning versioning,
      Object... activities) {
    WorkerFactoryOptions.Builder factoryOptions = WorkerFactoryOptions.newBuilder()
        .setWorkflowCacheSize(tuning.workflowCacheSize())
        .setMaxWorkflowThreadCount(tuning.maxWorkflowThreads());
    // An Error in an activity (or a VirtualMachineError in workflow code) ends the process, see FatalErrors;
    // then Temporal's tracing interceptors, only when tracing is on (TemporalConnection#workerInterceptors).
    List<WorkerInterceptor> interceptors = new ArrayList<>();
    interceptors.add(new FatalErrorInterceptor());
    interceptors.addAll(connection.workerInterceptors());
    factoryOptions.setWorkerInterceptors(interceptors.toArray(WorkerInterceptor[]::new));
    WorkerFactory factory = WorkerFactory.newInstance(connection.client(), factoryOptions.build());
    // A cold or CPU-starved JVM can spend over a second loading classes inside a workflow task; the
    // SDK's default 1 s deadlock detection would fail such a task (and any query replaying it).
    WorkerOptions.Builder options = WorkerOptions.newBuilder().setDefaultDeadlockDetectionTimeout(10_000);
    if (versioning.versioned()) {
      options.setDeploymentOptions(versioning.deploymentOptions());
    }
    Worker worker = factory.newWorker(taskQueue, options.build());
    worker.registerWorkflowImplementationTypes(WorkflowImplementations.types());
    worker.registerActivitiesImplementations(activities);
    factory.start();
    DeploymentRouting.Joined joined = null;
    if (versioning.versioned()) {
      try {
        joined = new DeploymentRouting(connection.stubs(), connection.namespace(), connection.client().getOptions().getIdentity())
            .join(versioning, taskQueue, DeploymentRouting.REGISTRATION_WAIT);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        factory.shutdownNow();
        throw new IllegalStateException("interrupted while joining " + versioning, e);
      } catch (RuntimeException e) {
        factory.shutdownNow();
        throw new IllegalStateException("cannot join " + versioning + ": " + TemporalConnection.shortReason(e), e);
      }
    }
    return new WorkerHost(factory, versioning, joined);
  }

  /** How this worker runs, for the start-up line: its deployment version and whether it is current, or why it is unversioned. */
  public String describe() {
    return versioning.versioned() ? versioning + ": " + joined.note() : versioning.toString();
  }

  public WorkerVersioning versioning() {
    return versioning;
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(5, TimeUnit.SECONDS);
    factory.shutdownNow();
  }
}
