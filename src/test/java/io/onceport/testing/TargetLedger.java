package io.onceport.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo target's {@code GET /ledger} as a witness: the requests it received for one endpoint and
 * one service, read over HTTP as any client would (the entries carry at least method, path, key and
 * the JSON body).
 */
public final class TargetLedger {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private TargetLedger() {}

  /** Ledger entries of POSTs to {@code path} whose body names {@code service}. */
  public static List<JsonNode> posts(String baseUrl, String path, String service) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/ledger")).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("GET /ledger answered " + r.statusCode() + ": " + r.body());
    }
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode e : JSON.readTree(r.body())) {
      if ("POST".equals(e.path("method").asText()) && path.equals(e.path("path").asText())
          && service.equals(e.at("/body/service").asText())) {
        out.add(e);
      }
    }
    return out;
  }

  /** Waits until at least one such POST is in the ledger and returns the first one's key (the execution id). */
  public static String awaitFirstKey(String baseUrl, String path, String service, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      List<JsonNode> found = posts(baseUrl, path, service);
      if (!found.isEmpty()) {
        return found.get(0).path("key").asText();
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no POST " + path + " for " + service + " reached the target within " + timeout);
  }
}
