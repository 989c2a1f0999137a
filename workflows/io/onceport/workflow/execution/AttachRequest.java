package io.onceport.workflow.execution;

import java.util.Objects;

/**
 * One {@code tools/call} (or task, or status poll) arriving at an execution: protocol correlation
 * recorded as evidence, never used to decide identity.
 *
 * @param callId unique per arriving request, made by the front end; delivery reports name it
 * @param jsonRpcId the JSON-RPC id as the client sent it (string form), or null
 * @param clientInfo "name/version" from initialize or _meta, or null
 * @param receivedAt ISO-8601 time the front end received the request
 * @param waitMillis how long the caller waits for a final outcome before taking "pending"
 * @param untilSent the caller is answered in band ({@link AnswerDesk}): the attach answers as soon
 *     as the first step is decided — the send is on its way, or there is an answer — with no timer
 *     for the caller's deadline, which its front end keeps
 */
public record AttachRequest(
    String callId,
    String fingerprint,
    String jsonRpcId,
    String sessionId,
    String runId,
    String intentKey,
    String protocolVersion,
    String clientInfo,
    String remoteAddress,
    String frontEnd,
    String receivedAt,
    long waitMillis,
    boolean untilSent) {
  public AttachRequest {
    Objects.requireNonNull(callId, "callId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(receivedAt, "receivedAt == null");
    if (waitMillis < 0) {
      throw new IllegalArgumentException("Invalid wait: " + waitMillis + "ms");
    }
  }

  /** A caller answered by the engine alone. */
  public AttachRequest(String callId, String fingerprint, String jsonRpcId, String sessionId, String runId, String intentKey,
      String protocolVersion, String clientInfo, String remoteAddress, String frontEnd, String receivedAt, long waitMillis) {
    this(callId, fingerprint, jsonRpcId, sessionId, runId, intentKey, protocolVersion, clientInfo, remoteAddress, frontEnd,
        receivedAt, waitMillis, false);
  }
}
