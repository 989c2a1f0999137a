package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class JsonRpcMessageTest {
  private static JsonRpcMessage parse(String json) throws Exception {
    return JsonRpcMessage.parse(Json.MAPPER.readTree(json));
  }

  private static McpException refusal(String json) {
    return assertThrows(McpException.class, () -> parse(json));
  }

  @Test
  void messageWithIdAndMethodIsARequestWithItsParams() throws Exception {
    JsonRpcMessage.Request r = assertInstanceOf(JsonRpcMessage.Request.class,
        parse("{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"_meta\":{\"k\":1}}}"));
    assertEquals("a-1", r.id().asText());
    assertEquals("tools/call", r.method());
    assertEquals("echo", r.params().path("name").asText());
    assertEquals(1, r.meta().path("k").asInt());
  }

  @Test
  void messageWithoutIdIsANotificationAndHasNoId() throws Exception {
    JsonRpcMessage.Notification n = assertInstanceOf(JsonRpcMessage.Notification.class,
        parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}"));
    assertNull(n.id());
    assertEquals(3, n.params().path("requestId").asInt());
    assertEquals(true, n.meta().isMissingNode());
  }

  @Test
  void resultOrErrorWithIdIsAResponse() throws Exception {
    assertEquals(7, assertInstanceOf(JsonRpcMessage.Response.class,
        parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}")).id().asInt());
    assertInstanceOf(JsonRpcMessage.Response.class, parse("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1}}"));
  }

  @Test
  void notJsonRpcIsRefusedWith400AndInvalidRequestKeepingAnIdItCanRead() {
    McpException e = refusal("{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"}");
    assertEquals(400, e.httpStatus);
    assertEquals(McpException.INVALID_REQUEST, e.code);
    assertEquals("Invalid Request: not a JSON-RPC 2.0 message", e.getMessage());
    assertEquals(5, e.id.asInt());
    assertNull(refusal("42").id);
  }

  @Test
  void missingOrNonTextMethodAndBadIdsAreInvalidRequests() {
    assertEquals("Invalid Request: no method", refusal("{\"jsonrpc\":\"2.0\",\"id\":1}").getMessage());
    assertEquals("Invalid Request: method must be a string",
        refusal("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":3}").getMessage());
    for (String id : new String[] {"null", "1.5", "{}", "true"}) {
      McpException e = refusal("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}");
      assertEquals("Invalid Request: id must be a string or an integer", e.getMessage(), id);
      assertEquals(400, e.httpStatus, id);
      assertNull(e.id, id);
    }
  }

  @Test
  void paramsThatAreNotAnObjectAreInvalidParamsAnsweredWithTheRequestId() {
    McpException e = refusal("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":[1]}");
    assertEquals(200, e.httpStatus);
    assertEquals(McpException.INVALID_PARAMS, e.code);
    assertEquals("Invalid params: params must be an object", e.getMessage());
    assertEquals(9, e.id.asInt());
  }
}
