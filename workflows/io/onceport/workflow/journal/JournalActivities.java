package io.onceport.workflow.journal;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Appends execution transitions to the tamper-evident activity journal. Idempotent per
 * {@link JournalEntry#appendKey()}: a retried activity does not write a second entry. Returns only
 * after the entry is durable.
 */
@ActivityInterface
public interface JournalActivities {
  @ActivityMethod
  void append(JournalEntry entry);
}
