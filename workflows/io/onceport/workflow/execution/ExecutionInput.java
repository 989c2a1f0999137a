package io.onceport.workflow.execution;

import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.contract.ToolContract;
import java.util.Objects;

/**
 * What the front end hands a new {@code ToolExecution}: the accepted request, already validated,
 * canonicalized and fingerprinted. Holds no secret in clear.
 *
 * <p>The arguments travel once ({@code arguments}); what is shown is derived from them ({@link
 * #shownArguments()}). Inputs of executions started by earlier front ends also carry the canonical
 * record and the masked arguments — three copies of the arguments, which let a 1.5 MB argument
 * exceed Temporal's 4 MB message limit — so both stay readable but are optional.
 *
 * @param canonicalRecord the canonical action record (JCS JSON) the fingerprint was computed from,
 *     or null (the fingerprint is what the workflow needs)
 * @param arguments the arguments as JSON with defaults materialized; secret values sealed
 * @param maskedArguments the arguments for display, secret values replaced by "***", or null to
 *     derive them from {@code arguments} and the contract's {@code fingerprint.secret}
 * @param intentKey the client's explicit intent key, or null when fingerprint matching decides
 * @param sessionId the agent session (MCP session, or run) used by the authorization ladder
 * @param sessionPolicy the front end's {@code --session-authorization} ({@code operator|auto}), or
 *     null for the worker's own
 * @param executionId the execution id the front end chose for a new run (and published, with the
 *     other search attributes, in the start request); null in inputs of earlier front ends, whose
 *     runs draw it from workflow randomness and decide their code version with a marker
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
    String sessionPolicy,
    String executionId) {

  /** Exact numbers both ways: a client's 2^53+1 or 36-digit decimal is shown as sent. */
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .enable(com.fasterxml.jackson.core.JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
      .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

  static {
    // Runs on workflow threads, as many as the cached runs: one process-wide buffer pool, not a set per thread.
    JSON.getFactory().setRecyclerPool(JsonRecyclerPools.sharedConcurrentDequePool());
  }

  /** An input without a session policy: the worker's own policy applies. */
  public ExecutionInput(String fingerprint, String canonicalRecord, String tool, String actor, String intentScope,
      String intentKey, String sessionId, String target, String method, ToolContract contract, String arguments,
      String maskedArguments) {
    this(fingerprint, canonicalRecord, tool, actor, intentScope, intentKey, sessionId, target, method, contract,
        arguments, maskedArguments, null, null);
  }

  /** An input as earlier front ends sent it: no execution id. */
  public ExecutionInput(String fingerprint, String canonicalRecord, String tool, String actor, String intentScope,
      String intentKey, String sessionId, String target, String method, ToolContract contract, String arguments,
      String maskedArguments, String sessionPolicy) {
    this(fingerprint, canonicalRecord, tool, actor, intentScope, intentKey, sessionId, target, method, contract,
        arguments, maskedArguments, sessionPolicy, null);
  }

  /** This input for a new run with the execution id the front end chose (see {@link Ids#isExecutionId}). */
  public ExecutionInput withExecutionId(String id) {
    if (!Ids.isExecutionId(id)) {
      throw new IllegalArgumentException("Invalid execution id: " + id);
    }
    return new ExecutionInput(fingerprint, canonicalRecord, tool, actor, intentScope, intentKey, sessionId, target, method,
        contract, arguments, maskedArguments, sessionPolicy, id);
  }

  public ExecutionInput {
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(tool, "tool == null");
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(intentScope, "intentScope == null");
    Objects.requireNonNull(target, "target == null");
    Objects.requireNonNull(contract, "contract == null");
    Objects.requireNonNull(arguments, "arguments == null");
  }

  /** An input that carries the arguments once (what front ends send now). */
  public static ExecutionInput of(String fingerprint, String tool, String actor, String intentScope, String intentKey,
      String sessionId, String target, String method, ToolContract contract, String arguments, String sessionPolicy) {
    return new ExecutionInput(fingerprint, null, tool, actor, intentScope, intentKey, sessionId, target, method,
        contract, arguments, null, sessionPolicy, null);
  }

  /**
   * The arguments as shown in records, the journal and the Temporal UI: {@code maskedArguments} when
   * the front end sent them, otherwise {@code arguments} with every {@code fingerprint.secret}
   * argument replaced by {@code "***"}, keys sorted. Deterministic (no clock, no I/O).
   */
  public String shownArguments() {
    if (maskedArguments != null) {
      return maskedArguments;
    }
    try {
      JsonNode tree = JSON.readTree(arguments);
      if (!(tree instanceof ObjectNode object)) {
        return arguments;
      }
      for (String name : contract.fingerprintSecret()) {
        if (object.has(name)) {
          object.put(name, "***");
        }
      }
      return JSON.writeValueAsString(JSON.treeToValue(object, java.util.TreeMap.class));
    } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
      return "(arguments not shown: " + e.getClass().getSimpleName() + ")";
    }
  }
}
