package io.onceport.frontend.temporal;

import static io.onceport.frontend.temporal.TemporalExecutionGateway.hasAnswer;

import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.PreparedCall;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.workflow.execution.ExecutionRecord;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A call answered in band: the attach through the engine up to the first step, then the slot. */
final class InBandAttach {
  private final RunAttach attaches;
  private final InBandAnswers answers;
  private final ExecutionDirectory directory;
  private final ExecutionWatches watches;

  InBandAttach(RunAttach attaches, InBandAnswers answers, ExecutionDirectory directory, ExecutionWatches watches) {
    this.attaches = attaches;
    this.answers = answers;
    this.directory = directory;
    this.watches = watches;
  }

  /**
   * How long a caller answered in band waits for the send to start in this process: beyond it the
   * send runs in another worker (or not yet), and the caller follows the execution through the
   * engine as any other.
   */
  static final Duration LOCAL_SEND_START = Duration.ofSeconds(2);

  /**
   * The attach answers as soon as the first step is decided (no timer for the caller's deadline);
   * if the call's send is then on its way from this process's worker, the caller waits at a slot
   * where the send hands over the settled record as soon as the target answered ({@link
   * InBandAnswers}), until its deadline. Handed over, the caller reports its delivery to the
   * waiting send and the run closes in the task that records the answer. Otherwise — answered
   * already, the send elsewhere, no settled answer, the deadline — the caller goes on as before
   * with the record the attach returned.
   */
  RunAttach.Attached attach(ToolCall call, PreparedCall prepared, String callId) {
    InBandAnswers.Slot slot = answers.open(callId);
    RunAttach.Attached joined;
    try {
      joined = attaches.attachJoined(call, prepared, callId, true);
    } catch (RuntimeException e) {
      slot.leave();
      throw e;
    }
    ExecutionRecord first = joined.result().record();
    ExecutionRecord handed = null;
    boolean ours = joined.leader() && !hasAnswer(first) && first.calls().stream().findFirst()
        .map(c -> c.callId().equals(callId)).orElse(false);
    if (ours) {
      // Other callers of this execution waiting here (a storm, a retry): all are answered through
      // the engine, and the run stays open until a delivery report arrives the usual way — a call
      // that arrived before it is still bound to this run however late it is processed.
      String executionId = first.executionId();
      String runId = first.runId();
      slot.declineWhen(() -> watches.polling(executionId) || attaches.attaching(runId));
      long deadline = call.receivedNanos() + TimeUnit.MILLISECONDS.toNanos(call.waitMillis());
      try {
        if (slot.awaitStarted(Math.min(LOCAL_SEND_START.toNanos(), deadline - System.nanoTime()))) {
          handed = slot.awaitRecord(deadline - System.nanoTime());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (handed == null) {
      handed = slot.leave(); // handed over just now, or never
    }
    if (handed == null) {
      return joined;
    }
    directory.remember(handed);
    watches.offer(RunAttach.location(handed), handed);
    return new RunAttach.Attached(new CallResult(handed, callId, joined.result().attached()), joined.leader(), joined.evidence(),
        joined.position());
  }
}
