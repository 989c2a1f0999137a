package io.onceport.workflow.session;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Appends session events (started, authorized, denied, execution waiting, ended) to the sessions
 * journal. Called by the session workflow, so each event is written once however many front ends
 * saw it; idempotent per {@link SessionJournalEntry#appendKey()} so a retried activity does not
 * write a second entry.
 */
@ActivityInterface
public interface SessionJournalActivities {
  @ActivityMethod
  void recordSessionEvent(SessionJournalEntry entry);
}
