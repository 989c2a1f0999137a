package io.onceport.frontend.fingerprint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.contract.ToolContract;
import java.util.Objects;

/**
 * Computes fingerprints {@code hmac-sha256:<64 hex>} = HMAC-SHA256(key, JCS(canonical record)):
 * equal for the same intended action whatever the delivery (argument order, whitespace, an
 * explicit default, the JSON-RPC id), different when the actor, run, target, credential or an
 * argument differs. Thread-safe.
 */
public final class Fingerprinter {
  private final FingerprintKey key;

  public Fingerprinter(FingerprintKey key) {
    this.key = Objects.requireNonNull(key, "key == null");
  }

  public FingerprintKey key() {
    return key;
  }

  /**
   * The canonical record of a call.
   *
   * @param normalizedArguments the output of {@code ArgumentValidator.validate}
   * @param runId the client's run id, or null (the scope is then the actor)
   */
  public CanonicalActionRecord canonicalRecord(
      ToolContract contract, String actor, JsonNode normalizedArguments, String runId) {
    return CanonicalActionRecord.builder(key)
        .contract(contract)
        .actor(actor)
        .arguments(normalizedArguments)
        .runId(runId)
        .build();
  }

  public String fingerprint(CanonicalActionRecord record) {
    return key.hmac(record.canonicalBytes());
  }

  /** {@code fingerprint(canonicalRecord(...))}. */
  public String fingerprint(ToolContract contract, String actor, JsonNode normalizedArguments, String runId) {
    return fingerprint(canonicalRecord(contract, actor, normalizedArguments, runId));
  }

  /** {@link WorkflowIds#forIntentKey} under this fingerprinter's key. */
  public String intentKeyWorkflowId(String actor, String intentKey) {
    return WorkflowIds.forIntentKey(key, actor, intentKey);
  }

  /**
   * The arguments as JCS JSON with every {@code fingerprint.secret} argument replaced by {@code
   * "***"}: what may be shown in records, logs and the journal. Numbers a double cannot hold keep
   * the digits the client sent ({@link ExactJson#display}).
   */
  public static String maskedArguments(ToolContract contract, JsonNode arguments) {
    ObjectNode copy = arguments.isObject() ? ((ObjectNode) arguments).deepCopy() : null;
    if (copy == null) {
      throw new IllegalArgumentException("arguments is not an object");
    }
    for (String name : contract.fingerprintSecret()) {
      if (copy.has(name)) {
        copy.put(name, "***");
      }
    }
    return ExactJson.display(copy);
  }
}
