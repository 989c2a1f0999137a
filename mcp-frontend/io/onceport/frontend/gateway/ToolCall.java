package io.onceport.frontend.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One {@code tools/call} as the MCP layer hands it to the gateway: who asks (authenticated actor),
 * what (tool, arguments), and the protocol correlation that is recorded as evidence only.
 *
 * @param arguments the {@code params.arguments} object (null means {})
 * @param runId intent scope from {@code _meta["onceport/run"]} or header {@code Onceport-Run}, or null
 * @param intentKey explicit intent key from {@code _meta["onceport/intent"]} or header
 *     {@code Idempotency-Key}, or null
 * @param sessionId the MCP session id (2025 revisions) or the agent run id (2026-07-28), or null
 * @param jsonRpcId the JSON-RPC id in string form
 * @param clientInfo "name/version" of the client, or null
 * @param waitMillis how long to wait for a settled outcome before answering "pending"
 */
public record ToolCall(
    String actor,
    String tool,
    JsonNode arguments,
    String runId,
    String intentKey,
    String sessionId,
    String jsonRpcId,
    String protocolVersion,
    String clientInfo,
    String remoteAddress,
    long waitMillis) {
  public ToolCall {
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(tool, "tool == null");
    if (waitMillis < 0) {
      throw new IllegalArgumentException("Invalid wait: " + waitMillis + "ms");
    }
  }
}
