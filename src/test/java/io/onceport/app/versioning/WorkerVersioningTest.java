package io.onceport.app.versioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.common.VersioningBehavior;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WorkerVersioningTest {
  @Test
  void aVersionedWorkerPollsAsItsDeploymentAndBuildWithEveryWorkflowPinned() {
    WorkerVersioning v = WorkerVersioning.of("onceport", "0.1.0-SNAPSHOT+8bb8254894", WorkerVersioning.Current.WHEN_NEW);
    assertTrue(v.versioned());
    assertTrue(v.deploymentOptions().isUsingVersioning());
    assertEquals("onceport", v.deploymentOptions().getVersion().getDeploymentName());
    assertEquals("0.1.0-SNAPSHOT+8bb8254894", v.deploymentOptions().getVersion().getBuildId());
    // Every workflow type pinned by the deployment's default (an annotation would be sent unversioned too).
    assertEquals(VersioningBehavior.PINNED, v.deploymentOptions().getDefaultVersioningBehavior());
    assertEquals("Worker Deployment onceport, build 0.1.0-SNAPSHOT+8bb8254894", v.toString());
  }

  @Test
  void namesTemporalRefusesAreRefusedNamingTheFlag() {
    IllegalArgumentException dot = assertThrows(IllegalArgumentException.class,
        () -> WorkerVersioning.of("once.port", "b1", WorkerVersioning.Current.WHEN_NEW));
    assertEquals("--deployment-name must not contain '.' or ':' (Temporal separates name and build id with them), not 'once.port'",
        dot.getMessage());
    assertEquals("--build-id must not be empty",
        assertThrows(IllegalArgumentException.class, () -> WorkerVersioning.of("onceport", " ", WorkerVersioning.Current.WHEN_NEW)).getMessage());
    assertEquals("--build-id must be 1 to 255 characters without spaces and must not start with '__', not '__b'",
        assertThrows(IllegalArgumentException.class, () -> WorkerVersioning.of("onceport", "__b", WorkerVersioning.Current.WHEN_NEW)).getMessage());
    assertEquals("--deployment-name must be 1 to 255 characters without spaces and must not start with '__', not 'a b'",
        assertThrows(IllegalArgumentException.class, () -> WorkerVersioning.of("a b", "b", WorkerVersioning.Current.WHEN_NEW)).getMessage());
  }

  @Test
  void anUnversionedWorkerSaysWhy() {
    WorkerVersioning v = WorkerVersioning.unversioned("the embedded engine has no Worker Deployments");
    assertFalse(v.versioned());
    assertNull(v.version());
    assertEquals("unversioned (the embedded engine has no Worker Deployments)", v.toString());
  }

  @Test
  void theDefaultBuildIdIsTheVersionAndTheCommitThisJarWasBuiltFrom() {
    BuildInfo build = BuildInfo.current();
    // The build writes git.properties from this checkout (git-commit-id-maven-plugin).
    assertTrue(build.commit().isPresent(), "no commit in git.properties");
    assertTrue(Pattern.matches("[0-9a-f]{10}", build.commit().get()), build.commit().get());
    assertEquals(build.version() + "+" + build.commit().get(), build.defaultBuildId());
  }

  @Test
  void withoutACommitTheBuildIdNamesTheWorkflowCodeInstead() {
    BuildInfo noGit = new BuildInfo("0.1.0", null);
    String id = noGit.defaultBuildId();
    assertTrue(Pattern.matches("0\\.1\\.0\\+wf[0-9a-f]{10}", id), id);
    assertEquals(id, new BuildInfo("0.1.0", "").defaultBuildId(), "the same workflow code, the same id");
  }
}
