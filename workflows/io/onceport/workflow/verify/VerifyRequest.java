package io.onceport.workflow.verify;

import io.onceport.workflow.contract.ToolContract;
import java.util.Objects;

/**
 * One verification check, as the workflow asks for it: the contract snapshot (its {@code
 * replay.verify} and the channel's credential and templates), the arguments (secret values sealed),
 * the execution id its templates may name, and what each condition's pointer must equal — resolved
 * once by the workflow from the stored result, the arguments or the literal ({@link
 * VerifyEvaluator#expectation}), so a check never carries the stored result itself.
 *
 * @param check 1 for the first check of the execution
 * @param verified what {@code verified_when}'s pointer must equal, or null when it has no pointer
 * @param notApplied what {@code not_applied_when}'s pointer must equal, or null when there is none or it has no pointer
 */
public record VerifyRequest(String executionId, String fingerprint, ToolContract contract, String arguments, int check,
    Expectation verified, Expectation notApplied) {
  public VerifyRequest {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(contract, "contract == null");
    Objects.requireNonNull(arguments, "arguments == null");
    if (check < 1) {
      throw new IllegalArgumentException("Invalid check: " + check);
    }
    if (contract.replay().verify() == null) {
      throw new IllegalArgumentException("Tool " + contract.tool() + " has no replay.verify");
    }
  }

  /**
   * The value a condition's pointer must equal.
   *
   * @param value the expected value as JSON text, or null when it could not be resolved
   * @param source where it comes from, for messages: {@code result /new_key_id}, {@code argument
   *     service}, {@code literal}
   * @param missing why it could not be resolved (the stored result has no such value, there is no
   *     stored result), or null
   */
  public record Expectation(String value, String source, String missing) {
    public Expectation {
      Objects.requireNonNull(source, "source == null");
      if ((value == null) == (missing == null)) {
        throw new IllegalArgumentException("Invalid expectation: exactly one of value and missing");
      }
    }
  }
}
