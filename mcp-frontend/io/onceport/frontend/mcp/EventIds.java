package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * SSE event ids derived from the durable execution, not from front-end memory:
 * {@code <executionId>:<seq>:<base64url({c: callId, i: JSON-RPC id, t: progress token})>}, where
 * {@code seq} is how many of the record's state transitions the stream has reported (0 for the
 * priming event), or {@code r} for the result. The call id
 * makes ids unique within a session (every request is its own call on the record); the JSON-RPC
 * id and progress token let any front end rebuild the missed events from the record alone.
 */
record EventIds(String executionId, String seq, String callId, JsonNode rpcId, JsonNode progressToken) {
  static final String RESULT = "r";

  String id(String sequence) {
    ObjectNode o = Json.object();
    o.put("c", callId);
    o.set("i", rpcId);
    if (progressToken != null && !progressToken.isMissingNode() && !progressToken.isNull()) {
      o.set("t", progressToken);
    }
    return executionId + ":" + sequence + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(Json.bytes(o));
  }

  /** Parses a {@code Last-Event-ID}; null when it is not one of ours. */
  static EventIds parse(String eventId) {
    if (eventId == null) {
      return null;
    }
    String[] parts = eventId.trim().split(":");
    if (parts.length != 3 || !parts[0].startsWith("act_")) {
      return null;
    }
    if (!parts[1].equals(RESULT) && !parts[1].matches("\\d{1,18}")) {
      return null;
    }
    try {
      JsonNode o = Json.MAPPER.readTree(new String(Base64.getUrlDecoder().decode(parts[2]), StandardCharsets.UTF_8));
      if (!o.path("c").isTextual()) {
        return null;
      }
      return new EventIds(parts[0], parts[1], o.get("c").asText(), o.get("i"), o.get("t"));
    } catch (Exception e) {
      return null;
    }
  }

  boolean resultSent() {
    return RESULT.equals(seq);
  }

  /** How many of the record's transitions the stream reported before this event id. */
  int reported() {
    return resultSent() ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, Long.parseLong(seq));
  }
}
