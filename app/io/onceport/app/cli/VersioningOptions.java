package io.onceport.app.cli;

import io.onceport.app.versioning.BuildInfo;
import io.onceport.app.versioning.WorkerVersioning;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --deployment-name} and {@code --build-id}: the Worker Deployment version a worker polls as
 * ({@code worker}, and {@code serve} on an engine with Worker Deployments).
 */
final class VersioningOptions {
  static final String ENV_BUILD_ID = "ONCEPORT_BUILD_ID";
  static final String ENV_DEPLOYMENT_NAME = "ONCEPORT_DEPLOYMENT_NAME";

  static {
    // Read by the --build-id description when --help is printed: this jar's own default.
    if (System.getProperty("onceport.build-id") == null) {
      System.setProperty("onceport.build-id", BuildInfo.current().defaultBuildId());
    }
  }

  @Mixin DeploymentName deployment;

  @Option(names = "--build-id", paramLabel = "ID", defaultValue = "${env:" + ENV_BUILD_ID + "}",
      description = "This worker's build id in the deployment (default: $" + ENV_BUILD_ID
          + " or this jar's version and commit: ${sys:onceport.build-id}). Make a new build current with "
          + "`temporal worker deployment set-current-version --deployment-name NAME --build-id ID`.")
  String buildId;

  /**
   * {@code --deployment-name}: workers join it; a front end reads the wire protocol of its current
   * version ({@code WireCompatibility}) before it starts.
   */
  static final class DeploymentName {
    @Option(names = "--deployment-name", paramLabel = "NAME",
        defaultValue = "${env:" + ENV_DEPLOYMENT_NAME + ":-" + WorkerVersioning.DEFAULT_DEPLOYMENT_NAME + "}",
        description = "The Temporal Worker Deployment of the workers (default: $" + ENV_DEPLOYMENT_NAME + " or ${DEFAULT-VALUE}). "
            + "Executions are pinned to the build that started them.")
    String name;
  }

  /** The versioned worker these options name; a CLI error naming the flag when a value is not one Temporal accepts. */
  WorkerVersioning versioning(WorkerVersioning.Current current) {
    String id = buildId == null || buildId.isBlank() ? BuildInfo.current().defaultBuildId() : buildId;
    try {
      return WorkerVersioning.of(deployment.name, id, current);
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
  }
}
