package io.onceport.workflow.journal;

import java.util.Map;
import java.util.Objects;

/**
 * One execution transition for the activity journal. Never holds a secret: arguments appear only
 * masked, credentials only by reference name.
 *
 * @param transition lifecycle word, one of {@link JournalTransition}'s wire names (accepted,
 *     authorized, dispatched, outcome, status_query, call, delivered, ...); a string, so entries of
 *     words older than the enum still read
 * @param attempt distinguishes repeated transitions of one kind (the n-th dispatch, the n-th
 *     attach); appends are idempotent per (executionId, transition, attempt)
 * @param at ISO-8601 time of the transition (workflow time)
 * @param detail transition-specific fields, JSON-compatible values only
 */
public record JournalEntry(
    String executionId,
    String fingerprint,
    String transition,
    int attempt,
    String at,
    Map<String, Object> detail) {
  public JournalEntry {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(transition, "transition == null");
    Objects.requireNonNull(at, "at == null");
    detail = detail == null ? Map.of() : Map.copyOf(detail);
  }

  /** The idempotency identity of this append. */
  public String appendKey() {
    return executionId + "/" + transition + "/" + attempt;
  }
}
