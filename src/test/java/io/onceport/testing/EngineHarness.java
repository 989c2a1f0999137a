package io.onceport.testing;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.frontend.gateway.CallPreparation;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.frontend.temporal.TemporalExecutionGateway;
import io.onceport.app.engine.WorkerHost;
import io.onceport.app.runtime.InProcessAnswers;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.function.Function;

/** The embedded engine on a free loopback port, one non-sticky worker, and a gateway. */
public final class EngineHarness implements AutoCloseable {
  public static final String TASK_QUEUE = "onceport-test";
  public final EmbeddedEngine engine;
  public final TemporalConnection connection;
  public final WorkerHost worker;
  public final ExecutionDirectory directory;
  public final TemporalExecutionGateway gateway;

  public EngineHarness(CallPreparation preparation, Object... activities) {
    this(preparation, client -> activities);
  }

  /** On its own task queue (the in-process answer desk is per task queue). */
  public EngineHarness(String taskQueue, CallPreparation preparation, Object... activities) {
    this(taskQueue, preparation, io.onceport.app.engine.WorkerTuning.DEFAULT, client -> activities);
  }

  /** For activities that need the engine's client themselves (the operator session authority). */
  public EngineHarness(CallPreparation preparation, Function<WorkflowClient, Object[]> activities) {
    this(preparation, io.onceport.app.engine.WorkerTuning.DEFAULT, activities);
  }

  /** With the worker's workflow cache and thread bounds. */
  public EngineHarness(CallPreparation preparation, io.onceport.app.engine.WorkerTuning tuning,
      Function<WorkflowClient, Object[]> activities) {
    this(TASK_QUEUE, preparation, tuning, activities);
  }

  private EngineHarness(String taskQueue, CallPreparation preparation, io.onceport.app.engine.WorkerTuning tuning,
      Function<WorkflowClient, Object[]> activities) {
    engine = EmbeddedEngine.start("127.0.0.1", 0);
    connection = TemporalConnection.connect(engine.target(), "default", true, null, Duration.ofSeconds(10));
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    worker = WorkerHost.start(connection, taskQueue, tuning, activities.apply(connection.client()));
    directory = new ExecutionDirectory(connection);
    gateway = new TemporalExecutionGateway(connection, directory, taskQueue, preparation, "test-frontend", null,
        InProcessAnswers.of(taskQueue));
  }

  /** Moves the embedded engine's clock on by {@code d} at once ({@link EngineClock}). */
  public void skipTime(Duration d) {
    EngineClock.skip(connection, d);
  }

  @Override
  public void close() {
    worker.close();
    connection.close();
    engine.close();
  }
}
