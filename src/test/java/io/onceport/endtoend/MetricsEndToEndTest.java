package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A scrape of the front end's {@code /metrics} after real calls: the front end counts the duplicate
 * that attached; the worker's series come through the Temporal SDK's scopes (the workflow's
 * replay-safe scope and the dispatch activity's scope), reported into the same registry every
 * 10 s because the connection was built with {@code metrics.metricsScope()}. Then {@code /readyz}
 * with Temporal up and stopped.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MetricsEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** The sum of every sample of {@code name} whose labels contain all of {@code labels}. */
  private static double sum(String scrape, String name, String... labels) {
    double total = 0;
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} ([0-9.eE+-]+)$").matcher(scrape);
    while (m.find()) {
      boolean all = true;
      for (String label : labels) {
        all &= m.group(1).contains(label);
      }
      if (all) {
        total += Double.parseDouble(m.group(2));
      }
    }
    return total;
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Scrapes until {@code name} with {@code labels} sums to {@code expected} (the SDK reports every 10 s). */
  private String awaitSeries(int port, double expected, String name, String... labels) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String scrape = get(port, "/metrics").body();
    while (sum(scrape, name, labels) != expected && System.nanoTime() < deadline) {
      Thread.sleep(250);
      scrape = get(port, "/metrics").body();
    }
    assertEquals(expected, sum(scrape, name, labels), name + " " + String.join(",", labels) + " in\n" + scrape);
    return scrape;
  }

  @Test
  void aScrapeAfterRealCallsCountsTheDuplicateTheExecutionsAndTheDispatchesAndReadyzFollowsTemporal() throws Exception {
    try (GatewayHarness gateway = new GatewayHarness(true)) {
      int port = gateway.frontend.port();
      McpClient client = gateway.client();
      JsonNode first = JSON.readTree("{\"service\":\"catalog\",\"version\":\"2026.10.1\"}");
      gateway.armFault("delay=1500", 1);
      CompletableFuture<JsonNode> original = CompletableFuture.supplyAsync(() -> {
        try {
          return client.call(1, "create_release", first);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      Thread.sleep(400);
      JsonNode duplicate = client.call(2, "create_release", first);
      assertTrue(duplicate.at("/result/structuredContent/attached").asBoolean(), duplicate.toString());
      assertEquals("completed", original.get(30, TimeUnit.SECONDS).at("/result/structuredContent/state").asText());
      // Executions without a racing duplicate count exactly: two single calls of another tool.
      for (int i = 0; i < 2; i++) {
        JsonNode single = client.call(10 + i, "create_release_keyed", JSON.readTree("{\"service\":\"catalog\",\"version\":\"2026.10.1" + i + "\"}"));
        assertEquals("completed", single.at("/result/structuredContent/state").asText(), single.toString());
      }

      String scrape = get(port, "/metrics").body();
      assertEquals(1.0, sum(scrape, "onceport_attaches_total", "tool=\"create_release\""), scrape);
      awaitSeries(port, 2.0, "onceport_executions_total", "tool=\"create_release_keyed\"", "state=\"completed\"", "outcome=\"completed\"");
      scrape = awaitSeries(port, 2.0, "onceport_dispatch_seconds_count", "tool=\"create_release_keyed\"", "channel=\"http\"");
      assertEquals(1.0, sum(scrape, "onceport_dispatch_seconds_count", "tool=\"create_release\""), "the duplicate was not dispatched");
      // The execution with two calls counts once: executions are counted by the journal activity
      // when the outcome entry is first appended (appends are idempotent), not by workflow code,
      // which can run again when a workflow task completion is rejected.
      double withDuplicate = sum(scrape, "onceport_executions_total", "tool=\"create_release\"", "state=\"completed\"");
      assertEquals(1.0, withDuplicate, "create_release executions counted " + withDuplicate);
      assertEquals(0.0, sum(scrape, "onceport_executions_total", "state=\"needs_review\""), scrape);
      assertEquals(0.0, sum(scrape, "onceport_unknown_outcomes_total"), scrape);
      assertTrue(scrape.contains("temporal_request"), "the SDK's own metrics are in the same registry");
      // Onceport's meters carry the labels they are about, not the SDK's padding (signal_name="none", …).
      List<String> padded = scrape.lines().filter(l -> l.startsWith("onceport_") && l.contains("=\"none\"")).toList();
      assertEquals(List.of(), padded);
      assertTrue(scrape.lines().anyMatch(l -> l.startsWith("onceport_dispatch_seconds_count{activity_type=\"Send\",channel=\"http\"")),
          scrape);

      HttpResponse<String> ready = get(port, "/readyz");
      assertEquals(200, ready.statusCode(), ready.body());
      assertEquals(200, get(port, "/healthz").statusCode());

      gateway.engine.close();
      HttpResponse<String> notReady = get(port, "/readyz");
      assertEquals(503, notReady.statusCode(), notReady.body());
      JsonNode body = JSON.readTree(notReady.body());
      assertEquals("not ready", body.get("status").asText());
      assertEquals("[\"temporal\"]", body.get("failing").toString());
      assertEquals(200, get(port, "/healthz").statusCode());
    }
  }
}
