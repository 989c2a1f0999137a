package io.onceport.frontend.mcp;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.frontend.fingerprint.ExactJson;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON for the MCP layer. Numbers stay exact ({@link ExactJson}): a client's 9007199254740993 is
 * fingerprinted, recorded and sent on as 9007199254740993, not as the nearest double.
 */
final class Json {
  static final ObjectMapper MAPPER = ExactJson.newMapper();
  /** Request bodies: as {@link #MAPPER}, and a member name twice in one object is a parse error. */
  private static final ObjectMapper REQUESTS =
      ExactJson.newMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private Json() {}

  /**
   * Parses a POST body, refusing what JSON parsers disagree on, so the message we act on is the one
   * the client meant and the one every other reader sees: a member name twice in one object
   * ({@code {"method":"tools/list","method":"tools/call"}} — which one wins differs between
   * parsers), and strings that are not Unicode text (a lone surrogate, escaped as {@code \ud800}
   * or raw; raw ones are invalid UTF-8 and fail in the parser). Every refusal is HTTP 400 with
   * JSON-RPC {@code -32700}.
   */
  static JsonNode parseRequest(byte[] body) {
    JsonNode msg;
    try {
      msg = REQUESTS.readTree(body);
    } catch (JsonParseException e) {
      String why = e.getOriginalMessage();
      if (why != null && why.startsWith("Duplicate field '")) {
        String name = why.substring("Duplicate field '".length(), why.length() - 1);
        name = name.length() > 64 ? name.substring(0, 64) + "…" : name;
        throw McpException.http(400, McpException.PARSE_ERROR, "Parse error: duplicate member name \"" + name
            + "\" in one object (each name may appear once)", null);
      }
      if (why != null && why.contains("surrogate")) { // in a member name, or encoded as UTF-8 bytes
        throw McpException.http(400, McpException.PARSE_ERROR, "Parse error: the body contains a UTF-16 surrogate that is "
            + "not half of a pair (or is encoded as UTF-8); JSON text must be valid Unicode", null);
      }
      throw McpException.http(400, McpException.PARSE_ERROR, "Parse error: the body is not valid JSON", null);
    } catch (IOException e) {
      throw McpException.http(400, McpException.PARSE_ERROR, "Parse error: the body is not valid JSON", null);
    }
    if (msg == null || msg.isMissingNode()) {
      throw McpException.http(400, McpException.PARSE_ERROR, "Parse error: empty body", null);
    }
    String where = loneSurrogate(msg, "");
    if (where != null) {
      throw McpException.http(400, McpException.PARSE_ERROR, "Parse error: a string at " + (where.isEmpty() ? "the top level" : where)
          + " contains an unpaired UTF-16 surrogate; JSON text must be valid Unicode", null);
    }
    return msg;
  }

  /**
   * The JSON pointer of the first string value holding an unpaired surrogate, or null. (Member
   * names never do: the parser refuses those itself.)
   */
  private static String loneSurrogate(JsonNode node, String pointer) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String found = loneSurrogate(e.getValue(), pointer + "/" + e.getKey().replace("~", "~0").replace("/", "~1"));
        if (found != null) {
          return found;
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String found = loneSurrogate(node.get(i), pointer + "/" + i);
        if (found != null) {
          return found;
        }
      }
    } else if (node.isTextual() && !isUnicode(node.textValue())) {
      return pointer;
    }
    return null;
  }

  /** True when every surrogate in {@code s} is half of a pair. */
  static boolean isUnicode(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

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
