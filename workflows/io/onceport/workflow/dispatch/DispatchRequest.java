package io.onceport.workflow.dispatch;

import io.onceport.workflow.contract.ToolContract;
import java.util.Objects;

/**
 * Everything a dispatch or status-query activity needs: the contract snapshot the execution was
 * accepted under, the arguments (arguments the contract marks secret are sealed, never in clear),
 * and the execution identity that travels to the target as its idempotency key.
 *
 * @param arguments the arguments object as JSON, defaults materialized, secret values sealed
 * @param attempt 1 for the first dispatch, incremented only when the previous one provably did
 *     not reach the target
 */
public record DispatchRequest(
    String executionId, String fingerprint, ToolContract contract, String arguments, int attempt) {
  public DispatchRequest {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(contract, "contract == null");
    Objects.requireNonNull(arguments, "arguments == null");
    if (attempt < 1) {
      throw new IllegalArgumentException("Invalid attempt: " + attempt);
    }
  }
}
