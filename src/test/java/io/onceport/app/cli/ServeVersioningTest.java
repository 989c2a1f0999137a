package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.TemporalCli;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code serve}'s worker and Worker Versioning: on the embedded engine (no Worker Deployments) it
 * runs unversioned and says so in one line; on the Temporal CLI's server it is the whole
 * deployment, so a serve of a new build makes its build current at once and takes the calls.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ServeVersioningTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String UNVERSIONED = "; the embedded engine has no Worker Deployments: the worker runs unversioned";

  @Test
  void onTheEmbeddedEngineServeRunsUnversionedAndSaysSoOnce() throws Exception {
    try (Cluster cluster = new Cluster();
        ChildProcess serve = cluster.start("serve", "--engine", "embedded", "--listen", "127.0.0.1:0",
            "--embedded-port", Integer.toString(Cluster.freePort()), "--data", cluster.data.toString(),
            "--contracts", cluster.contracts.toString(), "--session-authorization", "auto")) {
      int port = Cluster.awaitFrontend(serve);
      assertEquals(1, serve.output().stream().filter(l -> l.contains(UNVERSIONED)).count(), String.join("\n", serve.output()));
      assertTrue(serve.output().stream().filter(l -> l.contains(UNVERSIONED)).allMatch(l -> l.startsWith("onceport: engine embedded")));
      assertCompletes(cluster, port, "2026.9.1");
    }
  }

  @Test
  void aServeOfANewBuildMakesItsBuildCurrentOnTheEngineItStarted() throws Exception {
    Path binary = TemporalCli.binaryOrSkip();
    Map<String, String> env = Map.of("PATH", binary.getParent() + ":/usr/bin:/bin");
    try (Cluster cluster = new Cluster()) {
      int enginePort = Cluster.freePort();
      try (ChildProcess first = serve(cluster, env, enginePort, "serve-a")) {
        int port = Cluster.awaitFrontend(first);
        first.awaitLine("worker: Worker Deployment onceport, build serve-a: current (made current: a new deployment)", Cluster.START_LINE);
        assertTrue(first.output().stream().noneMatch(l -> l.contains(UNVERSIONED)));
        assertCompletes(cluster, port, "2026.9.2");
      }
      // The same data dir (the same database), a new build: it must take the calls, its predecessor is gone.
      try (ChildProcess second = serve(cluster, env, enginePort, "serve-b")) {
        int port = Cluster.awaitFrontend(second);
        second.awaitLine("worker: Worker Deployment onceport, build serve-b: current (made current by serve; build serve-a was)",
            Cluster.START_LINE);
        assertCompletes(cluster, port, "2026.9.3");
      }
    }
  }

  private static ChildProcess serve(Cluster cluster, Map<String, String> env, int enginePort, String buildId) throws Exception {
    return ChildProcess.onceport(cluster.dir, env, "serve", "--engine", "temporal-cli", "--listen", "127.0.0.1:0",
        "--embedded-port", Integer.toString(enginePort), "--ui-port", "0", "--data", cluster.data.toString(),
        "--contracts", cluster.contracts.toString(), "--session-authorization", "auto", "--build-id", buildId);
  }

  private static void assertCompletes(Cluster cluster, int port, String version) throws Exception {
    JsonNode answer = cluster.client(port).call(1, "create_release", JSON.readTree("{\"service\":\"catalog\",\"version\":\"" + version + "\"}"));
    assertEquals("completed", answer.at("/result/structuredContent/state").asText(), answer.toString());
    assertEquals(1, cluster.dispatches(answer.at("/result/structuredContent/execution_id").asText()));
  }
}
