package io.onceport.testing;

import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Replays histories against the current workflow code, as {@link WorkflowReplayer} does, with two
 * differences that matter on a loaded CI machine. One test environment serves every replay of a
 * test class (the replayer's short forms start a new one per history). And the replay worker's
 * deadlock detection allows {@link #DEADLOCK_DETECTION_MILLIS}, as the product's workers do
 * ({@code WorkerHost}), instead of the SDK's default of one second: a first replay loads and
 * initialises the workflow classes, and on a busy two-core machine that alone can keep a workflow
 * thread from yielding for a second, which the replayer reports as a potential deadlock. A real
 * deadlock (a blocking call in workflow code) is still caught; a non-deterministic history still
 * fails replay.
 */
public final class Replayer implements AutoCloseable {
  /** The same allowance as the product's workers. */
  public static final long DEADLOCK_DETECTION_MILLIS = 10_000;

  private final TestWorkflowEnvironment env;
  private final AtomicInteger workers = new AtomicInteger();

  public Replayer() {
    env = TestWorkflowEnvironment.newInstance();
  }

  /** Replays histories whose payloads {@code converter} reads (e.g. encrypted ones, with the deployment's keys). */
  public Replayer(DataConverter converter) {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(converter).build()).build());
  }

  /** Replays the history in the classpath resource (JSON, as {@code fetchHistory().toJson()} writes). */
  public void replayResource(String resource, Class<?>... workflowTypes) throws Exception {
    replay(WorkflowExecutionHistory.fromJson(readResource(resource)), workflowTypes);
  }

  /** Replays {@code history}; throws what the replayer throws (a non-determinism error above all). */
  public void replay(WorkflowExecutionHistory history, Class<?>... workflowTypes) throws Exception {
    Worker worker = env.newWorker("replay-" + workers.incrementAndGet(),
        WorkerOptions.newBuilder().setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION_MILLIS).build());
    worker.registerWorkflowImplementationTypes(workflowTypes);
    WorkflowReplayer.replayWorkflowExecution(history, worker);
  }

  public static String readResource(String resource) {
    try (InputStream in = Replayer.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new AssertionError("missing " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    env.close();
  }
}
