package io.onceport.workflow.execution;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where a send hands its answer to a caller waiting in the same process, before the answer has
 * gone through the engine (see {@link io.onceport.workflow.dispatch.AnswerPlan}). The front end
 * implements it; the dispatch activity offers to it. Only an interface here: the waiting is done by
 * the implementations, outside workflow code.
 */
public interface AnswerDesk {
  /** No caller is ever waiting here: a worker without a front end in its process. */
  AnswerDesk NONE = (callIds, record) -> null;

  /**
   * Offers a settled record to the first of these calls whose caller waits in this process.
   *
   * @return the hand-over, or null when no caller here took it
   */
  Handoff offer(List<String> callIds, ExecutionRecord record);

  /** A send for these calls started in this process: their callers may wait here for its answer. */
  default void sending(List<String> callIds) {}

  /** The send for these calls ended without handing an answer over (no answer, or one the policy does not settle on). */
  default void noAnswer(List<String> callIds) {}

  /** A record a caller took: its front end reports how writing it went. */
  interface Handoff {
    /** The call that took the record. */
    String callId();

    /** The caller's delivery report, or null when none came within {@code timeoutMillis} (ask again, or abandon). */
    DeliveryReport poll(long timeoutMillis) throws InterruptedException;

    /**
     * Calls {@code then} with the caller's delivery report when it comes (at once if it came), on
     * the reporting thread; never if it goes the usual way after {@link #abandon()}.
     */
    void whenReported(Consumer<DeliveryReport> then);

    /**
     * Stops waiting. Returns the report if it arrived meanwhile (it is then this hand-over's);
     * otherwise null, and the report goes the usual way (a signal to the workflow): never both ways.
     */
    DeliveryReport abandon();
  }
}
