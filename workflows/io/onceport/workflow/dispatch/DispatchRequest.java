package io.onceport.workflow.dispatch;

import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.journal.JournalEntry;
import java.util.List;
import java.util.Objects;

/**
 * Everything a dispatch or status-query activity needs: the contract snapshot the execution was
 * accepted under, the arguments (arguments the contract marks secret are sealed, never in clear),
 * and the execution identity that travels to the target as its idempotency key.
 *
 * <p>A send also carries the journal entries the workflow queued since its last journal write
 * ({@code journal}): the activity appends them together with the {@code dispatched} entry it must
 * make durable before the first byte anyway, so they cost no workflow task of their own. With a
 * {@code resultReference} the activity also appends the {@code outcome} entry once the target
 * answered (every answer settles; see {@code ReplayPolicy}).
 *
 * @param arguments the arguments object as JSON, defaults materialized, secret values sealed
 * @param attempt 1 for the first send; every send (and every status query after it) of one
 *     execution has its own number, so journal appends stay idempotent per attempt
 * @param journal entries to append before {@code dispatched}, in order; empty for status queries
 * @param resultReference the result reference to journal with the outcome, or null to journal no
 *     outcome (older workflows, status queries)
 * @param answerPlan how the send may answer a caller waiting in its own process, or null
 */
public record DispatchRequest(
    String executionId, String fingerprint, ToolContract contract, String arguments, int attempt,
    List<JournalEntry> journal, String resultReference, AnswerPlan answerPlan) {
  public DispatchRequest {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(contract, "contract == null");
    Objects.requireNonNull(arguments, "arguments == null");
    if (attempt < 1) {
      throw new IllegalArgumentException("Invalid attempt: " + attempt);
    }
    journal = journal == null ? List.of() : List.copyOf(journal);
  }

  /** A send that cannot answer in band. */
  public DispatchRequest(String executionId, String fingerprint, ToolContract contract, String arguments, int attempt,
      List<JournalEntry> journal, String resultReference) {
    this(executionId, fingerprint, contract, arguments, attempt, journal, resultReference, null);
  }

  /** A request that carries no journal entries (status queries, workflows before the replay policy). */
  public DispatchRequest(String executionId, String fingerprint, ToolContract contract, String arguments, int attempt) {
    this(executionId, fingerprint, contract, arguments, attempt, List.of(), null, null);
  }
}
