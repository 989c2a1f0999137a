package io.onceport.workflow.execution;

import io.onceport.workflow.contract.ToolContract;
import java.util.Objects;

/**
 * What the front end hands a new {@code ToolExecution}: the accepted request, already validated,
 * canonicalized and fingerprinted. Holds no secret in clear.
 *
 * @param canonicalRecord the canonical action record (JCS JSON) the fingerprint was computed from
 * @param arguments the arguments as JSON with defaults materialized; secret values sealed
 * @param maskedArguments the arguments for display, secret values replaced by "***"
 * @param intentKey the client's explicit intent key, or null when fingerprint matching decides
 * @param sessionId the agent session (MCP session, or run) used by the authorization ladder
 * @param sessionPolicy the front end's {@code --session-authorization} ({@code operator|auto}), or
 *     null for the worker's own
 */
public record ExecutionInput(
    String fingerprint,
    String canonicalRecord,
    String tool,
    String actor,
    String intentScope,
    String intentKey,
    String sessionId,
    String target,
    String method,
    ToolContract contract,
    String arguments,
    String maskedArguments,
    String sessionPolicy) {

  /** An input without a session policy: the worker's own policy applies. */
  public ExecutionInput(String fingerprint, String canonicalRecord, String tool, String actor, String intentScope,
      String intentKey, String sessionId, String target, String method, ToolContract contract, String arguments,
      String maskedArguments) {
    this(fingerprint, canonicalRecord, tool, actor, intentScope, intentKey, sessionId, target, method, contract,
        arguments, maskedArguments, null);
  }

  public ExecutionInput {
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(canonicalRecord, "canonicalRecord == null");
    Objects.requireNonNull(tool, "tool == null");
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(intentScope, "intentScope == null");
    Objects.requireNonNull(target, "target == null");
    Objects.requireNonNull(contract, "contract == null");
    Objects.requireNonNull(arguments, "arguments == null");
    Objects.requireNonNull(maskedArguments, "maskedArguments == null");
  }
}
