package io.onceport.workflow.execution;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.HandedOver;
import io.onceport.workflow.dispatch.Sent;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.replay.ReplayPolicy;
import io.onceport.workflow.replay.ReplayPolicy.Action;
import io.onceport.workflow.replay.ReplayPolicy.Fact;
import io.onceport.workflow.replay.ReplayPolicy.Step;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * The only part of the workflow that crosses the boundary, one {@link ReplayPolicy} step at a time:
 * channels report facts (answered, not sent, outcome unknown, a status verdict, an operator's
 * resolution), the policy decides the next step, and this class carries it out on the {@link
 * Execution}. Every send is one activity attempt ({@code maximumAttempts = 1}); a lost worker is a
 * fact for the policy, never a Temporal-level re-send.
 */
final class Dispatcher {
  private static final Set<String> NOT_DISPATCHABLE = Set.of(
      ErrorTypes.INVALID_REQUEST, ErrorTypes.HOST_KEY_MISMATCH, ErrorTypes.CREDENTIAL_UNAVAILABLE, ErrorTypes.JOURNAL_UNAVAILABLE);

  private final ReplayPolicy policy = ReplayPolicy.DEFAULT;
  private final Execution execution;
  private final Inbox inbox;
  private final MainLoop loop;
  private final OperatorDecisions decisions;
  private final Random random;
  private final ActivityOptions sendOptions;
  private final ActivityOptions statusOptions;
  private final CallStory story;
  /** The last send's in-band delivery ({@link InBandAnswer}), for the run's end; null when there was none. */
  private HandedOver handedOver;

  Dispatcher(Execution execution, Inbox inbox, MainLoop loop, OperatorDecisions decisions, Random random,
      ActivityOptions sendOptions, ActivityOptions statusOptions, CallStory story) {
    this.execution = execution;
    this.inbox = inbox;
    this.loop = loop;
    this.decisions = decisions;
    this.random = random;
    this.sendOptions = sendOptions;
    this.statusOptions = statusOptions;
    this.story = story;
  }

  /** What the last send, status query or operator reported, for the next policy decision. */
  private record Observation(Fact fact, boolean succeeded, DispatchResult answer, String detail) {}

  /**
   * Runs the policy's steps until the execution settled (or was cancelled before anything was
   * sent). A reset run whose record holds the sends the journal proves ({@link
   * Execution#journalRead}) starts from the fact that they were sent before, outcome unknown; one
   * the ladder refused after such sends ({@code authorized} false) goes to an operator.
   */
  void execute(boolean authorized) {
    if (!authorized) {
      reviewAfterRefusal();
      return;
    }
    int before = execution.sends().size();
    run(before == 0 ? new Observation(Fact.NONE, false, null, null)
        : new Observation(Fact.SENT_BEFORE, false, null, "the journal proves " + before + (before == 1 ? " send" : " sends")
            + " of this execution by an earlier run (a reset)"));
  }

  /**
   * The ladder refused a reset run whose earlier runs sent ({@link Execution#refusedAfterSends}):
   * nothing is sent, and an operator resolves the unknown outcome (a re-dispatch is the operator's
   * decision, under the same key).
   */
  private void reviewAfterRefusal() {
    run(awaitReview("this run's authorization was refused, but an earlier run sent it; the outcome is unknown"));
  }

  /**
   * A verification (or an operator) found the effect of the completed action absent, and the policy
   * decided {@code step} on that fact ({@link Verifier}): a send under the same key, or a review.
   * Returns once the execution settled again.
   */
  void afterNotApplied(Step step, String detail) {
    run(new Observation(Fact.NOT_APPLIED, false, null, detail), step);
  }

  private void run(Observation start) {
    run(start, null);
  }

  /** The policy's steps from {@code start}; {@code first}, when given, is the step already decided on it. */
  private void run(Observation start, Step first) {
    ReplayClass replay = execution.input().contract().replayClass();
    Observation seen = start;
    Step decided = first;
    while (true) {
      Step step = decided != null ? decided : policy.decide(replay, seen.fact(), execution.situation(seen.succeeded()));
      decided = null;
      execution.sends().decided(step);
      story.decided(step);
      Action action = step.action();
      if (action.sends()) {
        if (!sendAgain(step, seen)) {
          return;
        }
        seen = send();
        continue;
      }
      switch (action) {
        case QUERY_STATUS -> {
          if (!step.delay().isZero()) {
            loop.waitUntil(Workflow.currentTimeMillis() + step.delay().toMillis(), () -> false);
          }
          seen = queryStatus();
        }
        case SETTLE_COMPLETED, SETTLE_FAILED -> {
          settleFrom(seen, action == Action.SETTLE_COMPLETED);
          return;
        }
        case FAIL_NOT_EXECUTED -> {
          execution.failed(Outcome.NOT_EXECUTED, seen.fact() == Fact.NOT_SENT
              ? "the target could not be reached; nothing was sent: " + seen.detail()
              : "not dispatched: " + seen.detail());
          return;
        }
        case NEEDS_REVIEW -> seen = awaitReview(step.reason() + (seen.detail() == null ? "" : ": " + seen.detail()),
            seen.fact() == Fact.NOT_APPLIED);
        default -> throw new IllegalStateException("unhandled step " + action);
      }
    }
  }

  /**
   * Before a send the policy asked for: its delay (a cancellation may end it), and the proof a
   * "not executed" status answer gives. False when a cancellation stopped the execution instead.
   */
  private boolean sendAgain(Step step, Observation seen) {
    if (step.action() == Action.RETRY_NOT_SENT) {
      execution.sends().retryingNotSent();
    }
    if (!step.delay().isZero()) {
      loop.waitUntil(Workflow.currentTimeMillis() + step.delay().toMillis(), () -> inbox.cancelRequested() && execution.mayCancel());
    }
    if (seen.fact() == Fact.STATUS_NOT_EXECUTED) {
      // Proof: no send under this key acted (the status facility is keyed by the execution id).
      execution.provedNotActed("status query proved the action did not run; dispatching again under the same execution id");
    }
    if (inbox.cancelRequested() && execution.mayCancel()) {
      execution.cancelledBeforeDispatch();
      return false;
    }
    return true;
  }

  /** One send. The entries queued so far travel with it: the activity makes them durable with its dispatched entry, before the first byte. */
  private Observation send() {
    handedOver = null;
    int attempt = execution.sendStarted();
    String startedAt = execution.now();
    String reference = Ids.resultReference(Workflow.currentTimeMillis(), random);
    loop.publish();
    List<JournalEntry> carried = execution.journal().drain();
    ExecutionInput input = execution.input();
    DispatchRequest request = new DispatchRequest(execution.executionId(), input.fingerprint(), input.contract(), input.arguments(),
        attempt, carried, reference, InBandAnswer.plan(execution, startedAt, input.contract().replay().attachWindow().toMillis()));
    DispatchActivities sender = Workflow.newActivityStub(DispatchActivities.class,
        ActivityOptions.newBuilder(sendOptions).setSummary(story.send(input, attempt)).build());
    Promise<Sent> sent = Async.function(sender::send, request);
    loop.waitUntil(Long.MAX_VALUE, sent::isCompleted);
    execution.sends().ended(Workflow.currentTimeMillis());
    try {
      Sent answer = sent.get();
      DispatchResult r = answer.answer();
      execution.sendAnswered(attempt, startedAt, code(r), reference);
      if (answer.journalProblem() != null) {
        execution.journalGap("outcome", answer.journalProblem());
      }
      handedOver = answer.handedOver();
      return new Observation(Fact.ANSWERED, r.succeeded(), r, null);
    } catch (ActivityFailure failure) {
      return sendFailed(failure, attempt, startedAt, carried);
    }
  }

  /** The answer's status code or exit status. */
  static Integer code(DispatchResult r) {
    return r.status() != null ? r.status() : r.exitStatus();
  }

  /**
   * The delivery of the answer the execution settled on, if its send handed it to the caller in
   * band; null otherwise (then the front end reports it with a signal, as for any caller).
   */
  DeliveryReport handedOver() {
    HandedOver h = handedOver;
    return h == null ? null : new DeliveryReport(h.callId(), h.delivered(), h.at(), h.detail());
  }

  /** Whether the in-band delivery's {@code delivered} entry is already in the journal. */
  boolean handedOverJournaled() {
    return handedOver != null && handedOver.journaled();
  }

  /** A send without an answer, as a fact: not sent, not dispatchable, sent before, outcome unknown, or worker lost. */
  private Observation sendFailed(ActivityFailure failure, int attempt, String startedAt, List<JournalEntry> carried) {
    Throwable cause = failure.getCause();
    String type;
    String text;
    if (cause instanceof ApplicationFailure app) {
      type = app.getType();
      text = app.getOriginalMessage();
    } else if (cause instanceof TimeoutFailure timeout) {
      type = null;
      text = "the worker stopped answering during the send (" + timeout.getTimeoutType() + ")";
    } else {
      type = ErrorTypes.OUTCOME_UNKNOWN;
      text = String.valueOf(cause == null ? failure.getMessage() : cause.getMessage());
    }
    if (type == null || ErrorTypes.JOURNAL_UNAVAILABLE.equals(type)) {
      // A lost worker may have died before writing them; the journal cannot have them if it failed.
      execution.journal().requeue(carried);
    }
    if (ErrorTypes.NOT_SENT.equals(type)) {
      execution.sendNotSent(attempt, startedAt, text);
      return new Observation(Fact.NOT_SENT, false, null, text);
    }
    if (ErrorTypes.SENT_BEFORE.equals(type)) {
      execution.sendSentBefore(attempt, startedAt, text);
      return new Observation(Fact.SENT_BEFORE, false, null, text);
    }
    if (type != null && NOT_DISPATCHABLE.contains(type)) {
      execution.sendNotDispatchable(attempt, startedAt, text);
      return new Observation(Fact.NOT_DISPATCHABLE, false, null, text);
    }
    boolean lost = type == null;
    execution.sendUncertain(attempt, startedAt, text, lost);
    return new Observation(lost ? Fact.WORKER_LOST : Fact.OUTCOME_UNKNOWN, false, null, text);
  }

  /** One status query: the verdict becomes a fact for the policy. */
  private Observation queryStatus() {
    execution.statusQueryStarted();
    ExecutionInput input = execution.input();
    DispatchActivities status = Workflow.newActivityStub(DispatchActivities.class, ActivityOptions.newBuilder(statusOptions)
        .setSummary(CallStory.statusQuery(input, execution.executionId(), execution.sends().statusChecks().size() + 1)).build());
    DispatchRequest request = new DispatchRequest(execution.executionId(), input.fingerprint(), input.contract(), input.arguments(),
        Math.max(1, execution.sends().size()));
    Promise<StatusResult> asked = Async.function(status::queryStatus, request);
    loop.waitUntil(Long.MAX_VALUE, asked::isCompleted);
    StatusResult verdict;
    try {
      verdict = asked.get();
    } catch (ActivityFailure failure) {
      verdict = new StatusResult(StatusResult.Verdict.UNKNOWN, null, "status query failed: " + MainLoop.rootMessage(failure));
    }
    DispatchResult found = verdict.result();
    Integer code = found == null ? null : found.status() != null ? found.status() : found.exitStatus();
    execution.statusChecked(verdict.verdict().name().toLowerCase(Locale.ROOT), code, verdict.detail());
    Fact fact = switch (verdict.verdict()) {
      case COMPLETED -> Fact.STATUS_COMPLETED;
      case FAILED -> Fact.STATUS_FAILED;
      case NOT_EXECUTED -> Fact.STATUS_NOT_EXECUTED;
      case RUNNING -> Fact.STATUS_RUNNING;
      case UNKNOWN -> Fact.STATUS_OTHER;
    };
    return new Observation(fact, fact == Fact.STATUS_COMPLETED, found, verdict.detail());
  }

  private Observation awaitReview(String reason) {
    return awaitReview(reason, false);
  }

  /**
   * Waits for an operator's resolution; returns it as a fact for the policy. {@code effectAbsent}:
   * the outcome is known (completed) but its effect was found absent, which the record says instead
   * of "outcome unknown".
   */
  private Observation awaitReview(String reason, boolean effectAbsent) {
    if (effectAbsent) {
      execution.needsReviewEffectAbsent(reason);
    } else {
      execution.needsReview(reason);
    }
    while (true) {
      loop.waitUntil(Long.MAX_VALUE, inbox::resolutionWaiting);
      Observation seen = consumeResolution(inbox.takeResolution());
      if (seen != null) {
        return seen;
      }
      // Refused: still needs_review, waiting for a decision that verifies.
    }
  }

  /**
   * An operator's resolution becomes a fact (the one place a resolution is consumed), or null when
   * its statement is refused.
   */
  private Observation consumeResolution(Inbox.Presentation<Resolution> presentation) {
    Resolution presented = presentation.decision();
    DecisionVerdict v = decisions.verify(presented.signedDecision(), DecisionBinding.RESOLUTION, execution.executionId(),
        execution.input().fingerprint(), List.of(DecisionBinding.COMPLETED, DecisionBinding.FAILED, DecisionBinding.REDISPATCH),
        presented.by(), "onceport executions resolve, or onceport operator sign resolution");
    if (!v.valid()) {
      decisions.refuse(DecisionBinding.RESOLUTION, v, presented.signedDecision(), presented.by());
      presentation.answer(v.refusal());
      return null;
    }
    Resolution decided = new Resolution(Resolution.Decision.valueOf(v.decision().toUpperCase(Locale.ROOT)),
        v.reason().isBlank() ? "(no reason given)" : v.reason(), v.operator());
    presentation.answer(null);
    execution.reviewResolved(decided);
    String text = "resolved by " + decided.by() + " as " + decided.decision().name().toLowerCase() + ": " + decided.reason();
    return switch (decided.decision()) {
      case COMPLETED -> new Observation(Fact.RESOLVED_COMPLETED, true, null, text);
      case FAILED -> new Observation(Fact.RESOLVED_FAILED, false, null, text);
      case REDISPATCH -> {
        execution.provedNotActed("resolved by " + decided.by() + " for re-dispatch: " + decided.reason());
        yield new Observation(Fact.RESOLVED_REDISPATCH, false, null, text);
      }
    };
  }

  private void settleFrom(Observation seen, boolean succeeded) {
    switch (seen.fact()) {
      // The send activity journaled this outcome itself (with the result reference).
      case ANSWERED -> execution.settledOnAnswer(seen.answer(), succeeded);
      case STATUS_COMPLETED, STATUS_FAILED -> {
        if (seen.answer() != null) {
          execution.result(seen.answer(), Ids.resultReference(Workflow.currentTimeMillis(), random));
          execution.settled(succeeded, "the status query found it: " + seen.answer().answer(), true);
        } else {
          execution.settled(succeeded, "status query: " + seen.detail(), true);
        }
      }
      default -> execution.settled(succeeded, seen.detail(), true);
    }
  }
}
