package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The calls of the subjects an MCP client makes (the direct POST, the pass-through, Onceport's
 * side-effecting and read calls), as the load driver runs them — in the driver's JVM ({@link
 * DriverChild}), or in the bench JVM for the storm, the memory probe and the history.
 *
 * @param target the demo target's base URL
 * @param mcp the gateway's MCP endpoint
 * @param passThrough the pass-through's MCP endpoint, or null when it is skipped
 * @param run this run's id, part of every call's arguments so every call is a distinct request
 */
record BenchCalls(URI target, URI mcp, String token, URI passThrough, String run, String tool, String releaseId, Duration timeout) {
  /** States of an execution still on its way: an answer in one of them is "outcome pending, ask again". */
  static final java.util.Set<String> IN_FLIGHT = java.util.Set.of("accepted", "authorized", "dispatched", "verifying");
  /** The demo contract's read tool the read subjects call. */
  static final String READ_TOOL = "bench_read_release";

  /** Every subject's call, by subject key; the pass-through's only when it runs. */
  Map<String, Subject.Call> calls(HttpClient http) throws IOException, InterruptedException {
    Map<String, Subject.Call> calls = new LinkedHashMap<>();
    URI direct = URI.create(target + "/v1/releases");
    calls.put("direct", n -> {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(direct).timeout(timeout).header("Content-Type", "application/json")
          .header("Idempotency-Key", "direct-" + run + "-" + n)
          .POST(HttpRequest.BodyPublishers.ofString(args(run, "direct", n, true))).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 201) {
        throw new IOException("target answered " + r.statusCode() + ": " + McpDriver.abbreviate(r.body()));
      }
    });
    String readArgs = "{\"id\":\"" + releaseId + "\"}";
    if (passThrough != null) {
      McpDriver pt = new McpDriver(http, passThrough, null);
      calls.put("passthrough", n -> expectRead(pt.call(READ_TOOL, readArgs, McpDriver.ACCEPT_SDK, timeout), releaseId));
    }
    McpDriver onceport = new McpDriver(http, mcp, token).initialize();
    calls.put("sse", n -> expectCompleted(onceport.call(tool, args(run, "sse", n, false), McpDriver.ACCEPT_SDK, timeout)));
    calls.put("json", n -> expectCompleted(onceport.call(tool, args(run, "json", n, false), McpDriver.ACCEPT_JSON, timeout)));
    calls.put("read", n -> expectRead(onceport.call(READ_TOOL, readArgs, McpDriver.ACCEPT_SDK, timeout), releaseId));
    return calls;
  }

  /** A call's arguments: distinct per subject, run and call number. */
  static String args(String run, String subject, int n, boolean withRegion) {
    return "{\"service\":\"bench-" + subject + "\",\"version\":\"" + run + "-" + n + "\""
        + (withRegion ? ",\"region\":\"us-east-1\"" : "") + "}";
  }

  /**
   * A completed call's answer; a busy answer throws {@link Subject.BusyAnswer}, an answer given
   * while the execution is still in flight {@link Subject.PendingAnswer}, anything else an IOException.
   */
  static void expectCompleted(JsonNode result) throws IOException {
    JsonNode summary = result.path("_meta").path("onceport/execution");
    if (summary.isMissingNode()) {
      summary = result.path("structuredContent");
    }
    if (result.path("structuredContent").path("busy").asBoolean(false)) {
      throw new Subject.BusyAnswer("busy: " + McpDriver.abbreviate(result.path("structuredContent").path("message").asText()));
    }
    String state = summary.path("state").asText();
    if (IN_FLIGHT.contains(state) && !result.path("isError").asBoolean(false)) {
      throw new Subject.PendingAnswer("answered before its outcome (" + state + "): "
          + McpDriver.abbreviate(result.path("content").path(0).path("text").asText()));
    }
    if (!"completed".equals(state)) {
      throw new IOException("not completed: " + McpDriver.abbreviate(result.toString()));
    }
  }

  static void expectRead(JsonNode result, String releaseId) throws IOException {
    if (result.path("isError").asBoolean(false) || !result.path("content").path(0).path("text").asText().contains(releaseId)) {
      throw new IOException("the read did not return release " + releaseId + ": " + McpDriver.abbreviate(result.toString()));
    }
  }
}
