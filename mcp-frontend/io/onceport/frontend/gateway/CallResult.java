package io.onceport.frontend.gateway;

import io.onceport.workflow.execution.ExecutionRecord;
import java.util.Objects;

/**
 * The gateway's answer to a call: the execution record as it stood when the wait ended, and the id
 * of this call on that record (name it in {@link ExecutionGateway#reportDelivery}).
 *
 * @param attached true when this call attached to an execution an earlier call created
 */
public record CallResult(ExecutionRecord record, String callId, boolean attached) {
  public CallResult {
    Objects.requireNonNull(record, "record == null");
    Objects.requireNonNull(callId, "callId == null");
  }
}
