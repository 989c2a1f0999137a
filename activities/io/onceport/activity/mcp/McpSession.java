package io.onceport.activity.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * What an upstream MCP server said in {@code initialize}: the negotiated protocol version, its
 * capabilities and identity, and (Streamable HTTP) the session id later requests carry.
 *
 * @param sessionId the {@code Mcp-Session-Id} the server assigned, or null (stdio, stateless servers)
 */
public record McpSession(String sessionId, String protocolVersion, JsonNode capabilities, JsonNode serverInfo) {
  public McpSession {
    Objects.requireNonNull(protocolVersion, "protocolVersion == null");
    Objects.requireNonNull(capabilities, "capabilities == null");
    Objects.requireNonNull(serverInfo, "serverInfo == null");
  }

  /**
   * True when the server advertises {@code tools.idempotency} (SEP-3182): it deduplicates
   * {@code tools/call} by {@code idempotencyKey}, so a re-send with the same key returns the first
   * result instead of acting again.
   */
  public boolean advertisesIdempotency() {
    JsonNode v = capabilities.path("tools").get("idempotency");
    return v != null && !v.isNull() && !(v.isBoolean() && !v.asBoolean());
  }

  /** True when the server says it sends {@code notifications/tools/list_changed}. */
  public boolean advertisesListChanged() {
    return capabilities.path("tools").path("listChanged").asBoolean(false);
  }

  /** "name version" of the server, for messages and comments. */
  public String describeServer() {
    String name = serverInfo.path("name").asText("unnamed server");
    String version = serverInfo.path("version").asText("");
    return version.isEmpty() ? name : name + " " + version;
  }
}
