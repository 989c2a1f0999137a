package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.journal.JournaledSends;
import io.onceport.workflow.verify.VerifyAnswer;
import java.util.List;
import java.util.Objects;

/**
 * The execution record: where one accepted attempt to act stands, and the evidence for it. Returned
 * by the {@code record} query and by every update, shown by {@code onceport executions show}.
 *
 * <p>Outcome and delivery are separate fields; {@link #view()} derives the seed's combined labels
 * such as {@code completed_result_not_delivered}. Times are ISO-8601 strings (workflow time).
 *
 * @param dispatchAttempts how many sends were made (equals {@code sends.size()} for executions
 *     started since the replay policy; older ones have no {@code sends})
 * @param sends every send of the request, in order: a worker lost mid-send and the re-send that
 *     followed are two
 * @param version increases with every change, so a waiter can ask for "anything newer than n"
 * @param message one plain sentence on the current state, safe to show an agent
 * @param reset set on a run that {@code temporal workflow reset} made, once it read the journal:
 *     the sends every run of the execution made (which this run's history may not hold); null
 *     otherwise
 * @param verification for a contract with {@code attach_window: until_verified}, once the outcome
 *     is known: whether its effect was verified, and the checks; null otherwise
 */
public record ExecutionRecord(
    String executionId,
    String workflowId,
    String runId,
    String fingerprint,
    String intentKey,
    String tool,
    String actor,
    String intentScope,
    String sessionId,
    String channel,
    String target,
    String method,
    String credentialRef,
    String replayClass,
    String arguments,
    ExecutionState state,
    Outcome outcome,
    Delivery delivery,
    String acceptedAt,
    String authorizedAt,
    String dispatchedAt,
    String completedAt,
    String deliveredAt,
    Integer targetStatus,
    Integer exitStatus,
    String resultReference,
    DispatchResult result,
    Authorization authorization,
    Review review,
    int dispatchAttempts,
    List<Send> sends,
    List<StatusCheck> statusChecks,
    List<AttachedCall> calls,
    List<Transition> transitions,
    String attachableUntil,
    String cancellation,
    String message,
    long version,
    Reset reset,
    Verification verification) {

  public ExecutionRecord {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(state, "state == null");
    Objects.requireNonNull(outcome, "outcome == null");
    Objects.requireNonNull(delivery, "delivery == null");
    sends = sends == null ? List.of() : List.copyOf(sends);
    statusChecks = statusChecks == null ? List.of() : List.copyOf(statusChecks);
    calls = calls == null ? List.of() : List.copyOf(calls);
    transitions = transitions == null ? List.of() : List.copyOf(transitions);
  }

  /** A record without verification (a contract kept by time). */
  public ExecutionRecord(String executionId, String workflowId, String runId, String fingerprint, String intentKey,
      String tool, String actor, String intentScope, String sessionId, String channel, String target, String method,
      String credentialRef, String replayClass, String arguments, ExecutionState state, Outcome outcome,
      Delivery delivery, String acceptedAt, String authorizedAt, String dispatchedAt, String completedAt,
      String deliveredAt, Integer targetStatus, Integer exitStatus, String resultReference, DispatchResult result,
      Authorization authorization, Review review, int dispatchAttempts, List<Send> sends, List<StatusCheck> statusChecks,
      List<AttachedCall> calls, List<Transition> transitions, String attachableUntil, String cancellation,
      String message, long version, Reset reset) {
    this(executionId, workflowId, runId, fingerprint, intentKey, tool, actor, intentScope, sessionId, channel, target,
        method, credentialRef, replayClass, arguments, state, outcome, delivery, acceptedAt, authorizedAt, dispatchedAt,
        completedAt, deliveredAt, targetStatus, exitStatus, resultReference, result, authorization, review,
        dispatchAttempts, sends, statusChecks, calls, transitions, attachableUntil, cancellation, message, version, reset, null);
  }

  /** A record of a run that is not a reset (or has not read the journal yet). */
  public ExecutionRecord(String executionId, String workflowId, String runId, String fingerprint, String intentKey,
      String tool, String actor, String intentScope, String sessionId, String channel, String target, String method,
      String credentialRef, String replayClass, String arguments, ExecutionState state, Outcome outcome,
      Delivery delivery, String acceptedAt, String authorizedAt, String dispatchedAt, String completedAt,
      String deliveredAt, Integer targetStatus, Integer exitStatus, String resultReference, DispatchResult result,
      Authorization authorization, Review review, int dispatchAttempts, List<Send> sends, List<StatusCheck> statusChecks,
      List<AttachedCall> calls, List<Transition> transitions, String attachableUntil, String cancellation,
      String message, long version) {
    this(executionId, workflowId, runId, fingerprint, intentKey, tool, actor, intentScope, sessionId, channel, target,
        method, credentialRef, replayClass, arguments, state, outcome, delivery, acceptedAt, authorizedAt, dispatchedAt,
        completedAt, deliveredAt, targetStatus, exitStatus, resultReference, result, authorization, review,
        dispatchAttempts, sends, statusChecks, calls, transitions, attachableUntil, cancellation, message, version, null, null);
  }

  /** A record without the list of sends (executions started before the replay policy). */
  public ExecutionRecord(String executionId, String workflowId, String runId, String fingerprint, String intentKey,
      String tool, String actor, String intentScope, String sessionId, String channel, String target, String method,
      String credentialRef, String replayClass, String arguments, ExecutionState state, Outcome outcome,
      Delivery delivery, String acceptedAt, String authorizedAt, String dispatchedAt, String completedAt,
      String deliveredAt, Integer targetStatus, Integer exitStatus, String resultReference, DispatchResult result,
      Authorization authorization, Review review, int dispatchAttempts, List<StatusCheck> statusChecks,
      List<AttachedCall> calls, List<Transition> transitions, String attachableUntil, String cancellation,
      String message, long version) {
    this(executionId, workflowId, runId, fingerprint, intentKey, tool, actor, intentScope, sessionId, channel, target,
        method, credentialRef, replayClass, arguments, state, outcome, delivery, acceptedAt, authorizedAt, dispatchedAt,
        completedAt, deliveredAt, targetStatus, exitStatus, resultReference, result, authorization, review,
        dispatchAttempts, List.of(), statusChecks, calls, transitions, attachableUntil, cancellation, message, version, null, null);
  }

  /**
   * What a reset run learned from the journal at its first step after the reset point: which reset
   * it is, and every send of the execution the journal proves, by any run — the record's {@code
   * sends} are this run's history, which a reset may have cut short.
   *
   * @param runId this run
   * @param originalRunId the run whose start this run's history begins with
   * @param number which reset of the execution this run is (1 for the first)
   * @param at when the run read the journal (workflow time)
   * @param sends the sends the journal proves, by attempt
   * @param runs the runs the journal names for the execution, oldest first
   */
  public record Reset(String runId, String originalRunId, int number, String at, List<JournaledSends.Send> sends,
      List<String> runs) {
    public Reset {
      sends = sends == null ? List.of() : List.copyOf(sends);
      runs = runs == null ? List.of() : List.copyOf(runs);
    }
  }

  /**
   * One send of the request to the target.
   *
   * @param attempt 1 for the first send, counting every send
   * @param key the idempotency key it carried (the execution id)
   * @param observed {@code answered}, {@code not_sent} (provably nothing left), {@code
   *     outcome_unknown} (bytes may have reached the target, no answer), {@code worker_lost} (the
   *     worker stopped heartbeating mid-send) or {@code sent_before} (the journal already held this
   *     attempt's {@code dispatched} entry: sent by an earlier run, e.g. before a reset; nothing was
   *     sent again, and its outcome is unknown to this run)
   * @param status the target's HTTP status or exit status when answered, else null
   * @param decision what the replay policy decided next, e.g. {@code resend_same_key}
   */
  public record Send(int attempt, String key, String startedAt, String endedAt, String observed, Integer status,
      String detail, String decision) {
    public static final String ANSWERED = "answered";
    public static final String NOT_SENT = "not_sent";
    public static final String OUTCOME_UNKNOWN = "outcome_unknown";
    public static final String WORKER_LOST = "worker_lost";
    public static final String SENT_BEFORE = "sent_before";

    /** True when the request may have reached the target (everything but {@code not_sent}). */
    @JsonIgnore
    public boolean mayHaveReachedTarget() {
      return !NOT_SENT.equals(observed);
    }
  }

  /**
   * How the authorization ladder decided: {@code {decision, rule, at, by}}.
   *
   * @param expiresAt while waiting for an operator (approval or session authorization): when the
   *     wait ends in a rejection; null otherwise
   */
  public record Authorization(String decision, String rule, String at, String by, String reason, String expiresAt) {}

  /**
   * Where the verification of an execution kept {@code until_verified} stands, and what its checks
   * saw. Null on the record of an execution kept by time, and before the outcome is known.
   *
   * @param state {@link #PENDING} (checks on their schedule; the action is not repeated), {@link
   *     #VERIFIED}, {@link #NOT_APPLIED} (a check or an operator proved the effect absent) or {@link
   *     #GIVEN_UP} (no verdict before {@code give_up_after}: an operator decides)
   * @param target what a check reads: {@code GET https://…/active}, {@code tool active_key}
   * @param since when the checks began: the outcome (or the last settle after a re-send)
   * @param nextCheckAt when the next check is due while pending, else null
   * @param giveUpAt when the checks give up
   * @param settledAt when the state last left {@code pending}, else null
   * @param checkCount checks made in all (the record keeps the latest {@link #MAX_CHECKS}; the
   *     journal has every one)
   * @param decision an operator's verdict ({@code onceport executions verify}), or null
   */
  public record Verification(String state, String target, String since, String nextCheckAt, String giveUpAt,
      String settledAt, int checkCount, List<VerificationCheck> checks, Review decision) {
    public static final String PENDING = "pending";
    public static final String VERIFIED = "verified";
    public static final String NOT_APPLIED = "not_applied";
    public static final String GIVEN_UP = "given_up";
    /** Checks kept on the record; older ones are in the journal. */
    public static final int MAX_CHECKS = 20;

    public Verification {
      Objects.requireNonNull(state, "state == null");
      checks = checks == null ? List.of() : List.copyOf(checks);
    }

    /** True while the effect is unconfirmed and checks (or an operator) may still confirm it. */
    @JsonIgnore
    public boolean pending() {
      return PENDING.equals(state);
    }
  }

  /**
   * One verification check: when, its verdict ({@code verified}, {@code not_applied}, {@code
   * not_yet_known}), the answer's status, what each condition's pointer held next to what it had to
   * equal, and why.
   */
  public record VerificationCheck(int number, String at, String verdict, Integer status, List<VerifyAnswer.Held> held,
      String detail) {
    public VerificationCheck {
      held = held == null ? List.of() : List.copyOf(held);
    }
  }

  /** How an operator resolved a {@code needs_review} execution. */
  public record Review(String decision, String reason, String by, String at) {}

  /** One status query after an unknown outcome. */
  public record StatusCheck(String at, String verdict, Integer status, String detail) {}

  /** One state change with its time. */
  public record Transition(String state, String at, String detail) {}

  /**
   * The seed's combined view of state, outcome and delivery, e.g.
   * {@code completed_result_not_delivered}, {@code dispatched_outcome_unknown}; for an execution kept
   * until verified, the verification instead of the delivery: {@code completed_verification_pending},
   * {@code completed_verified}, {@code completed_not_applied}.
   */
  @JsonIgnore
  public String view() {
    if (state == ExecutionState.COMPLETED && verification != null) {
      // Kept until verified: what an operator needs is whether the effect was confirmed (delivery is on the record).
      return state.wireName() + "_" + (verification.pending() ? "verification_pending" : verification.state());
    }
    if (state == ExecutionState.COMPLETED || state == ExecutionState.FAILED) {
      return switch (delivery) {
        case DELIVERED -> state.wireName() + "_result_delivered";
        case NOT_DELIVERED -> state.wireName() + "_result_not_delivered";
        case PENDING -> state.wireName();
      };
    }
    if (outcome == Outcome.UNKNOWN) {
      return state.wireName() + "_outcome_unknown";
    }
    return state.wireName();
  }

  /** True when an answer can be given to a caller without waiting: finished, or waiting on a human. */
  @JsonIgnore
  public boolean isSettled() {
    return state.isTerminal() || state == ExecutionState.NEEDS_REVIEW;
  }
}
