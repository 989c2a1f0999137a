package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.shared.codec.Payloads;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.McpClient;
import io.onceport.testing.TemporalCli;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An operator finds an execution in the Temporal UI by {@code OnceportExecutionId}: {@code onceport
 * serve --engine temporal-cli} (the real server with its UI) in a child JVM, one call through MCP,
 * then headless Chromium (Debian {@code chromium}) opens the UI's workflow list filtered by the
 * search attribute, dumps the DOM and saves a screenshot to target/ui/executions.png.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TemporalUiChromiumTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path SCREENSHOT = Path.of("target", "ui", "executions.png");

  @Test
  void theTemporalUiListsTheExecutionFoundByItsOnceportExecutionIdAndNoOther() throws Exception {
    TemporalCli.binaryOrSkip();
    if (!Files.isExecutable(CHROMIUM) && System.getenv("CI") != null) {
      fail("CI is set but " + CHROMIUM + " is missing (.ci/run installs Debian's chromium)");
    }
    assumeTrue(Files.isExecutable(CHROMIUM), "headless Chromium is not installed (apt-get install chromium)");
    try (Cluster cluster = new Cluster()) {
      int temporalPort = Cluster.freePort();
      int uiPort = Cluster.freePort();
      int listenPort = Cluster.freePort();
      ChildProcess serve = cluster.start("serve", "--engine", "temporal-cli", "--embedded-port", Integer.toString(temporalPort),
          "--ui-port", Integer.toString(uiPort), "--data", cluster.data.toString(), "--contracts", cluster.contracts.toString(),
          "--listen", "127.0.0.1:" + listenPort, "--session-authorization", "auto", "--task-queue", Cluster.TASK_QUEUE);
      int mcpPort = Cluster.awaitFrontend(serve);
      assertTrue(serve.output().stream().anyMatch(l -> l.contains("UI http://127.0.0.1:" + uiPort)), serve.output().toString());
      assertEquals(listenPort, mcpPort);
      assertUiDecodesThroughTheCodecServer(uiPort, mcpPort);
      McpClient client = cluster.client(mcpPort);
      String found = executionId(client.call(1, "create_release", JSON.readTree("{\"service\":\"catalog\",\"version\":\"2026.12.7\"}")));
      String other = executionId(client.call(2, "create_release", JSON.readTree("{\"service\":\"search\",\"version\":\"2026.12.8\"}")));
      String foundWorkflow;
      String otherWorkflow;
      try (TemporalConnection connection = TemporalConnection.connect("127.0.0.1:" + temporalPort, "default", false,
          Payloads.dataConverter(true, cluster.data), Duration.ofSeconds(10))) {
        ExecutionDirectory directory = new ExecutionDirectory(connection);
        foundWorkflow = directory.locate(found).orElseThrow().workflowId();
        otherWorkflow = directory.locate(other).orElseThrow().workflowId();
        awaitVisible(connection, found);
      }
      String url = "http://127.0.0.1:" + uiPort + "/namespaces/default/workflows?query="
          + URLEncoder.encode("OnceportExecutionId=\"" + found + "\"", StandardCharsets.UTF_8).replace("+", "%20");

      String dom = chromium(List.of("--dump-dom", url));
      assertTrue(dom.contains(foundWorkflow), "the UI page does not show " + foundWorkflow + " (" + dom.length() + " chars)");
      assertFalse(dom.contains(otherWorkflow), "the filtered list also shows " + otherWorkflow);

      Files.createDirectories(SCREENSHOT.getParent());
      Files.deleteIfExists(SCREENSHOT);
      chromium(List.of("--screenshot=" + SCREENSHOT.toAbsolutePath(), "--window-size=1400,900", url));
      byte[] png = Files.readAllBytes(SCREENSHOT);
      assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, Arrays.copyOf(png, 4));
      assertTrue(png.length > 20_000, "a near-empty screenshot: " + png.length + " bytes");
    }
  }

  /** The UI's settings name the codec server on the UI's origin, and the front end's codec server allows the UI's origin. */
  private static void assertUiDecodesThroughTheCodecServer(int uiPort, int mcpPort) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    var settings = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + uiPort + "/api/v1/settings"))
        .timeout(Duration.ofSeconds(10)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(200, settings.statusCode(), settings.body());
    // The UI's own origin: serve's UI gateway serves the codec server there, so the sign-in cookie reaches it.
    assertEquals("http://127.0.0.1:" + uiPort + "/codec", JSON.readTree(settings.body()).at("/Codec/Endpoint").asText(), settings.body());
    String origin = "http://127.0.0.1:" + uiPort;
    var preflight = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + mcpPort + "/codec/decode"))
        .method("OPTIONS", java.net.http.HttpRequest.BodyPublishers.noBody()).header("Origin", origin)
        .header("Access-Control-Request-Method", "POST").timeout(Duration.ofSeconds(10)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(origin, preflight.headers().firstValue("Access-Control-Allow-Origin").orElse(null), preflight.headers().map().toString());
  }

  private static String executionId(JsonNode answer) {
    assertEquals("completed", answer.at("/result/structuredContent/state").asText(), answer.toString());
    return answer.at("/result/structuredContent/execution_id").asText();
  }

  /** Visibility is eventually consistent: the UI lists what a visibility query returns. */
  private static void awaitVisible(TemporalConnection connection, String executionId) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (connection.client().listExecutions("OnceportExecutionId = '" + executionId + "'").count() == 1) {
        return;
      }
      Thread.sleep(200);
    }
    fail(executionId + " is not visible to visibility queries");
  }

  /** Runs headless Chromium (bounded: 60 s) and returns its stdout. */
  private static String chromium(List<String> args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--virtual-time-budget=15000", "--user-data-dir=" + Files.createTempDirectory("onceport-chromium")));
    command.addAll(args);
    Path stdout = Files.createTempFile("chromium", ".out");
    Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("chromium did not finish within 60 s: " + command);
    }
    assertEquals(0, p.exitValue(), "chromium exited " + p.exitValue() + ": " + command);
    return Files.readString(stdout);
  }
}
