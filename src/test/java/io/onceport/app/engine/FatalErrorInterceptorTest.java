package io.onceport.app.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SDK catches what an activity throws and reports an activity failure; with the interceptor an
 * {@code Error} also reaches the JVM's default uncaught-exception handler (fatal where {@code Main}
 * installed {@code FatalErrors}; captured here), while an ordinary exception does not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FatalErrorInterceptorTest {
  @ActivityInterface
  public interface Risky {
    String run(String what);
  }

  public static final class RiskyImpl implements Risky {
    static final OutOfMemoryError ERROR = new OutOfMemoryError("thrown by an activity");

    @Override
    public String run(String what) {
      if (what.equals("error")) {
        throw ERROR;
      }
      throw new IllegalStateException("an ordinary failure");
    }
  }

  @WorkflowInterface
  public interface Caller {
    @WorkflowMethod
    String call(String what);
  }

  public static final class CallerImpl implements Caller {
    private final Risky risky = Workflow.newActivityStub(Risky.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());

    @Override
    public String call(String what) {
      return risky.run(what);
    }
  }

  private final CompletableFuture<Throwable> reported = new CompletableFuture<>();
  private Thread.UncaughtExceptionHandler previous;
  private TestWorkflowEnvironment env;

  @BeforeEach
  void start() {
    previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> reported.complete(failure));
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkerFactoryOptions(WorkerFactoryOptions.newBuilder().setWorkerInterceptors(new FatalErrorInterceptor()).build())
        .build());
    Worker worker = env.newWorker("fatal");
    worker.registerWorkflowImplementationTypes(CallerImpl.class);
    worker.registerActivitiesImplementations(new RiskyImpl());
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
    Thread.setDefaultUncaughtExceptionHandler(previous);
  }

  private WorkflowFailedException run(String what) {
    Caller caller = env.getWorkflowClient().newWorkflowStub(Caller.class, WorkflowOptions.newBuilder().setTaskQueue("fatal").build());
    return assertThrows(WorkflowFailedException.class, () -> caller.call(what));
  }

  @Test
  void anErrorInAnActivityReachesTheDefaultHandler() throws Exception {
    WorkflowFailedException failed = run("error");
    assertSame(RiskyImpl.ERROR, reported.get(10, TimeUnit.SECONDS));
    assertEquals(ActivityFailure.class, failed.getCause().getClass());
  }

  @Test
  void anOrdinaryExceptionStaysAnActivityFailure() {
    run("exception");
    assertEquals(false, reported.isDone());
  }
}
