package io.onceport.app.runtime;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.shared.temporal.TemporalConnection;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.frontend.ops.HealthChecks.Verdict;
import io.onceport.shared.cli.CommandName;
import io.temporal.api.enums.v1.TaskQueueKind;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What a call needs from Temporal besides a server that answers, asked of the server itself: the
 * namespace exists (DescribeNamespace), Onceport's search attributes are registered in it
 * (ListSearchAttributes; every execution upserts them, and an unregistered one fails its first
 * workflow task), and a worker polls the task queue (DescribeTaskQueue's pollers; without one an
 * execution is started and nothing ever runs it). Each failing check names the command that fixes
 * it. Before these checks a front end misconfigured in any of these ways answered {@code /readyz}
 * with {@code ready} and failed every call after the 20 s attach budget, logging nothing.
 *
 * <p>An engine that does not implement a question (the embedded Java test server answers neither
 * ListSearchAttributes nor DescribeTaskQueue) passes that check: there is nothing to ask, and serve
 * runs its own worker and registers the attributes on that engine itself. A server that does not
 * answer at all is the {@code temporal} check's failure, not a blocking one: calls keep their retry
 * budget across an engine restart.
 */
public final class EngineReadiness {
  /** Each question's deadline: a readiness probe answers within a few seconds, whatever Temporal does. */
  private static final long DEADLINE_MILLIS = 3_000;

  private final TemporalConnection connection;
  private final String taskQueue;

  public EngineReadiness(TemporalConnection connection, String taskQueue) {
    this.connection = Objects.requireNonNull(connection, "connection == null");
    this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue == null");
  }

  /** The command that creates the namespace and registers the search attributes. */
  public String setupCommand() {
    return CommandName.command("temporal setup --temporal " + connection.target() + " --namespace " + connection.namespace());
  }

  /** The namespace exists. */
  public Verdict namespace() {
    try {
      connection.stubs().blockingStub().withDeadlineAfter(DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
          .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace(connection.namespace()).build());
      return Verdict.OK;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Verdict.blocking("namespace " + connection.namespace() + " does not exist at " + connection.target(),
            setupCommand());
      }
      return unanswered(e);
    }
  }

  /** Onceport's search attributes are registered in the namespace. */
  public Verdict searchAttributes() {
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
        .setChannel(connection.stubs().getRawChannel()).validateAndBuildWithDefaults());
    try {
      Set<String> registered = operator.blockingStub().withDeadlineAfter(DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
          .listSearchAttributes(ListSearchAttributesRequest.newBuilder().setNamespace(connection.namespace()).build())
          .getCustomAttributesMap().keySet();
      List<String> missing = ExecutionSearchAttributes.NAMES.stream().filter(a -> !registered.contains(a)).toList();
      return missing.isEmpty() ? Verdict.OK : Verdict.blocking("search attributes not registered in namespace "
          + connection.namespace() + ": " + String.join(", ", missing), setupCommand());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Verdict.blocking("namespace " + connection.namespace() + " does not exist at " + connection.target(),
            setupCommand());
      }
      return unanswered(e);
    } finally {
      operator.shutdownNow();
    }
  }

  /** A worker polls the task queue for workflow tasks. */
  public Verdict workerPolling() {
    try {
      int pollers = connection.stubs().blockingStub().withDeadlineAfter(DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
          .describeTaskQueue(DescribeTaskQueueRequest.newBuilder()
              .setNamespace(connection.namespace())
              .setTaskQueue(TaskQueue.newBuilder().setName(taskQueue).setKind(TaskQueueKind.TASK_QUEUE_KIND_NORMAL))
              .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
              .build())
          .getPollersCount();
      return pollers > 0 ? Verdict.OK : Verdict.blocking("no worker polls task queue " + taskQueue + " in namespace "
          + connection.namespace() + " at " + connection.target(), CommandName.command("worker --temporal "
          + connection.target() + " --namespace " + connection.namespace() + " --task-queue " + taskQueue));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Verdict.blocking("namespace " + connection.namespace() + " does not exist at " + connection.target(),
            setupCommand());
      }
      return unanswered(e);
    }
  }

  /** Not asked (the engine does not implement it) passes; no answer is a failure for now, not a block. */
  private static Verdict unanswered(StatusRuntimeException e) {
    if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
      return Verdict.OK;
    }
    return Verdict.failing("Temporal did not answer: " + TemporalConnection.shortReason(e));
  }
}
