package io.onceport.workflow.execution;

/**
 * A call recorded on an execution. The first one created the execution; later ones attached to it
 * as retries. {@code delivery} is filled when the front end reports whether the response carrying
 * the final result was written.
 */
public record AttachedCall(
    String callId,
    String jsonRpcId,
    String sessionId,
    String runId,
    String intentKey,
    String protocolVersion,
    String clientInfo,
    String remoteAddress,
    String frontEnd,
    String receivedAt,
    boolean retry,
    String stateAtAttach,
    String delivery,
    String deliveryAt) {

  public static AttachedCall of(AttachRequest r, boolean retry, ExecutionState stateAtAttach) {
    return new AttachedCall(
        r.callId(), r.jsonRpcId(), r.sessionId(), r.runId(), r.intentKey(), r.protocolVersion(),
        r.clientInfo(), r.remoteAddress(), r.frontEnd(), r.receivedAt(), retry, stateAtAttach.wireName(), null, null);
  }

  public AttachedCall withDelivery(String delivery, String at) {
    return new AttachedCall(
        callId, jsonRpcId, sessionId, runId, intentKey, protocolVersion, clientInfo, remoteAddress, frontEnd,
        receivedAt, retry, stateAtAttach, delivery, at);
  }
}
