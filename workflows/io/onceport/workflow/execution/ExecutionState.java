package io.onceport.workflow.execution;

/**
 * Where an execution stands in its lifecycle. Outcome and delivery are separate fields of the
 * record ({@link Outcome}, {@link Delivery}): "completed, result not delivered" is a view of the
 * two, not a state of its own.
 */
public enum ExecutionState {
  /** Validated and given an execution id; nothing decided yet. */
  ACCEPTED,
  /** Waiting for an operator to approve this use of a credential. */
  AWAITING_APPROVAL,
  /** Waiting for an operator to authorize the agent session it belongs to. */
  AWAITING_SESSION_AUTHORIZATION,
  /** The authorization ladder allowed it; dispatch is next. */
  AUTHORIZED,
  /** The authorization ladder or an operator refused it; nothing was dispatched. */
  REJECTED,
  /** Handed to the channel; the request may be on the wire. */
  DISPATCHED,
  /** The outcome was unknown; a status query is asking the target what happened. */
  VERIFYING,
  /** The outcome is unknown and cannot be verified automatically: an operator must resolve it. */
  NEEDS_REVIEW,
  /** The target reported success (or an operator or status query established it). */
  COMPLETED,
  /** The target reported failure, or the request could never be sent. */
  FAILED,
  /** Cancelled before dispatch; nothing was sent. */
  CANCELLED,
  /** The attach window passed while unresolved; kept for the record. */
  EXPIRED;

  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** True once no further dispatch or decision can change the outcome. */
  public boolean isTerminal() {
    return this == REJECTED || this == COMPLETED || this == FAILED || this == CANCELLED || this == EXPIRED;
  }

  /** True while the request may already have reached the target. */
  public boolean mayHaveCrossedDispatch() {
    return this == DISPATCHED || this == VERIFYING || this == NEEDS_REVIEW || this == COMPLETED || this == FAILED;
  }
}
