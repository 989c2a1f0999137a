package io.onceport.workflow.journal;

import java.util.Locale;

/**
 * The activity journal's vocabulary: the {@link JournalEntry#transition()} words an execution
 * writes, shared by the workflow that writes them and the metrics that count them, so neither
 * matches the other by a string literal. The wire names are the journal format and never change;
 * entries written before a word existed keep their text ({@link #fromWireName} answers null for a
 * word not in this list).
 */
public enum JournalTransition {
  ACCEPTED,
  AUTHORIZED,
  AWAITING_APPROVAL,
  AWAITING_SESSION_AUTHORIZATION,
  REJECTED,
  CANCELLED,
  /** Written by the send activity itself, durably before the first byte. */
  DISPATCHED,
  NOT_SENT,
  OUTCOME_UNKNOWN,
  STATUS_QUERY,
  NEEDS_REVIEW,
  REVIEW_RESOLVED,
  DECISION_REFUSED,
  /** The settled outcome: {@code completed}, {@code failed} or {@code not_executed} in its detail. */
  OUTCOME,
  /** A call that attached (the evidence of a retry, its JSON-RPC id, session, client). */
  CALL,
  DELIVERED,
  NOT_DELIVERED,
  CANCEL_REFUSED,
  ATTACH_WINDOW_CLOSED,
  /** A send the journal already held (a reset or replayed history asked for it again): not sent again. */
  SENT_BEFORE,
  /** A reset run of the execution began (written once per run, by {@code JournalActivities.resetRun}). */
  RESET,
  /** One check of an execution kept until verified: its verdict, status and what the pointers held (attempt: the check's number). */
  VERIFICATION_CHECK,
  /** The effect was confirmed (by a check or an operator); identical calls attach for the verified window. */
  VERIFIED,
  /** The effect was found absent (by a check or an operator): a fact for the replay policy. */
  NOT_APPLIED,
  /** No verdict before {@code give_up_after}: the execution waits for an operator's verdict. */
  VERIFICATION_GIVEN_UP,
  /** An operator's signed verdict on the effect ({@code onceport executions verify}). */
  VERIFICATION_DECIDED;

  private final String wireName = name().toLowerCase(Locale.ROOT);

  /** The word in the journal, e.g. {@code outcome_unknown}. */
  public String wireName() {
    return wireName;
  }

  /** The transition a journal word names, or null for a word not in the vocabulary. */
  public static JournalTransition fromWireName(String wireName) {
    for (JournalTransition t : values()) {
      if (t.wireName.equals(wireName)) {
        return t;
      }
    }
    return null;
  }
}
