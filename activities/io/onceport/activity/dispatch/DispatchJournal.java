package io.onceport.activity.dispatch;

import com.uber.m3.tally.Scope;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.journal.JournalEntry;
import java.util.List;

/**
 * Records that a dispatch is about to leave this process. Called from
 * {@link DispatchContext#beforeSend()} right before the first byte of the action is written, so the
 * journal can say "dispatched" for every request that may have reached a target.
 *
 * <p>Crash contract: {@link #dispatched} returns only once the entry is durable. If it cannot make
 * it durable it throws {@code ApplicationFailure(JOURNAL_UNAVAILABLE)} and the channel sends
 * nothing: an action the journal does not know about must not happen.
 */
public interface DispatchJournal {
  /** A journal that records nothing, for tests and deployments without a journal. */
  DispatchJournal NONE = request -> {};

  void dispatched(DispatchRequest request);

  /**
   * As {@link #dispatched(DispatchRequest)}, naming the workflow run that asks for the send (null
   * when unknown): after a reset, the journal then tells which run sent what.
   */
  default void dispatched(DispatchRequest request, String runId) {
    dispatched(request);
  }

  /**
   * Appends entries a send carries or observes (the workflow's queued entries before it, the
   * outcome after it), in order, durable on return; throws a {@code RuntimeException} when it
   * cannot. Idempotent per entry key. {@code metrics} counts execution metrics on the first append
   * of a transition (null: not counted).
   */
  default void append(List<JournalEntry> entries, Scope metrics) {}
}
