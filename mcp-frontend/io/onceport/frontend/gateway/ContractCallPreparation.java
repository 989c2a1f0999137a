package io.onceport.frontend.gateway;

import java.util.Comparator;
import java.util.Optional;
import org.apache.commons.text.similarity.LevenshteinDistance;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.fingerprint.CanonicalActionRecord;
import io.onceport.frontend.fingerprint.Fingerprinter;
import io.onceport.frontend.fingerprint.InvalidArgumentsException;
import io.onceport.frontend.fingerprint.WorkflowIds;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ExecutionInput;
import java.util.List;

/**
 * The product's preparation: contract lookup, JSON Schema validation with defaults materialized,
 * the canonical action record (JCS) and its keyed fingerprint, and the workflow id — from the
 * fingerprint, or from the client's intent key when it sent one.
 */
public final class ContractCallPreparation implements CallPreparation {
  private final ContractSet contracts;
  private final ArgumentValidator validator;
  private final Fingerprinter fingerprinter;
  private final String sessionPolicy;

  public ContractCallPreparation(ContractSet contracts, ArgumentValidator validator, Fingerprinter fingerprinter) {
    this(contracts, validator, fingerprinter, null);
  }

  /** @param sessionPolicy this front end's {@code --session-authorization}, carried to the workers' ladder */
  public ContractCallPreparation(ContractSet contracts, ArgumentValidator validator, Fingerprinter fingerprinter,
      String sessionPolicy) {
    this.sessionPolicy = sessionPolicy;
    this.contracts = contracts;
    this.validator = validator;
    this.fingerprinter = fingerprinter;
  }

  /** Typos one edit in three characters apart (at least two) are suggested; anything further is not a guess worth making. */
  Optional<String> closest(String name) {
    if (name == null || name.isEmpty()) {
      return Optional.empty();
    }
    LevenshteinDistance distance = new LevenshteinDistance(Math.max(2, name.length() / 3));
    return contracts.contracts().stream().map(ToolContract::tool)
        .filter(t -> distance.apply(name, t) >= 0)
        .min(Comparator.comparingInt((String t) -> distance.apply(name, t)).thenComparing(Comparator.naturalOrder()));
  }

  @Override
  public List<ToolContract> tools() {
    return contracts.contracts();
  }

  @Override
  public PreparedCall prepare(ToolCall call) {
    ToolContract contract = contracts.find(call.tool()).orElseThrow(() ->
        new GatewayException(GatewayException.Kind.UNKNOWN_TOOL, "Unknown tool: " + call.tool()
            + closest(call.tool()).map(t -> "; did you mean " + t + "?").orElse("")));
    ObjectNode arguments;
    try {
      arguments = validator.validate(contract, call.arguments());
    } catch (InvalidArgumentsException e) {
      throw new GatewayException(GatewayException.Kind.INVALID_ARGUMENTS,
          "Invalid arguments for " + call.tool() + ": " + String.join("; ", e.errors()), e);
    }
    CanonicalActionRecord record = fingerprinter.canonicalRecord(contract, call.actor(), arguments, call.runId());
    String fingerprint = fingerprinter.fingerprint(record);
    JsonNode tree = record.tree();
    String scope = call.runId() == null ? "actor:" + call.actor() : "run:" + call.runId();
    // The arguments travel once; the workflow derives what it shows (secret arguments masked).
    ExecutionInput input = ExecutionInput.of(
        fingerprint, contract.tool(), call.actor(), scope, call.intentKey(), call.sessionId(),
        tree.path("target").asText(""), tree.path("method").asText(null), contract.forExecution(), arguments.toString(),
        sessionPolicy);
    boolean keyed = call.intentKey() != null && !call.intentKey().isBlank();
    String workflowId = keyed
        ? fingerprinter.intentKeyWorkflowId(call.actor(), call.intentKey())
        : WorkflowIds.forFingerprint(fingerprint);
    return new PreparedCall(workflowId, input, keyed);
  }
}
