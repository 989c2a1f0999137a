package io.onceport.frontend.gateway;

import io.onceport.workflow.execution.ExecutionInput;
import java.util.Objects;

/**
 * A call turned into an intent: the workflow id that identifies it (from the fingerprint, or from
 * the client's intent key) and the execution input a new execution would start with.
 *
 * @param keyed true when the client's intent key, not fingerprint matching, chose the workflow id
 */
public record PreparedCall(String workflowId, ExecutionInput input, boolean keyed) {
  public PreparedCall {
    Objects.requireNonNull(workflowId, "workflowId == null");
    Objects.requireNonNull(input, "input == null");
  }
}
