package io.onceport.app.versioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.onceport.workflow.WireProtocol;
import io.temporal.api.deployment.v1.RoutingConfig;
import io.temporal.api.deployment.v1.VersionMetadata;
import io.temporal.api.deployment.v1.WorkerDeploymentInfo;
import io.temporal.api.deployment.v1.WorkerDeploymentVersion;
import io.temporal.api.deployment.v1.WorkerDeploymentVersionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentResponse;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentVersionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentVersionResponse;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A front end's wire-protocol check against a server that rate-limits the Worker Deployment's
 * requests: the dev server answered a front end starting beside its workers "RESOURCE_EXHAUSTED:
 * too many requests issued to Worker Deployment 'onceport'" and the front end exited (a full CI run,
 * FrontEndKilledWithCallsOpenTest). The server here is a gRPC service in this JVM that refuses the
 * first requests as the dev server did, so the count of refusals is the test's, not the load's.
 */
@Timeout(60)
class WireCompatibilityBusyTest {
  private static final String DEPLOYMENT = "onceport";
  private static final String BUILD = "b1";

  private final AtomicInteger busyDeploymentAnswers = new AtomicInteger();
  private final AtomicInteger busyVersionAnswers = new AtomicInteger();
  private final AtomicInteger deploymentRequests = new AtomicInteger();
  private final AtomicInteger versionRequests = new AtomicInteger();
  private volatile Status.Code refusal = Status.Code.RESOURCE_EXHAUSTED;
  private Server server;
  private ManagedChannel channel;
  private WorkflowServiceStubs stubs;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).directExecutor().addService(new WorkflowServiceGrpc.WorkflowServiceImplBase() {
      @Override
      public void getSystemInfo(GetSystemInfoRequest request, StreamObserver<GetSystemInfoResponse> answer) {
        // The SDK's stubs ask once what the server supports before their first request.
        answer.onNext(GetSystemInfoResponse.getDefaultInstance());
        answer.onCompleted();
      }

      @Override
      public void describeWorkerDeployment(DescribeWorkerDeploymentRequest request, StreamObserver<DescribeWorkerDeploymentResponse> answer) {
        deploymentRequests.incrementAndGet();
        if (busyDeploymentAnswers.getAndDecrement() > 0) {
          answer.onError(refusal.toStatus().withDescription("too many requests issued to Worker Deployment 'onceport'. Please try again later")
              .asRuntimeException());
          return;
        }
        WorkerDeploymentVersion current = WorkerDeploymentVersion.newBuilder().setDeploymentName(DEPLOYMENT).setBuildId(BUILD).build();
        answer.onNext(DescribeWorkerDeploymentResponse.newBuilder().setWorkerDeploymentInfo(WorkerDeploymentInfo.newBuilder()
            .setName(DEPLOYMENT).setRoutingConfig(RoutingConfig.newBuilder().setCurrentDeploymentVersion(current))).build());
        answer.onCompleted();
      }

      @Override
      public void describeWorkerDeploymentVersion(DescribeWorkerDeploymentVersionRequest request,
          StreamObserver<DescribeWorkerDeploymentVersionResponse> answer) {
        versionRequests.incrementAndGet();
        if (busyVersionAnswers.getAndDecrement() > 0) {
          answer.onError(Status.RESOURCE_EXHAUSTED.withDescription("too many requests issued to Worker Deployment 'onceport'")
              .asRuntimeException());
          return;
        }
        answer.onNext(DescribeWorkerDeploymentVersionResponse.newBuilder().setWorkerDeploymentVersionInfo(
            WorkerDeploymentVersionInfo.newBuilder().setMetadata(VersionMetadata.newBuilder()
                .putEntries(WireProtocol.METADATA_KEY, WireCompatibility.Published.thisBuild().toPayload()))).build());
        answer.onCompleted();
      }
    }).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setChannel(channel).build());
  }

  @AfterEach
  void stop() throws Exception {
    stubs.shutdownNow();
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void aFrontEndAsksAgainWhileTheDeploymentIsBusyAndThenChecks() {
    busyDeploymentAnswers.set(3);
    busyVersionAnswers.set(2);
    WireCompatibility.Verdict verdict = new WireCompatibility(stubs, "default").check(DEPLOYMENT, WireProtocol.CURRENT);
    assertTrue(verdict.compatible(), verdict.message());
    assertTrue(verdict.message().contains("build " + BUILD + ")") && verdict.message().contains("speak wire protocol"),
        "the verdict is the real check's, not 'not checked': " + verdict.message());
    assertEquals(4, deploymentRequests.get(), "three busy answers, then the deployment");
    assertEquals(3, versionRequests.get(), "two busy answers, then the version");
  }

  @Test
  void aServerBusyLongerThanTheWaitIsStillAnErrorNamingTheRefusal() {
    busyDeploymentAnswers.set(Integer.MAX_VALUE);
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
        () -> new WireCompatibility(stubs, "default", Duration.ofMillis(700)).check(DEPLOYMENT, WireProtocol.CURRENT));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
    assertTrue(deploymentRequests.get() >= 2 && deploymentRequests.get() <= 6,
        "asked again with backoff within 700 ms, not in a tight loop: " + deploymentRequests.get());
  }

  @Test
  void aRefusalThatIsNotBusyIsNotAskedAgain() {
    refusal = Status.Code.PERMISSION_DENIED;
    busyDeploymentAnswers.set(1);
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
        () -> new WireCompatibility(stubs, "default").check(DEPLOYMENT, WireProtocol.CURRENT));
    assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
    assertEquals(1, deploymentRequests.get());
  }
}
