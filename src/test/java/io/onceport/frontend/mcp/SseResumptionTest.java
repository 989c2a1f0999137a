package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** SSE answers to tools/call: priming, progress from the record, result, and resumption anywhere. */
@Timeout(60)
class SseResumptionTest {
  private final McpHarness h = new McpHarness();
  private static final String SLOW = "{\"jsonrpc\":\"2.0\",\"id\":\"call-7\",\"method\":\"tools/call\",\"params\":"
      + "{\"name\":\"slow\",\"arguments\":{},\"_meta\":{\"progressToken\":\"p-1\"}}}";

  @AfterEach
  void close() {
    h.close();
  }

  record Event(String id, String retry, String data) {}

  static List<Event> events(String body) {
    List<Event> out = new ArrayList<>();
    String text = body.contains("\r\n\r\n") && body.startsWith("HTTP/") ? body.substring(body.indexOf("\r\n\r\n") + 4) : body;
    for (String block : text.split("\n\n")) {
      String id = null;
      String retry = null;
      StringBuilder data = null;
      for (String line : block.split("\n")) {
        if (line.startsWith("id: ")) {
          id = line.substring(4);
        } else if (line.startsWith("retry: ")) {
          retry = line.substring(7);
        } else if (line.startsWith("data:")) {
          data = (data == null ? new StringBuilder() : data.append('\n')).append(line.substring(5).trim());
        }
      }
      if (id != null || data != null) {
        out.add(new Event(id, retry, data == null ? null : data.toString()));
      }
    }
    return out;
  }

  @Test
  void toolCallStreamPrimesThenReportsProgressThenTheResult() throws Exception {
    String session = h.initialize("2025-11-25");
    HttpResponse<String> r = h.post(SLOW, "Mcp-Session-Id", session);
    assertEquals(200, r.statusCode());
    assertEquals("text/event-stream", r.headers().firstValue("Content-Type").orElse("").split(";")[0]);
    List<Event> ev = events(r.body());
    assertEquals("1000", ev.get(0).retry());
    assertEquals("", ev.get(0).data());
    assertTrue(ev.get(0).id().startsWith("act_"));
    JsonNode progress = McpHarness.json(ev.get(1).data());
    assertEquals("notifications/progress", progress.get("method").asText());
    assertEquals("p-1", progress.at("/params/progressToken").asText());
    JsonNode result = McpHarness.json(ev.get(ev.size() - 1).data());
    assertEquals("call-7", result.get("id").asText());
    assertEquals("completed", result.at("/result/structuredContent/state").asText());
    Set<String> ids = new HashSet<>();
    ev.forEach(e -> assertTrue(ids.add(e.id()), "duplicate event id " + e.id()));
    long progressValue = -1;
    for (Event e : ev.subList(1, ev.size() - 1)) {
      long p = McpHarness.json(e.data()).at("/params/progress").asLong();
      assertTrue(p > progressValue, "progress increases");
      progressValue = p;
    }
    String executionId = result.at("/result/structuredContent/execution_id").asText();
    assertTrue(h.gateway.awaitReports(executionId, 1).get(0).report().delivered());
  }

  @Test
  void brokenStreamResumesOnAnotherFrontEndFromTheDurableRecord() throws Exception {
    h.gateway.slowMillis = 1500;
    String session = h.initialize("2025-11-25");
    Socket s = RawHttp.send(h.server.port(), "POST", SLOW, "Authorization", "Bearer " + McpHarness.TOKEN,
        "Accept", "application/json, text/event-stream", "Mcp-Session-Id", session);
    List<Event> first = events(RawHttp.readUntil(s, "retry:"));
    String lastId = first.get(0).id();
    s.close(); // the stream breaks right after priming

    HttpResponse<String> resumed = h.http.send(h.request(h.second).header("Mcp-Session-Id", session)
        .header("Last-Event-ID", lastId).header("Accept", "text/event-stream").GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, resumed.statusCode());
    List<Event> ev = events(resumed.body());
    Event last = ev.get(ev.size() - 1);
    JsonNode result = McpHarness.json(last.data());
    assertEquals("call-7", result.get("id").asText(), "the original request's id");
    assertFalse(result.at("/result/isError").asBoolean());
    for (Event e : ev.subList(0, ev.size() - 1)) {
      assertEquals("notifications/progress", McpHarness.json(e.data()).get("method").asText());
    }
    String executionId = result.at("/result/structuredContent/execution_id").asText();
    assertEquals(1, h.gateway.dispatches.size(), "one dispatch");
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (h.gateway.reportsFor(executionId).stream().noneMatch(x -> x.report().delivered()) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    String callId = h.gateway.find(executionId).orElseThrow().calls().get(0).callId();
    assertTrue(h.gateway.reportsFor(executionId).stream()
        .anyMatch(x -> x.report().delivered() && x.report().callId().equals(callId)));
    assertEquals(h.gateway.find(executionId).orElseThrow().calls().size(), 1, "resuming is not a new call");
  }

  @Test
  void progressReportsEveryTransitionOfTheRecordAndAResumedStreamGoesOnFromTheEventIdsCount() throws Exception {
    String session = h.initialize("2025-11-25");
    String call = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"echo\",\"arguments\":{\"n\":1},\"_meta\":{\"progressToken\":7}}}";
    Socket s = RawHttp.send(h.server.port(), "POST", call, "Authorization", "Bearer " + McpHarness.TOKEN,
        "Accept", "application/json, text/event-stream", "Mcp-Session-Id", session);
    String priming = events(RawHttp.readUntil(s, "retry:")).get(0).id();
    s.close(); // broken right after priming; the execution goes on and settles unseen
    String executionId = EventIds.parse(priming).executionId();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!h.gateway.find(executionId).orElseThrow().isSettled() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }

    List<Event> ev = events(resume(session, priming).body());
    // accepted, authorized and dispatched all came and went while nobody watched: each is reported
    List<Long> progress = new ArrayList<>();
    List<String> states = new ArrayList<>();
    for (Event e : ev.subList(0, 3)) {
      progress.add(McpHarness.json(e.data()).at("/params/progress").asLong());
      states.add(McpHarness.json(e.data()).at("/params/message").asText().split(" ")[2].replace(":", ""));
    }
    assertEquals(List.of(1L, 2L, 3L), progress);
    assertEquals(List.of("accepted", "authorized", "dispatched"), states);
    assertEquals("7", McpHarness.json(ev.get(0).data()).at("/params/progressToken").asText());
    assertEquals(9, McpHarness.json(ev.get(3).data()).get("id").asInt());
    assertEquals(4, ev.size());

    List<Event> rest = events(resume(session, ev.get(1).id()).body());
    assertEquals(List.of(3L, 9L), List.of(McpHarness.json(rest.get(0).data()).at("/params/progress").asLong(),
        McpHarness.json(rest.get(1).data()).get("id").asLong()), "only what came after the second transition");
  }

  @Test
  void sessionThatNegotiated20251125PollsEvenWhenTheRequestHeaderNamesAnOlderRevision() throws Exception {
    try (McpHarness quick = new McpHarness(McpHarness.base().callWait(Duration.ofMillis(300)))) {
      quick.gateway.slowMillis = 1500;
      String session = quick.initialize("2025-11-25");
      HttpResponse<String> r = quick.post(SLOW, "Mcp-Session-Id", session, "MCP-Protocol-Version", "2025-03-26");
      List<Event> ev = events(r.body());
      assertTrue(ev.stream().noneMatch(e -> e.data() != null && e.data().contains("\"result\"")),
          "the stream closes before the result: " + r.body());
      String last = ev.get(ev.size() - 1).id();
      JsonNode result = null;
      for (int i = 0; i < 20 && result == null; i++) { // reconnect as a client does after `retry`
        List<Event> more = events(quick.http.send(quick.request(quick.server).header("Mcp-Session-Id", session)
            .header("Last-Event-ID", last).header("Accept", "text/event-stream").GET().build(),
            HttpResponse.BodyHandlers.ofString()).body());
        for (Event e : more) {
          last = e.id() != null ? e.id() : last;
          if (e.data() != null && e.data().contains("\"result\"")) {
            result = McpHarness.json(e.data());
          }
        }
      }
      assertEquals("call-7", result.get("id").asText());
      assertEquals("completed", result.at("/result/structuredContent/state").asText());
      // Delivered only once the delivery grace passed without a cancellation; until then an
      // identical call would still attach to this execution.
      String first = result.at("/result/structuredContent/execution_id").asText();
      assertTrue(quick.gateway.awaitReports(first, 1).stream().anyMatch(x -> x.report().delivered()));

      String older = quick.initialize("2025-06-18"); // no polling before 2025-11-25: the pending result
      HttpResponse<String> pending = quick.post(SLOW.replace("p-1", "p-2"), "Mcp-Session-Id", older);
      List<Event> pe = events(pending.body());
      assertEquals("pending", McpHarness.json(pe.get(pe.size() - 1).data()).at("/result/structuredContent/outcome").asText(),
          pending.body());
    }
  }

  private HttpResponse<String> resume(String session, String lastEventId) throws Exception {
    return h.http.send(h.request(h.server).header("Mcp-Session-Id", session).header("Last-Event-ID", lastEventId)
        .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void getWithoutLastEventIdIs405AndUnknownEventIdIs404() throws Exception {
    String session = h.initialize("2025-11-25");
    HttpResponse<String> plain = h.http.send(h.request(h.server).header("Mcp-Session-Id", session)
        .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(405, plain.statusCode());
    HttpResponse<String> unknown = h.http.send(h.request(h.server).header("Mcp-Session-Id", session)
        .header("Accept", "text/event-stream").header("Last-Event-ID", "act_nope:1:e30").GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(404, unknown.statusCode());
  }

  @Test
  void anotherActorCannotResumeAStream() throws Exception {
    String session = h.initialize("2025-11-25");
    HttpResponse<String> r = h.post(SLOW, "Mcp-Session-Id", session);
    String id = events(r.body()).get(0).id();
    HttpResponse<String> other = h.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}",
        "Authorization", "Bearer tok-other");
    String otherSession = other.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> stolen = h.http.send(HttpRequest.newBuilder(h.uri(h.server))
        .header("Authorization", "Bearer tok-other").header("Mcp-Session-Id", otherSession)
        .header("Accept", "text/event-stream").header("Last-Event-ID", id).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(404, stolen.statusCode());
  }

  @Test
  void streamThatOutlivesTheWaitClosesAfterPrimingAndThePollResumesIt() throws Exception {
    h.gateway.slowMillis = 4500; // settles after the 3s call wait
    String session = h.initialize("2025-11-25");
    HttpResponse<String> first = h.post(SLOW, "Mcp-Session-Id", session);
    List<Event> ev = events(first.body());
    for (Event e : ev) {
      assertFalse(e.data() != null && e.data().contains("\"result\""), "no result on the first stream: " + e);
    }
    String lastId = ev.get(ev.size() - 1).id();
    HttpResponse<String> poll = h.http.send(h.request(h.second).header("Mcp-Session-Id", session)
        .header("Last-Event-ID", lastId).header("Accept", "text/event-stream").GET().build(),
        HttpResponse.BodyHandlers.ofString());
    List<Event> rest = events(poll.body());
    JsonNode result = McpHarness.json(rest.get(rest.size() - 1).data());
    assertEquals("completed", result.at("/result/structuredContent/state").asText());
    Set<String> ids = new HashSet<>();
    ev.forEach(e -> ids.add(e.id()));
    rest.forEach(e -> assertTrue(ids.add(e.id()), "event ids stay unique across the resumption: " + e.id()));
    assertEquals(1, h.gateway.dispatches.size());
  }
}
