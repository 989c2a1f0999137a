package io.onceport.frontend.gateway;

import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What the MCP layer needs from the execution layer. The implementation validates, canonicalizes
 * and fingerprints the call, then starts-or-attaches the ToolExecution workflow. It keeps nothing
 * in front-end memory that another front end would need — only bounded caches of what Temporal
 * holds — so any front end can answer for any execution.
 */
public interface ExecutionGateway {
  /** The loaded tool contracts, in deterministic (tool name) order. */
  List<ToolContract> tools();

  /**
   * Starts a new execution or attaches to the existing one for the same intent, then waits up to
   * {@code call.waitMillis()} for a settled outcome.
   *
   * @throws GatewayException for an unknown tool, invalid arguments or an intent-key mismatch
   */
  CallResult call(ToolCall call);

  /**
   * Starts a new execution or attaches to the existing one for the same intent and returns as soon
   * as the call is recorded on it, without waiting for the outcome: the caller learns the execution
   * id at once (a {@code notifications/cancelled} before dispatch can then cancel it) and waits with
   * {@link #awaitChange}. An implementation that cannot split the two simply calls {@link #call}.
   *
   * @throws GatewayException as {@link #call}, and {@code BUSY} when the engine turned the call away
   */
  default CallResult attach(ToolCall call) {
    return call(call);
  }

  /** Finds an execution by its {@code act_} id. */
  Optional<ExecutionRecord> find(String executionId);

  /** Waits up to {@code wait} for a record with a version above {@code afterVersion}. */
  ExecutionRecord awaitChange(String executionId, long afterVersion, Duration wait);

  /**
   * Reports whether the response carrying the record's final result was written to the caller.
   * Call it after writing (success) or on the write's failure; never before writing.
   */
  void reportDelivery(String executionId, DeliveryReport report);

  /**
   * As {@link #reportDelivery}, without waiting for the execution layer to record it (the report
   * may be batched with others for the same execution). Failures are logged, not thrown.
   */
  default void reportDeliveryLater(String executionId, DeliveryReport report) {
    reportDelivery(executionId, report);
  }

  /** Cancels before dispatch; after dispatch only records that the caller stopped waiting. */
  ExecutionRecord cancel(String executionId, CancelRequest request);

  /** The actor's own executions, newest first (for {@code tasks/list}). */
  List<ExecutionRecord> listByActor(String actor, int limit);

  /**
   * Whether a caller that waits may be answered in band, by a worker in this process, as soon as
   * the send answered (then a stream waits for the first answer as a JSON answer does, instead of
   * following the execution from its first state).
   */
  default boolean answersInBand() {
    return false;
  }
}
