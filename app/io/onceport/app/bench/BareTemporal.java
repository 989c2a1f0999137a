package io.onceport.app.bench;

import io.onceport.app.engine.WorkerTuning;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The bare Temporal baseline: the smallest program that does what a side-effecting call does with
 * the same SDK on the same engine — start a workflow that runs one activity making the same HTTP
 * POST, and wait for its result. Default data converter (no encryption), no journal, no search
 * attributes, one activity; the same connection options as the gateway's (sticky workflow tasks, as
 * serve's own worker keeps them on either engine) and the same worker bounds (workflow cache size,
 * workflow threads).
 */
final class BareTemporal implements AutoCloseable {
  static final String TASK_QUEUE = "onceport-bench-bare";

  @WorkflowInterface
  public interface PostWorkflow {
    @WorkflowMethod
    int run(String body);
  }

  @ActivityInterface
  public interface PostActivity {
    @ActivityMethod
    int post(String body);
  }

  public static final class PostWorkflowImpl implements PostWorkflow {
    private final PostActivity activity = Workflow.newActivityStub(PostActivity.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());

    @Override
    public int run(String body) {
      return activity.post(body);
    }
  }

  static final class PostActivityImpl implements PostActivity {
    private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
    private final OkHttpClient http = new OkHttpClient();
    private final String url;

    PostActivityImpl(String url) {
      this.url = url;
    }

    @Override
    public int post(String body) {
      Request request = new Request.Builder().url(url).header("Idempotency-Key", "bare-" + UUID.randomUUID())
          .post(RequestBody.create(body, JSON)).build();
      try (Response response = http.newCall(request).execute()) {
        response.body().string();
        return response.code();
      } catch (IOException e) {
        throw io.temporal.activity.Activity.wrap(e);
      }
    }

    void close() {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }

  private final WorkflowClient client;
  private final WorkerFactory factory;
  private final PostActivityImpl activity;

  private BareTemporal(WorkflowClient client, WorkerFactory factory, PostActivityImpl activity) {
    this.client = client;
    this.factory = factory;
    this.activity = activity;
  }

  /** A worker for the baseline on its own task queue, posting to {@code url}, bounded as the gateway's worker is. */
  static BareTemporal start(WorkflowServiceStubs stubs, String namespace, String url, WorkerTuning tuning) {
    WorkflowClient client = WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
    WorkerFactory factory = WorkerFactory.newInstance(client, WorkerFactoryOptions.newBuilder()
        .setWorkflowCacheSize(tuning.workflowCacheSize()).setMaxWorkflowThreadCount(tuning.maxWorkflowThreads()).build());
    Worker worker = factory.newWorker(TASK_QUEUE);
    worker.registerWorkflowImplementationTypes(PostWorkflowImpl.class);
    PostActivityImpl activity = new PostActivityImpl(url);
    worker.registerActivitiesImplementations(activity);
    factory.start();
    return new BareTemporal(client, factory, activity);
  }

  /** Starts one workflow and waits for its result (the target's status code). */
  int call(String body) {
    PostWorkflow stub = client.newWorkflowStub(PostWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue(TASK_QUEUE).setWorkflowId("bench-bare-" + UUID.randomUUID()).build());
    return stub.run(body);
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(5, TimeUnit.SECONDS);
    factory.shutdownNow();
    activity.close();
  }
}
