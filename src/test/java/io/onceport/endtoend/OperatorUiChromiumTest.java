package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.codec.Payloads;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.HeadlessChromium;
import io.onceport.testing.McpClient;
import io.onceport.testing.Records;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The operator's UI, tried as an operator would, in headless Chromium: {@code serve} on the Temporal
 * CLI's dev server prints a one-time sign-in link; an irreversible call whose response was lost
 * waits in {@code needs_review}. Without signing in, the execution's page cannot decode anything
 * (the codec server refuses the browser). After opening the link once, the same page shows the
 * decoded input — the tool, the message sent and where — and, on its "User Metadata" tab, the reason
 * it waits in the run's current details (what the replay policy decided, {@code CallStory}), with
 * screenshots in target/ui/. (The UI renders user metadata in same-origin iframes, which {@link
 * HeadlessChromium#text} reads.)
 * A cross-origin request without the cookie, or from an origin that is not configured, is refused.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class OperatorUiChromiumTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SHOTS = Path.of("target", "ui");
  private static final String MESSAGE = "rolled out catalog 2026.12.6 to eu-west";
  /** Why it waits, as the replay policy said it (CallStory's current details; encrypted, the UI cannot show it). */
  private static final String REASON = "replay policy decided: needs_review: the outcome is unknown; "
      + "an irreversible action is never re-sent automatically";
  /** The execution's input as the UI shows it decoded (encrypted, it is base64 of ciphertext). */
  private static final String DECODED_TOOL = "\"tool\": \"send_notification\"";

  @Test
  void signedInOnceTheOperatorSeesTheDecodedRecordOfAnExecutionInNeedsReview() throws Exception {
    TemporalCli.binaryOrSkip();
    HeadlessChromium.requireInstalled();
    try (Cluster cluster = new Cluster()) {
      int uiPort = Cluster.freePort();
      int listenPort = Cluster.freePort();
      ChildProcess serve = cluster.start("serve", "--engine", "temporal-cli", "--embedded-port", Integer.toString(Cluster.freePort()),
          "--ui-port", Integer.toString(uiPort), "--data", cluster.data.toString(), "--contracts", cluster.contracts.toString(),
          "--listen", "127.0.0.1:" + listenPort, "--session-authorization", "auto", "--task-queue", Cluster.TASK_QUEUE);
      int mcpPort = Cluster.awaitFrontend(serve);
      String ui = "http://127.0.0.1:" + uiPort;
      String signIn = serve.awaitLine(ui + "/codec/sign-in?ticket=", Cluster.START_LINE).output().stream()
          .filter(l -> l.contains("/codec/sign-in?ticket=")).findFirst().orElseThrow().strip();

      cluster.armFault("drop-after-accept", 1);
      McpClient agent = cluster.client(mcpPort);
      JsonNode answer = agent.call(1, "send_notification", JSON.readTree("{\"message\":\"" + MESSAGE + "\"}"));
      String executionId = answer.at("/result/structuredContent/execution_id").asText();
      ExecutionRecord record;
      try (TemporalConnection connection = TemporalConnection.connect("127.0.0.1:" + serve.output().stream()
              .filter(l -> l.contains("Temporal 127.0.0.1:")).findFirst().map(OperatorUiChromiumTest::temporalPort).orElseThrow(),
          "default", false, Payloads.dataConverter(true, cluster.data), Duration.ofSeconds(10))) {
        record = Records.await(new ExecutionDirectory(connection), executionId, r -> r.state() == ExecutionState.NEEDS_REVIEW,
            Duration.ofSeconds(60));
      }
      String page = ui + "/namespaces/default/workflows/" + record.workflowId() + "/" + record.runId() + "/history";

      try (HeadlessChromium stranger = HeadlessChromium.start()) {
        stranger.open(page);
        String text = stranger.awaitText(t -> t.contains("Codec Server could not connect") && t.contains("Input"), Duration.ofSeconds(60),
            "the codec server refusing a browser that did not sign in");
        assertFalse(text.contains(DECODED_TOOL), "decoded without signing in:\n" + text);
        stranger.screenshot(SHOTS.resolve("needs-review-not-signed-in.png"));
        stranger.open(page.replace("/history", "/user-metadata"));
        String story = stranger.awaitText(t -> t.contains("Codec Server could not connect") && t.contains("Current Details"),
            Duration.ofSeconds(60), "the User Metadata tab without signing in");
        assertFalse(story.contains(REASON) || story.contains("state: needs_review"), "decoded without signing in:\n" + story);
      }

      try (HeadlessChromium operator = HeadlessChromium.start()) {
        operator.open(signIn);
        operator.awaitText(t -> t.contains("Workflows"), Duration.ofSeconds(60), "the workflow list after signing in");
        operator.open(page);
        String target = "\"target\": \"" + cluster.target.url() + "/v1/notifications\"";
        String text = operator.awaitText(t -> t.contains(DECODED_TOOL) && t.contains(target), Duration.ofSeconds(60),
            "the decoded input of the execution");
        assertFalse(text.contains("Codec Server could not connect"), text);
        Path shot = SHOTS.resolve("needs-review-signed-in.png");
        operator.screenshot(shot);
        assertTrue(Files.size(shot) > 20_000, "a near-empty screenshot");

        // Why it waits: the "User Metadata" tab shows the run's current details, decoded.
        assertTrue(operator.click("User Metadata"), "no User Metadata tab:\n" + operator.text());
        String story = operator.awaitText(t -> t.contains(REASON), Duration.ofSeconds(60), "the reason the execution needs review");
        assertTrue(story.contains("state: needs_review, outcome unknown"), story);
        assertTrue(story.contains("send 1: observed outcome_unknown"), story);
        assertTrue(story.contains(record.executionId()), story);
        Path reasonShot = SHOTS.resolve("needs-review-reason.png");
        operator.screenshot(reasonShot);
        assertTrue(Files.size(reasonShot) > 20_000, "a near-empty screenshot");

        // The link was spent: a second browser cannot use it.
        try (HeadlessChromium replay = HeadlessChromium.start()) {
          replay.open(signIn);
          replay.awaitText(t -> t.contains("used already"), Duration.ofSeconds(30), "the spent link refused");
        }
      }
      assertCrossOriginRequestsNeedTheCookie(mcpPort, ui, signIn);
    }
  }

  /** On the front end's own port (another origin than the UI): no cookie, no decode; an origin not configured, refused. */
  private static void assertCrossOriginRequestsNeedTheCookie(int mcpPort, String ui, String spentLink) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String body = "{\"payloads\":[{\"metadata\":{\"encoding\":\"YmluYXJ5L2VuY3J5cHRlZA==\"},\"data\":\"\"}]}";
    URI decode = URI.create("http://127.0.0.1:" + mcpPort + "/codec/decode");
    HttpResponse<String> noCookie = http.send(HttpRequest.newBuilder(decode).header("Origin", ui).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(401, noCookie.statusCode(), noCookie.body());
    assertTrue(noCookie.body().contains("not signed in"), noCookie.body());
    HttpResponse<String> otherOrigin = http.send(HttpRequest.newBuilder(decode).header("Origin", "https://evil.example")
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(403, otherOrigin.statusCode(), otherOrigin.body());
    HttpResponse<String> preflight = http.send(HttpRequest.newBuilder(decode).header("Origin", "https://evil.example")
        .header("Access-Control-Request-Method", "POST").method("OPTIONS", HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertTrue(preflight.headers().firstValue("Access-Control-Allow-Origin").isEmpty(), preflight.headers().map().toString());
    HttpResponse<String> uiPreflight = http.send(HttpRequest.newBuilder(decode).header("Origin", ui)
        .header("Access-Control-Request-Method", "POST").method("OPTIONS", HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(ui, uiPreflight.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
    assertEquals("true", uiPreflight.headers().firstValue("Access-Control-Allow-Credentials").orElse(null));
    assertTrue(spentLink.startsWith(ui + "/codec/sign-in?ticket="), spentLink);
  }

  private static String temporalPort(String line) {
    String rest = line.substring(line.indexOf("Temporal 127.0.0.1:") + "Temporal 127.0.0.1:".length());
    return rest.substring(0, rest.indexOf(' '));
  }
}
