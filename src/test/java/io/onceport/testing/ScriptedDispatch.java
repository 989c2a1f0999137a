package io.onceport.testing;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.Sent;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A dispatch activity whose answers a test scripts, recording every request it receives. Used to
 * test the workflow's decisions in isolation; channel behaviour is tested against real servers.
 */
public final class ScriptedDispatch implements DispatchActivities {
  public final List<DispatchRequest> dispatched = new CopyOnWriteArrayList<>();
  public final List<DispatchRequest> statusQueries = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedDeque<Function<DispatchRequest, DispatchResult>> script = new ConcurrentLinkedDeque<>();
  private final ConcurrentLinkedDeque<StatusResult> statusScript = new ConcurrentLinkedDeque<>();
  public volatile Function<DispatchRequest, DispatchResult> fallback = r -> ok(201, "{\"id\":\"rel_1\"}");

  /** Forgets the script and the recorded requests. */
  public void reset() {
    script.clear();
    statusScript.clear();
    dispatched.clear();
    statusQueries.clear();
    fallback = r -> ok(201, "{\"id\":\"rel_1\"}");
  }

  public ScriptedDispatch then(Function<DispatchRequest, DispatchResult> step) {
    script.add(step);
    return this;
  }

  public ScriptedDispatch thenStatus(StatusResult result) {
    statusScript.add(result);
    return this;
  }

  @Override
  public DispatchResult dispatch(DispatchRequest request) {
    dispatched.add(request);
    Function<DispatchRequest, DispatchResult> step = script.poll();
    return (step == null ? fallback : step).apply(request);
  }

  /**
   * A send as the replay policy makes it: the scripted answer, and the journal entries the request
   * carries (and its outcome) kept in {@link #journal} when one is attached.
   */
  @Override
  public Sent send(DispatchRequest request) {
    RecordingJournal sink = journal;
    if (sink != null) {
      sink.entries.addAll(request.journal());
    }
    DispatchResult answer = dispatch(request);
    if (sink != null && request.resultReference() != null) {
      sink.entries.add(new JournalEntry(request.executionId(), request.fingerprint(), "outcome", request.attempt(),
          java.time.Instant.now().toString(), Map.of("outcome", answer.succeeded() ? "completed" : "failed",
              "result_reference", request.resultReference())));
    }
    return new Sent(answer, null);
  }

  /** Where carried journal entries go (null: dropped). */
  public volatile RecordingJournal journal;

  @Override
  public StatusResult queryStatus(DispatchRequest request) {
    statusQueries.add(request);
    StatusResult next = statusScript.poll();
    return next == null ? new StatusResult(StatusResult.Verdict.UNKNOWN, null, "no script") : next;
  }

  /** Verification checks answer from this script, in order; an empty script answers "not yet known". */
  public final ConcurrentLinkedDeque<io.onceport.workflow.verify.VerifyAnswer> verifyScript = new ConcurrentLinkedDeque<>();
  public final List<io.onceport.workflow.verify.VerifyRequest> verifications = new CopyOnWriteArrayList<>();

  @Override
  public io.onceport.workflow.verify.VerifyAnswer verifyEffect(io.onceport.workflow.verify.VerifyRequest request) {
    verifications.add(request);
    io.onceport.workflow.verify.VerifyAnswer next = verifyScript.poll();
    return next == null ? io.onceport.workflow.verify.VerifyAnswer.noAnswer("no script") : next;
  }

  public static DispatchResult ok(int status, String body) {
    return DispatchResult.http(status, Map.of(), body, false, 1);
  }

  public static Function<DispatchRequest, DispatchResult> notSent() {
    return r -> {
      throw ApplicationFailure.newFailure("connection refused", ErrorTypes.NOT_SENT);
    };
  }

  public static Function<DispatchRequest, DispatchResult> unknown() {
    return r -> {
      throw ApplicationFailure.newNonRetryableFailure("connection reset after the request was written", ErrorTypes.OUTCOME_UNKNOWN);
    };
  }

  public static Function<DispatchRequest, DispatchResult> slow(long millis, DispatchResult result) {
    return r -> {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return result;
    };
  }
}
