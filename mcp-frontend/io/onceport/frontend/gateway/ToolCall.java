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
 * @param receivedNanos {@link System#nanoTime()} when the request reached the front end: a call that
 *     arrived while an execution of its intent was open attaches to it, however late it is processed
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
    long waitMillis,
    long receivedNanos) {
  public ToolCall {
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(tool, "tool == null");
    if (waitMillis < 0) {
      throw new IllegalArgumentException("Invalid wait: " + waitMillis + "ms");
    }
  }

  /** A call received now. */
  public ToolCall(String actor, String tool, JsonNode arguments, String runId, String intentKey, String sessionId,
      String jsonRpcId, String protocolVersion, String clientInfo, String remoteAddress, long waitMillis) {
    this(actor, tool, arguments, runId, intentKey, sessionId, jsonRpcId, protocolVersion, clientInfo, remoteAddress,
        waitMillis, System.nanoTime());
  }

  /** The wall-clock time the call was received (for comparing with the engine's run start and close times). */
  public java.time.Instant receivedAt() {
    return java.time.Instant.now().minusNanos(Math.max(0, System.nanoTime() - receivedNanos));
  }
}
