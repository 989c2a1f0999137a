package io.onceport.workflow.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.temporal.common.converter.DataConverter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An mcp contract and an MCP result survive the data converter; an old HTTP result still reads. */
class McpContractRoundTripTest {
  private static <T> T roundTrip(T value, Class<T> type) {
    DataConverter converter = DataConverter.getDefaultInstance();
    return converter.fromPayload(converter.toPayload(value).orElseThrow(), type, type);
  }

  static ToolContract stdioContract() {
    McpSpec spec = new McpSpec(null, List.of("node", "server.mjs"), Map.of("MODE", "test"), "/srv", "append_note", null, 30_000,
        new McpStatusSpec("note_status", "{\"key\":\"{{execution_id}}\"}", "state", List.of("written"), List.of("failed"),
            List.of("not_found")));
    return ToolContract.mcp("append_note", "Append a note.", "{\"type\":\"object\"}", null, spec,
        new ReplaySpec(ReplayClass.STATUS_QUERY, Duration.ofMinutes(30), null), List.of(), List.of());
  }

  @Test
  void anMcpContractInADispatchRequestRoundTrips() {
    DispatchRequest request = new DispatchRequest("act_01J", "hmac-sha256:ab", stdioContract(), "{\"text\":\"x\"}", 1);
    assertEquals(request, roundTrip(request, DispatchRequest.class));
  }

  @Test
  void anMcpResultRoundTripsAndAnHttpResultWrittenWithoutTheFieldStillReads() {
    DispatchResult mcp = DispatchResult.mcp(true, "{\"isError\":true}", false, 12);
    assertEquals(mcp, roundTrip(mcp, DispatchResult.class));
    DataConverter converter = DataConverter.getDefaultInstance();
    String before = "{\"status\":201,\"exitStatus\":null,\"headers\":{},\"body\":\"ok\",\"stderr\":null,\"truncated\":false,\"elapsedMillis\":5}";
    DispatchResult old = converter.fromPayload(converter.toPayload(new RawJson(before)).orElseThrow(), DispatchResult.class, DispatchResult.class);
    assertEquals(201, old.status());
    assertNull(old.toolError());
    assertEquals("HTTP 201", old.answer());
    assertEquals("an MCP error result", mcp.answer());
  }

  @Test
  void anMcpSpecNeedsExactlyOneOfUrlAndCommand() {
    assertEquals("mcp needs exactly one of url and command", assertThrows(IllegalArgumentException.class,
        () -> new McpSpec("http://h/mcp", List.of("node"), null, null, "t", null, 1000, null)).getMessage());
    assertEquals("mcp needs exactly one of url and command", assertThrows(IllegalArgumentException.class,
        () -> new McpSpec(null, List.of(), null, null, "t", null, 1000, null)).getMessage());
    assertEquals("replay.status.tool is required for class status_query on channel mcp", assertThrows(IllegalArgumentException.class,
        () -> ToolContract.mcp("t", "", "{}", null, new McpSpec("http://h/mcp", null, null, null, "t", null, 1000, null),
            new ReplaySpec(ReplayClass.STATUS_QUERY, Duration.ofMinutes(1), null), List.of(), List.of())).getMessage());
  }

  /** A payload whose JSON is given verbatim, as an earlier build wrote it. */
  record RawJson(@com.fasterxml.jackson.annotation.JsonValue @com.fasterxml.jackson.annotation.JsonRawValue String json) {}
}
