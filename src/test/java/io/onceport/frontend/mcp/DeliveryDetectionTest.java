package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Whether a final result reached the client is reported truthfully, with real sockets. */
@Timeout(60)
class DeliveryDetectionTest {
  private final McpHarness h = new McpHarness();
  private static final String SLOW = "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}";

  @AfterEach
  void close() {
    h.close();
  }

  private String[] headers(String session, String accept) {
    return new String[] {"Authorization", "Bearer " + McpHarness.TOKEN, "Accept", accept, "Mcp-Session-Id", session,
        "MCP-Protocol-Version", "2025-11-25"};
  }

  private FakeGateway.Report awaitReport() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (h.gateway.reports.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    List<FakeGateway.Report> r = h.gateway.reports;
    assertEquals(1, r.size(), "exactly one delivery report: " + r);
    return r.get(0);
  }

  @Test
  void clientThatClosesItsSocketBeforeTheAnswerIsReportedNotDelivered() throws Exception {
    String session = h.initialize("2025-11-25");
    Socket s = RawHttp.send(h.server.port(), "POST", SLOW, headers(session, "application/json"));
    h.gateway.awaitCalls(1);
    s.close(); // FIN while the gateway is still working
    FakeGateway.Report r = awaitReport();
    assertFalse(r.report().delivered());
    assertEquals("client disconnected before the response was written", r.report().detail());
    assertEquals(h.gateway.calls.size(), 1);
  }

  @Test
  void clientThatResetsTheConnectionIsReportedNotDelivered() throws Exception {
    String session = h.initialize("2025-11-25");
    Socket s = RawHttp.send(h.server.port(), "POST", SLOW, headers(session, "application/json"));
    h.gateway.awaitCalls(1);
    s.setSoLinger(true, 0);
    s.close(); // RST
    assertFalse(awaitReport().report().delivered());
  }

  @Test
  void clientThatReadsTheAnswerIsReportedDelivered() throws Exception {
    String session = h.initialize("2025-11-25");
    try (Socket s = RawHttp.send(h.server.port(), "POST", SLOW, headers(session, "application/json"))) {
      String got = RawHttp.readUntil(s, "}}}");
      assertTrue(got.startsWith("HTTP/1.1 200"), got);
      FakeGateway.Report r = awaitReport();
      assertTrue(r.report().delivered());
      assertEquals(h.gateway.find(r.executionId()).orElseThrow().calls().get(0).callId(), r.report().callId());
    }
  }

  @Test
  void sseClientThatLeavesBeforeTheResultIsReportedNotDeliveredAndNotCancelled() throws Exception {
    String session = h.initialize("2025-11-25");
    Socket s = RawHttp.send(h.server.port(), "POST", SLOW, headers(session, "text/event-stream"));
    String priming = RawHttp.readUntil(s, "retry:");
    assertTrue(priming.contains("text/event-stream"), priming);
    s.close();
    FakeGateway.Report r = awaitReport();
    assertFalse(r.report().delivered());
    assertEquals("completed", h.gateway.find(r.executionId()).orElseThrow().state().wireName());
  }

  @Test
  void pendingAnswerIsNotADelivery() throws Exception {
    String session = h.initialize("2025-11-25");
    String hang = SLOW.replace("slow", "hang");
    try (Socket s = RawHttp.send(h.server.port(), "POST", hang, headers(session, "application/json"))) {
      String got = RawHttp.readUntil(s, "}}}");
      assertTrue(got.contains("outcome pending"), got);
    }
    Thread.sleep(200);
    assertTrue(h.gateway.reports.isEmpty());
  }
}
