package io.onceport.frontend.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  static byte[] bytes(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static String text(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Parses serialized JSON (a contract's schema); null stays null. */
  static JsonNode parse(String json) {
    if (json == null) {
      return null;
    }
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("invalid JSON: " + e.getOriginalMessage());
    }
  }

  static ObjectNode response(JsonNode id, JsonNode result) {
    ObjectNode r = object();
    r.put("jsonrpc", "2.0");
    r.set("id", id);
    r.set("result", result);
    return r;
  }

  static ObjectNode error(JsonNode id, int code, String message, JsonNode data) {
    ObjectNode r = object();
    r.put("jsonrpc", "2.0");
    r.set("id", id == null ? MAPPER.nullNode() : id);
    ObjectNode e = r.putObject("error");
    e.put("code", code);
    e.put("message", message);
    if (data != null) {
      e.set("data", data);
    }
    return r;
  }
}
