package io.onceport.activity.dispatch;

import io.onceport.workflow.dispatch.DispatchRequest;

/**
 * Records that a dispatch is about to send its first byte. Called from {@link
 * DispatchContext#beforeSend()}; the entry must be durable before it returns, and if it cannot be
 * made durable it throws {@code ApplicationFailure(JOURNAL_UNAVAILABLE)} and nothing may be sent.
 */
public interface DispatchJournal {
  void dispatched(DispatchRequest r);
}
