package io.onceport.workflow.journal;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/**
 * Appends execution transitions to the tamper-evident activity journal. Idempotent per
 * {@link JournalEntry#appendKey()}: a retried activity does not write a second entry. Returns once
 * the entry is written (it survives a crash of the worker process) without waiting for its fsync:
 * these transitions are in the workflow history too, and the journal forces them with its next
 * group commit. Only the {@code dispatched} entry must be durable before an effect; the dispatch
 * activity writes that one itself and waits for its fsync.
 */
@ActivityInterface
public interface JournalActivities {
  @ActivityMethod
  void append(JournalEntry entry);

  /**
   * Appends several entries in order, as one activity: the workflow queues the entries of one
   * workflow task (its own and its handlers') and writes them with one local activity.
   */
  @ActivityMethod
  void appendAll(List<JournalEntry> entries);

  /**
   * For a reset run, at its first step after the reset point: reads what every writer's segment
   * holds of the execution's sends and journals the reset ({@code reset}, once per run), so the
   * journal tells the reset and the run's record can show the sends its history lost.
   */
  @ActivityMethod
  JournaledSends resetRun(ResetRun run);
}
