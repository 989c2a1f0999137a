package io.onceport.app.versioning;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.workflow.WireProtocol;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.deployment.v1.WorkerDeploymentVersion;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentVersionRequest;
import io.temporal.api.workflowservice.v1.UpdateWorkerDeploymentVersionMetadataRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The {@link WireProtocol} check between front ends and workers of different builds, through the
 * Worker Deployment: a worker publishes what it speaks on its version ({@link #publish}); a front
 * end reads it from the deployment's current version when it starts ({@link #check}) and refuses
 * to run against workers it cannot work with, naming which side to upgrade. What cannot be checked
 * (no deployment yet, unversioned workers, a worker build from before this check) is said, not
 * refused.
 */
public final class WireCompatibility {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * How long a front end asks again while the server says it is busy. The server rate-limits the
   * requests to one Worker Deployment ("too many requests issued to Worker Deployment", {@code
   * RESOURCE_EXHAUSTED}; seen on the dev server while workers and front ends start together): a
   * front end that exited on it would need its supervisor to restart it for a transient refusal.
   */
  static final Duration BUSY_WAIT = Duration.ofSeconds(30);

  private final WorkflowServiceStubs stubs;
  private final String namespace;
  private final Duration busyWait;

  public WireCompatibility(WorkflowServiceStubs stubs, String namespace) {
    this(stubs, namespace, BUSY_WAIT);
  }

  WireCompatibility(WorkflowServiceStubs stubs, String namespace, Duration busyWait) {
    this.stubs = Objects.requireNonNull(stubs, "stubs == null");
    this.namespace = Objects.requireNonNull(namespace, "namespace == null");
    this.busyWait = Objects.requireNonNull(busyWait, "busyWait == null");
  }

  /** What a worker build publishes: the protocol it speaks and the oldest front-end protocol it accepts. */
  public record Published(int speaks, int acceptsFrontEndsFrom) {
    public Published {
      if (speaks < 1 || acceptsFrontEndsFrom < 1 || acceptsFrontEndsFrom > speaks) {
        throw new IllegalArgumentException("Invalid wire protocol range: speaks " + speaks + ", accepts front ends from "
            + acceptsFrontEndsFrom);
      }
    }

    /** This build's workers. */
    public static Published thisBuild() {
      return new Published(WireProtocol.CURRENT, WireProtocol.OLDEST_FRONT_END);
    }

    Payload toPayload() {
      String json = JSON.createObjectNode().put("speaks", speaks).put("accepts_front_ends_from", acceptsFrontEndsFrom).toString();
      return Payload.newBuilder().putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
          .setData(ByteString.copyFrom(json, StandardCharsets.UTF_8)).build();
    }

    static Optional<Published> fromPayload(Payload payload) {
      try {
        JsonNode node = JSON.readTree(payload.getData().toByteArray());
        if (node == null || !node.path("speaks").canConvertToInt() || !node.path("accepts_front_ends_from").canConvertToInt()) {
          return Optional.empty();
        }
        return Optional.of(new Published(node.get("speaks").asInt(), node.get("accepts_front_ends_from").asInt()));
      } catch (IOException | IllegalArgumentException e) {
        return Optional.empty();
      }
    }
  }

  /** A front end's verdict: whether to start, and the sentence that says why. */
  public record Verdict(boolean compatible, String message) {
    public Verdict {
      Objects.requireNonNull(message, "message == null");
    }
  }

  /** Publishes {@code published} on the worker's version (metadata {@value WireProtocol#METADATA_KEY}). */
  public void publish(WorkerVersioning versioning, Published published, String identity) {
    stubs.blockingStub().updateWorkerDeploymentVersionMetadata(UpdateWorkerDeploymentVersionMetadataRequest.newBuilder()
        .setNamespace(namespace).setDeploymentVersion(version(versioning.deploymentName(), versioning.buildId()))
        .putUpsertEntries(WireProtocol.METADATA_KEY, published.toPayload()).setIdentity(identity).build());
  }

  /** Whether a front end speaking {@code frontEnd} can start executions on the deployment's current workers. */
  public Verdict check(String deploymentName, int frontEnd) {
    String currentBuild;
    try {
      DeploymentRouting routing = new DeploymentRouting(stubs, namespace, "onceport-frontend");
      currentBuild = DeploymentRouting.currentBuildId(whileBusy(() -> routing.describe(deploymentName)).getWorkerDeploymentInfo());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND || e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        return new Verdict(true, "no Worker Deployment " + deploymentName + " on this server yet: wire protocol not checked");
      }
      throw e;
    }
    if (currentBuild == null) {
      return new Verdict(true, "Worker Deployment " + deploymentName + " routes new executions to unversioned workers: wire protocol not checked");
    }
    String build = currentBuild;
    Payload entry = whileBusy(() -> stubs.blockingStub().describeWorkerDeploymentVersion(DescribeWorkerDeploymentVersionRequest.newBuilder()
            .setNamespace(namespace).setDeploymentVersion(version(deploymentName, build)).build()))
        .getWorkerDeploymentVersionInfo().getMetadata().getEntriesMap().get(WireProtocol.METADATA_KEY);
    Optional<Published> published = entry == null ? Optional.empty() : Published.fromPayload(entry);
    String workers = "the current workers (Worker Deployment " + deploymentName + ", build " + currentBuild + ")";
    if (published.isEmpty()) {
      return new Verdict(true, workers + " publish no wire protocol (a build from before the check): not checked");
    }
    Published p = published.get();
    if (frontEnd > p.speaks()) {
      return new Verdict(false, workers + " speak wire protocol " + p.speaks() + "; this front end speaks " + frontEnd
          + ": make a worker build that speaks " + frontEnd + " current first (upgrade workers before front ends; "
          + "docs/production.md, \"Upgrading\")");
    }
    if (frontEnd < p.acceptsFrontEndsFrom()) {
      return new Verdict(false, workers + " accept front ends of wire protocol " + p.acceptsFrontEndsFrom() + " and later; this front end"
          + " speaks " + frontEnd + ": upgrade this front end to build " + currentBuild + " (docs/production.md, \"Upgrading\")");
    }
    return new Verdict(true, workers + " speak wire protocol " + p.speaks() + " and accept front ends from " + p.acceptsFrontEndsFrom()
        + "; this front end speaks " + frontEnd);
  }

  /**
   * {@code request}'s answer, asked again (backing off 100 ms doubling to 2 s, with jitter) while
   * the server answers busy ({@code RESOURCE_EXHAUSTED}, {@code UNAVAILABLE}, {@code
   * DEADLINE_EXCEEDED}) and {@link #busyWait} has not passed; any other refusal, or the last busy
   * one, is thrown. Both requests only read, so asking again changes nothing on the server.
   */
  private <T> T whileBusy(Supplier<T> request) {
    long deadline = System.nanoTime() + busyWait.toNanos();
    long pause = 100;
    while (true) {
      try {
        return request.get();
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        boolean busy = code == Status.Code.RESOURCE_EXHAUSTED || code == Status.Code.UNAVAILABLE
            || code == Status.Code.DEADLINE_EXCEEDED;
        if (!busy || System.nanoTime() + pause * 1_000_000 > deadline) {
          throw e;
        }
      }
      try {
        Thread.sleep(pause + ThreadLocalRandom.current().nextLong(pause));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the Temporal server was busy", e);
      }
      pause = Math.min(2000, pause * 2);
    }
  }

  private static WorkerDeploymentVersion version(String deploymentName, String buildId) {
    return WorkerDeploymentVersion.newBuilder().setDeploymentName(deploymentName).setBuildId(buildId).build();
  }
}
