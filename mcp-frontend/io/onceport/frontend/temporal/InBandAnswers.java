package io.onceport.frontend.temporal;

import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import java.util.function.BooleanSupplier;

/**
 * The front end's side of answering in band: where a call waiting in this process meets the send of
 * its execution when a worker runs in the same process ({@code serve}). The meeting point itself
 * ({@code app/runtime/InProcessAnswers}, the worker's {@code AnswerDesk} too) is wired in app/,
 * which alone knows both roles share a process; {@link #NONE} where they do not.
 */
public interface InBandAnswers {
  /** No worker in this process: every call is answered through the engine. */
  InBandAnswers NONE = new InBandAnswers() {
    @Override
    public boolean answering() {
      return false;
    }

    @Override
    public Slot open(String callId) {
      throw new IllegalStateException("no worker answers in band in this process");
    }

    @Override
    public boolean report(DeliveryReport report) {
      return false;
    }
  };

  /** Whether a worker here may hand answers over: otherwise callers do not wait here at all. */
  boolean answering();

  /** A caller begins to wait for a record of its call. */
  Slot open(String callId);

  /** A delivery report: true when the send that handed this call's record over took it (no signal then). */
  boolean report(DeliveryReport report);

  /** One waiting call's place. */
  interface Slot {
    /** Whether the send for this call started in this process within {@code timeoutNanos}. */
    boolean awaitStarted(long timeoutNanos) throws InterruptedException;

    /** The record handed over within {@code timeoutNanos}, or null (none yet, or the send here ended without one). */
    ExecutionRecord awaitRecord(long timeoutNanos) throws InterruptedException;

    /** The caller declines a hand-over while {@code decline} holds (checked when the send offers). */
    void declineWhen(BooleanSupplier decline);

    /**
     * The caller stops waiting here: the record if one was handed over (the caller must answer with
     * it and report its delivery), else null and no send will hand one over any more.
     */
    ExecutionRecord leave();
  }
}
