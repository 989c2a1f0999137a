package io.onceport.app.versioning;

import io.temporal.common.VersioningBehavior;
import io.temporal.common.WorkerDeploymentVersion;
import io.temporal.worker.WorkerDeploymentOptions;
import java.util.Objects;

/**
 * Whether a worker joins a Temporal Worker Deployment, and as which version. A versioned worker
 * polls as {@code <deployment name>:<build id>}; the ToolExecution and AgentSession workflows are
 * {@code PINNED}, so an execution runs to its end on the build that started it and a new build never
 * replays an older build's history. The embedded engine (Temporal's Java test server) has no Worker
 * Deployments: workers there run {@link #unversioned}.
 */
public final class WorkerVersioning {
  /** The default deployment name (and what {@code --deployment-name} defaults to). */
  public static final String DEFAULT_DEPLOYMENT_NAME = "onceport";
  /** Temporal's bound on deployment names and build ids. */
  static final int MAX_LENGTH = 255;

  /** When a versioned worker makes its own version the deployment's current one. */
  public enum Current {
    /**
     * Only in a brand-new deployment (never had a current version) that no unversioned worker
     * polls: the first worker a first-time user starts takes calls at once; every later build is
     * made current by the operator ({@code temporal worker deployment set-current-version}).
     */
    WHEN_NEW,
    /**
     * Always: {@code serve} on the engine it started itself is the whole deployment, and a new
     * {@code serve} build must take the calls that follow (its predecessor is gone).
     */
    ALWAYS
  }

  private final String deploymentName;
  private final String buildId;
  private final Current current;
  private final String unversionedReason;

  private WorkerVersioning(String deploymentName, String buildId, Current current, String unversionedReason) {
    this.deploymentName = deploymentName;
    this.buildId = buildId;
    this.current = current;
    this.unversionedReason = unversionedReason;
  }

  /** A versioned worker; fails with a message naming the flag when a name or id is not one Temporal accepts. */
  public static WorkerVersioning of(String deploymentName, String buildId, Current current) {
    Objects.requireNonNull(current, "current == null");
    String name = check("--deployment-name", deploymentName);
    if (name.contains(".") || name.contains(":")) {
      throw new IllegalArgumentException("--deployment-name must not contain '.' or ':' (Temporal separates name and build id with them), not '"
          + name + "'");
    }
    return new WorkerVersioning(name, check("--build-id", buildId), current, null);
  }

  /** An unversioned worker; {@code reason} is said once at start-up (e.g. "the embedded engine has no Worker Deployments"). */
  public static WorkerVersioning unversioned(String reason) {
    return new WorkerVersioning(null, null, null, Objects.requireNonNull(reason, "reason == null"));
  }

  private static String check(String flag, String value) {
    String v = value == null ? "" : value.strip();
    if (v.isEmpty()) {
      throw new IllegalArgumentException(flag + " must not be empty");
    }
    if (v.startsWith("__") || v.length() > MAX_LENGTH || v.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
      throw new IllegalArgumentException(flag + " must be 1 to " + MAX_LENGTH
          + " characters without spaces and must not start with '__', not '" + value + "'");
    }
    return v;
  }

  public boolean versioned() {
    return deploymentName != null;
  }

  public String deploymentName() {
    return deploymentName;
  }

  public String buildId() {
    return buildId;
  }

  public Current current() {
    return current;
  }

  /** Why this worker is unversioned, or null when it is versioned. */
  public String unversionedReason() {
    return unversionedReason;
  }

  public WorkerDeploymentVersion version() {
    return versioned() ? new WorkerDeploymentVersion(deploymentName, buildId) : null;
  }

  /**
   * The SDK's deployment options for this worker: versioned, every workflow type {@code PINNED}
   * (ToolExecution and AgentSession, the only types: an execution finishes on the build that
   * started it). Set here as the deployment's default rather than by {@code @WorkflowVersioningBehavior}
   * on the types: the SDK sends an annotated behaviour from an unversioned worker too, and a server
   * refuses every workflow task of such a worker ("versioning behavior cannot be specified without
   * deployment options being set with versioned mode"; seen in ReadinessEndToEndTest on the dev server).
   */
  public WorkerDeploymentOptions deploymentOptions() {
    if (!versioned()) {
      return WorkerDeploymentOptions.newBuilder().setUseVersioning(false).build();
    }
    return WorkerDeploymentOptions.newBuilder().setUseVersioning(true).setVersion(version())
        .setDefaultVersioningBehavior(VersioningBehavior.PINNED).build();
  }

  @Override
  public String toString() {
    return versioned() ? "Worker Deployment " + deploymentName + ", build " + buildId : "unversioned (" + unversionedReason + ")";
  }
}
