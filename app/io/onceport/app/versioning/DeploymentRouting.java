package io.onceport.app.versioning;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.deployment.v1.RoutingConfig;
import io.temporal.api.deployment.v1.WorkerDeploymentInfo;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.enums.v1.WorkerVersioningMode;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentResponse;
import io.temporal.api.workflowservice.v1.SetWorkerDeploymentCurrentVersionRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A versioned worker's place in its Worker Deployment, read and set through Temporal's deployment
 * API right after the worker started polling (the server registers a version on its first poll,
 * so {@link #join} waits until the version is listed).
 *
 * <p><b>Who makes a build current.</b> The operator, with Temporal's own {@code temporal worker
 * deployment set-current-version --deployment-name onceport --build-id B} (docs/production.md,
 * "Upgrading"): it is the tool Temporal teams already use and works the same against Temporal
 * Cloud. Two exceptions keep a first run working without it: the first worker of a brand-new
 * deployment makes its own version current ({@link WorkerVersioning.Current#WHEN_NEW}) unless
 * unversioned workers poll the task queue (an upgrade from unversioned workers, which the
 * operator switches over on purpose), and {@code serve} on the engine it started itself always
 * makes its version current ({@link WorkerVersioning.Current#ALWAYS}).
 */
public final class DeploymentRouting {
  private static final Logger LOG = LoggerFactory.getLogger(DeploymentRouting.class);
  /** Jitter for the pauses between asks: workers started together should not ask together again. */
  private static final Random RANDOM = new Random();
  /** How long a worker waits for the server to list its new version (on the dev server: about a second). */
  public static final Duration REGISTRATION_WAIT = Duration.ofSeconds(60);

  private final WorkflowServiceStubs stubs;
  private final String namespace;
  private final String identity;

  public DeploymentRouting(WorkflowServiceStubs stubs, String namespace, String identity) {
    this.stubs = Objects.requireNonNull(stubs, "stubs == null");
    this.namespace = Objects.requireNonNull(namespace, "namespace == null");
    this.identity = Objects.requireNonNull(identity, "identity == null");
  }

  /** Where a version stands after {@link #join}: current or not, and the sentence the start-up line carries. */
  public record Joined(boolean current, String currentBuildId, String note) {
    public Joined {
      Objects.requireNonNull(note, "note == null");
    }
  }

  /**
   * Waits until the deployment lists this worker's version, then makes it current when its policy
   * says so. Never fails the worker over the deployment's routing: a version that is not current
   * yet only waits for the operator. The server rate-limits requests to one deployment (workers
   * starting together see {@code RESOURCE_EXHAUSTED}) and two workers may set the routing at once
   * ({@code FAILED_PRECONDITION} on the conflict token): both are asked again, within {@code wait}.
   * A server without Worker Deployments fails the worker with a message naming the fix.
   */
  public Joined join(WorkerVersioning versioning, String taskQueue, Duration wait) throws InterruptedException {
    if (!versioning.versioned()) {
      throw new IllegalArgumentException("an unversioned worker has no deployment to join");
    }
    String name = versioning.deploymentName();
    String build = versioning.buildId();
    long deadline = System.nanoTime() + wait.toNanos();
    Optional<DescribeWorkerDeploymentResponse> described = awaitListed(name, build, deadline);
    if (described.isEmpty()) {
      return new Joined(false, null, "not yet listed by the server after " + wait.toSeconds() + " s; " + howToMakeCurrent(name, build));
    }
    publishWireProtocol(versioning, deadline);
    long pause = 100;
    while (true) {
      DescribeWorkerDeploymentResponse d = described.get();
      String currentBuild = currentBuildId(d.getWorkerDeploymentInfo());
      if (build.equals(currentBuild)) {
        return new Joined(true, build, "current");
      }
      Optional<String> refusal = refusal(versioning, d.getWorkerDeploymentInfo(), currentBuild, taskQueue);
      if (refusal.isPresent()) {
        return new Joined(false, currentBuild, refusal.get());
      }
      try {
        stubs.blockingStub().setWorkerDeploymentCurrentVersion(SetWorkerDeploymentCurrentVersionRequest.newBuilder()
            .setNamespace(namespace).setDeploymentName(name).setBuildId(build)
            .setConflictToken(d.getConflictToken()).setIdentity(identity)
            .setIgnoreMissingTaskQueues(versioning.current() == WorkerVersioning.Current.ALWAYS)
            .build());
        return new Joined(true, build, currentBuild == null ? "current (made current: a new deployment)"
            : "current (made current by serve; build " + currentBuild + " was)");
      } catch (StatusRuntimeException e) {
        if (!askAgain(e) || System.nanoTime() > deadline) {
          return new Joined(false, currentBuild, "not current: the server did not let it be made current (" + e.getStatus().getCode()
              + ": " + e.getStatus().getDescription() + "); " + howToMakeCurrent(name, build));
        }
      }
      Thread.sleep(pause + RANDOM.nextInt((int) pause));
      pause = Math.min(2000, pause * 2);
      // Another worker changed the routing, or the server was busy: read it again and decide again.
      described = awaitListed(name, build, deadline);
      if (described.isEmpty()) {
        return new Joined(false, null, "not listed by the server after " + wait.toSeconds() + " s; " + howToMakeCurrent(name, build));
      }
    }
  }

  /** Whether a refused request is worth asking again: the server was busy, or the routing changed under it. */
  private static boolean askAgain(StatusRuntimeException e) {
    Status.Code code = e.getStatus().getCode();
    return code == Status.Code.RESOURCE_EXHAUSTED || code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
        || code == Status.Code.FAILED_PRECONDITION || code == Status.Code.ABORTED;
  }

  /**
   * What front ends of other builds read before they start executions here ({@link
   * WireCompatibility}); asked again while the server is busy, and a refusal is only logged.
   */
  private void publishWireProtocol(WorkerVersioning versioning, long deadline) throws InterruptedException {
    long pause = 100;
    while (true) {
      try {
        new WireCompatibility(stubs, namespace).publish(versioning, WireCompatibility.Published.thisBuild(), identity);
        return;
      } catch (StatusRuntimeException e) {
        if (!askAgain(e) || System.nanoTime() > deadline) {
          LOG.warn("cannot publish the wire protocol on {} ({}): front ends of other builds will not check it", versioning,
              e.getStatus().getCode());
          return;
        }
      }
      Thread.sleep(pause + RANDOM.nextInt((int) pause));
      pause = Math.min(2000, pause * 2);
    }
  }

  /** Why this worker must not make itself current, or empty when it should. */
  private Optional<String> refusal(WorkerVersioning versioning, WorkerDeploymentInfo info, String currentBuild, String taskQueue) {
    if (versioning.current() == WorkerVersioning.Current.ALWAYS) {
      return Optional.empty();
    }
    String how = howToMakeCurrent(versioning.deploymentName(), versioning.buildId());
    if (currentBuild != null) {
      return Optional.of("not current: build " + currentBuild + " is; " + how);
    }
    if (info.getRoutingConfig().hasCurrentVersionChangedTime()) {
      return Optional.of("not current: the deployment was set to unversioned workers on purpose; " + how);
    }
    List<String> unversioned = unversionedPollers(taskQueue);
    if (!unversioned.isEmpty()) {
      return Optional.of("not current: unversioned workers poll task queue " + taskQueue + " (" + String.join(", ", unversioned)
          + "); switch over as docs/production.md says (\"From unversioned workers\"): " + how);
    }
    return Optional.empty();
  }

  static String howToMakeCurrent(String deploymentName, String buildId) {
    return "make it current with: temporal worker deployment set-current-version --deployment-name " + deploymentName
        + " --build-id " + buildId;
  }

  /** The current version's build id, or null while the deployment routes new executions to unversioned workers. */
  static String currentBuildId(WorkerDeploymentInfo info) {
    RoutingConfig routing = info.getRoutingConfig();
    if (routing.hasCurrentDeploymentVersion() && !routing.getCurrentDeploymentVersion().getBuildId().isEmpty()) {
      return routing.getCurrentDeploymentVersion().getBuildId();
    }
    return null;
  }

  /** The deployment once it lists {@code build}, or empty at {@code deadline} (System.nanoTime). */
  private Optional<DescribeWorkerDeploymentResponse> awaitListed(String name, String build, long deadline) throws InterruptedException {
    long pause = 100;
    while (true) {
      try {
        DescribeWorkerDeploymentResponse d = describe(name);
        boolean listed = d.getWorkerDeploymentInfo().getVersionSummariesList().stream()
            .anyMatch(v -> build.equals(v.getDeploymentVersion().getBuildId()));
        if (listed) {
          return Optional.of(d);
        }
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
          throw new IllegalStateException("this Temporal server has no Worker Deployments (the embedded engine, or a server "
              + "before 1.28): run the worker with --embedded-engine on `onceport engine`, or upgrade the server", e);
        }
        // NOT_FOUND: no deployment until the server has seen its first poller; the others: busy, ask again.
        if (e.getStatus().getCode() != Status.Code.NOT_FOUND && !askAgain(e)) {
          throw e;
        }
      }
      if (System.nanoTime() > deadline) {
        return Optional.empty();
      }
      Thread.sleep(pause + RANDOM.nextInt((int) pause));
      pause = Math.min(1000, pause * 2);
    }
  }

  public DescribeWorkerDeploymentResponse describe(String deploymentName) {
    return stubs.blockingStub().describeWorkerDeployment(
        DescribeWorkerDeploymentRequest.newBuilder().setNamespace(namespace).setDeploymentName(deploymentName).build());
  }

  /** Identities of workers polling the task queue's workflow tasks without Worker Versioning. */
  private List<String> unversionedPollers(String taskQueue) {
    List<PollerInfo> pollers = stubs.blockingStub().describeTaskQueue(DescribeTaskQueueRequest.newBuilder()
        .setNamespace(namespace).setTaskQueue(TaskQueue.newBuilder().setName(taskQueue).build())
        .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW).build()).getPollersList();
    return pollers.stream()
        .filter(p -> p.getDeploymentOptions().getWorkerVersioningMode() != WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED)
        .map(PollerInfo::getIdentity).toList();
  }
}
