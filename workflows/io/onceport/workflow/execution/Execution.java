package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.journal.JournalTransition;
import io.onceport.workflow.journal.JournaledSends;
import io.onceport.workflow.replay.ReplayPolicy;
import java.time.Instant;
import java.util.ArrayList;
import io.onceport.workflow.execution.ExecutionRecord.Verification;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * One execution as its run knows it: the state object of {@link ToolExecutionWorkflowImpl} (in the
 * spirit of samples-java's single-state-object workflows). It owns the state transitions, the
 * version counter, the evidence (its {@link SendLog}, {@link CallLog} and transitions), the {@link
 * JournalQueue} of entries waiting to be written, and the one place the {@link ExecutionRecord} is
 * built from them.
 *
 * <p><b>Why one object.</b> Every change goes through a method here, and every method that changes
 * what a caller could see bumps {@link #version()} exactly once, so a waiter in {@code awaitChange}
 * cannot miss a change and nobody writes {@code version++} by hand.
 *
 * <p><b>Determinism.</b> It holds data only: no stubs, promises or timers, and it issues no Temporal
 * command. Time comes from the clock it is given ({@code Workflow::currentTimeMillis} in the
 * workflow), so it is also usable, and tested, outside a workflow.
 *
 * <p><b>Serializable.</b> Its fields are the whole state, and it round-trips through the data
 * converter (fields only; the clock and the logger are the run's, given again by {@link #resume}),
 * so it could be carried to a new run as input, as samples-java's state objects are.
 *
 * <p>Long because: it is the one place every state change goes through (see "Why one object");
 * split, the version rule would have to hold across classes.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE, isGetterVisibility = Visibility.NONE)
final class Execution {
  // Set once, by the constructor (or the data converter).
  private ExecutionInput input;
  /** Derived from {@code input} once, when first asked for (transient: not part of the serialized state). */
  private transient String shownArguments;
  private String executionId;
  private String workflowId;
  private String runId;
  private String acceptedAt;
  private JournalQueue journal;
  private transient LongSupplier clock;
  private transient Logger log;

  private ExecutionState state = ExecutionState.ACCEPTED;
  private Outcome outcome = Outcome.PENDING;
  private Delivery delivery = Delivery.PENDING;
  private String authorizedAt;
  private String dispatchedAt;
  private String completedAt;
  private String deliveredAt;
  private String resultReference;
  private DispatchResult result;
  private ExecutionRecord.Authorization authorization;
  private ExecutionRecord.Review review;
  private final SendLog sends = new SendLog();
  private final VerificationLog verification = new VerificationLog();
  private final CallLog calls = new CallLog();
  private final List<ExecutionRecord.Transition> transitions = new ArrayList<>();
  private String attachableUntil;
  /** Workflow time of the last accepted attach: the run stays open {@code ATTACH_RETRY_GRACE} after it. */
  private long lastAttachMillis;
  private String cancellation;
  private String message = "accepted";
  private long version;
  private int refusals;
  /** Set on a run a reset made: the run whose start its history begins with. */
  private String originalRunId;
  /** What a reset run read from the journal at its first step after the reset point. */
  private ExecutionRecord.Reset reset;
  private boolean refusedAfterSends;
  /** The journal attempt of the review waiting (or last resolved): its resolution is journalled under the same number. */
  private int reviewAttempt;

  /** An accepted execution: its first transition, and its {@code accepted} entry queued (version 0). */
  Execution(ExecutionInput input, String executionId, long acceptedMillis, String workflowId, String runId,
      LongSupplier clock, Logger log) {
    this.input = Objects.requireNonNull(input, "input == null");
    this.executionId = Objects.requireNonNull(executionId, "executionId == null");
    this.workflowId = workflowId;
    this.runId = runId;
    this.clock = Objects.requireNonNull(clock, "clock == null");
    this.log = Objects.requireNonNull(log, "log == null");
    this.acceptedAt = Instant.ofEpochMilli(acceptedMillis).toString();
    this.journal = new JournalQueue(executionId, input.fingerprint(), input.tool());
    transitions.add(new ExecutionRecord.Transition(state.wireName(), acceptedAt, ""));
    queue(JournalTransition.ACCEPTED, 1, JournalDetails.accepted(input));
  }

  /** For the data converter: every field is then set from the payload. */
  private Execution() {}

  /** A deserialized execution continues with this run's clock and logger. */
  Execution resume(LongSupplier clock, Logger log) {
    this.clock = Objects.requireNonNull(clock, "clock == null");
    this.log = Objects.requireNonNull(log, "log == null");
    return this;
  }

  ExecutionInput input() {
    return input;
  }

  /**
   * The run id this run's history started with ({@code WorkflowInfo.getOriginalExecutionRunId()}):
   * a reset copies the history and keeps it, while the run gets a new id, so a run whose id differs
   * was made by {@code temporal workflow reset}. Empty or null (an engine that does not set it): not
   * a reset.
   */
  void historyStartedWith(String original) {
    if (original != null && !original.isEmpty() && !original.equals(runId)) {
      this.originalRunId = original;
    }
  }

  /** The run whose start this run's history begins with, when this run is a reset; else null. */
  String originalRunId() {
    return originalRunId;
  }

  String runId() {
    return runId;
  }

  /**
   * A reset run read the journal at its first step after the reset point: the reset goes on the
   * record with every send the journal proves, by whatever run. If this run has not begun a send,
   * the journal's sends become its record's sends ({@code sent_before}: sent by an earlier run,
   * outcome unknown to this one), so the policy decides from them and the next attempt follows
   * them; a send this run asks for after that is a new attempt under the same key.
   */
  void journalRead(JournaledSends journaled) {
    reset = new ExecutionRecord.Reset(runId, originalRunId, journaled.reset(), now(), journaled.sends(), journaled.runs());
    StringBuilder text = new StringBuilder("this run (").append(runId).append(") is reset ").append(journaled.reset())
        .append(" of the execution, whose history began with run ").append(originalRunId).append("; the journal ");
    if (journaled.sends().isEmpty()) {
      text.append("holds no send of it");
    } else {
      text.append("proves ").append(journaled.sends().size()).append(journaled.sends().size() == 1 ? " send: " : " sends: ");
      for (int i = 0; i < journaled.sends().size(); i++) {
        text.append(i == 0 ? "" : "; ").append(describe(journaled.sends().get(i)));
      }
    }
    if (!sends.begun()) {
      for (JournaledSends.Send s : journaled.sends()) {
        sends.add(new ExecutionRecord.Send(s.attempt(), executionId, s.at(), s.at(), ExecutionRecord.Send.SENT_BEFORE, s.status(),
            "sent before this run: " + describe(s), null));
        sends.uncertain();
        outcome = Outcome.UNKNOWN;
        if (dispatchedAt == null) {
          dispatchedAt = s.at();
        }
      }
    }
    note("reset", text.toString());
  }

  /** "attempt 1 by run R at T (completed, 201)": one send as the journal proves it. */
  private static String describe(JournaledSends.Send s) {
    return "attempt " + s.attempt() + " by run " + (s.runId() == null ? "(not named)" : s.runId()) + " at " + s.at()
        + " (" + (s.outcome() == null ? "no outcome journaled" : s.outcome()) + (s.status() == null ? "" : ", " + s.status()) + ")";
  }

  /** The ladder refused a reset run whose earlier runs sent: an operator decides ({@link #refusedAfterSends}). */
  boolean refusedAfterJournaledSends() {
    return refusedAfterSends;
  }

  /** Whether the journal proves a send of this execution (read by a reset run). */
  boolean journalProvesSends() {
    return reset != null && !reset.sends().isEmpty();
  }

  String executionId() {
    return executionId;
  }

  ExecutionState state() {
    return state;
  }

  Delivery delivery() {
    return delivery;
  }

  long version() {
    return version;
  }

  /** The sends and the policy's counters; changes a caller sees go through this object's methods. */
  SendLog sends() {
    return sends;
  }

  /** The entries queued for the journal: the main method writes them. */
  JournalQueue journal() {
    return journal;
  }

  /** Workflow time as ISO-8601, the form every time on the record takes. */
  String now() {
    return Instant.ofEpochMilli(clock.getAsLong()).toString();
  }

  /** Settled: finished, or waiting for an operator's review. */
  boolean isSettled() {
    return state.isTerminal() || state == ExecutionState.NEEDS_REVIEW;
  }

  /** Settled, or waiting on a person: an answer a caller can be given now. */
  boolean hasAnswer() {
    return isSettled() || state == ExecutionState.AWAITING_APPROVAL || state == ExecutionState.AWAITING_SESSION_AUTHORIZATION;
  }

  /** Past the ladder's first decision: sent (or sending), or settled, or waiting for a person. */
  boolean firstStepDecided() {
    return state != ExecutionState.ACCEPTED && state != ExecutionState.AUTHORIZED;
  }

  /** True while nothing sent may have acted: a cancellation still stops the execution. */
  boolean mayCancel() {
    return !sends.anyUncertain() && !state.mayHaveCrossedDispatch() && !journalProvesSends();
  }

  /** What the replay policy decides on. */
  ReplayPolicy.Situation situation(boolean succeeded) {
    return sends.situation(input.contract(), clock.getAsLong(), succeeded);
  }

  void transition(ExecutionState next, String text) {
    state = next;
    message = text;
    transitions.add(new ExecutionRecord.Transition(next.wireName(), now(), text));
    version++;
    log.info("{} {} {}", executionId, next.wireName(), text);
  }

  /** An event on the record that is not a state (a refused decision, a journal gap). */
  private void note(String kind, String text) {
    transitions.add(new ExecutionRecord.Transition(kind, now(), text));
    version++;
  }

  /**
   * The ladder's decision on the record (how it decided: rule, by, reason, until when it waits), the
   * state it leads to, and its journal entry. A rejection means nothing was, or will be, executed.
   */
  void authorization(ExecutionRecord.Authorization how, ExecutionState next, String text, JournalTransition entry,
      Map<String, Object> detail) {
    authorization = how;
    if (next == ExecutionState.AUTHORIZED) {
      authorizedAt = how.at();
    } else if (next == ExecutionState.REJECTED) {
      outcome = Outcome.NOT_EXECUTED;
    }
    transition(next, text);
    queue(entry, 1, detail);
  }

  /**
   * The ladder refused this run, but the journal proves sends by earlier runs (a reset run whose
   * decision was verified again, e.g. a signed statement that has expired since): nothing is sent
   * now, and the outcome is unknown — never "nothing was dispatched". The refusal is on the record
   * and in the journal; an operator decides next ({@link Dispatcher#reviewAfterRefusal}).
   */
  void refusedAfterSends(ExecutionRecord.Authorization how, String text, Map<String, Object> detail) {
    authorization = how;
    outcome = Outcome.UNKNOWN;
    refusedAfterSends = true;
    Map<String, Object> withSends = new java.util.LinkedHashMap<>(detail);
    withSends.put("sends_before", reset.sends().size());
    queue(JournalTransition.REJECTED, 1, withSends);
    message = text;
    note("authorization_refused", text);
  }

  /** An operator's statement was refused: on the record, and in the journal with what was presented ({@code detail}). */
  void decisionRefused(String kind, String refusal, Map<String, Object> detail) {
    refusals++;
    queue(JournalTransition.DECISION_REFUSED, refusals, detail);
    note("decision_refused", kind + " refused: " + refusal);
  }

  /** Whether a cancellation can still stop the execution: nothing sent may have acted. */
  boolean cancellable() {
    return !(state.isTerminal() || state.mayHaveCrossedDispatch() || sends.anyUncertain() || journalProvesSends());
  }

  void cancellationRequested(String who) {
    cancellation = "cancelled by " + who;
  }

  void cancellationRefused(String who, String by) {
    cancellation = "cancellation requested by " + who + " after dispatch; a sent request cannot be unsent, only waiting stopped";
    version++;
    queue(JournalTransition.CANCEL_REFUSED, 1, Map.of("by", by, "state", state.wireName()));
  }

  void cancelledBeforeDispatch() {
    outcome = Outcome.NOT_EXECUTED;
    transition(ExecutionState.CANCELLED, "cancelled before dispatch; nothing was sent (" + cancellation + ")");
    queue(JournalTransition.CANCELLED, 1, Map.of("detail", cancellation));
  }

  /** A send begins: dispatched, outcome pending; returns its attempt number. */
  int sendStarted() {
    int attempt = sends.begin();
    if (dispatchedAt == null) {
      dispatchedAt = now();
    }
    outcome = Outcome.PENDING;
    transition(ExecutionState.DISPATCHED, "dispatched (send " + attempt + "), outcome pending");
    return attempt;
  }

  void sendAnswered(int attempt, String startedAt, Integer code, String reference) {
    sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(), ExecutionRecord.Send.ANSWERED, code, "", null));
    resultReference = reference;
  }

  /** Provably nothing left: back to authorized for the policy's next step. */
  void sendNotSent(int attempt, String startedAt, String text) {
    sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(), ExecutionRecord.Send.NOT_SENT, null, text, null));
    queue(JournalTransition.NOT_SENT, attempt, Map.of("reason", text));
    transition(ExecutionState.AUTHORIZED, "not sent (" + text + ")");
  }

  /** The request could never be sent (invalid, no credential, host key): the policy fails it. */
  void sendNotDispatchable(int attempt, String startedAt, String text) {
    sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(), ExecutionRecord.Send.NOT_SENT, null, text, null));
  }

  /**
   * The journal already holds this attempt's {@code dispatched} entry: it was sent before (by a run
   * this one was reset from, or a replayed history), nothing was sent now, and its outcome is
   * unknown to this run. On the record it is the send that was made, never "not sent".
   */
  void sendSentBefore(int attempt, String startedAt, String text) {
    JournaledSends.Send proven = null;
    if (reset != null) {
      for (JournaledSends.Send s : reset.sends()) {
        if (s.attempt() == attempt) {
          proven = s;
        }
      }
    }
    String detail = proven == null ? text : "sent before this run: " + describe(proven) + "; " + text;
    sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(), ExecutionRecord.Send.SENT_BEFORE,
        proven == null ? null : proven.status(), detail, null));
    sends.uncertain();
    outcome = Outcome.UNKNOWN;
    queue(JournalTransition.SENT_BEFORE, attempt, Map.of("reason", text, "run_id", String.valueOf(runId)));
    version++;
  }

  /** Bytes may have reached the target and no answer came (or the worker was lost mid-send). */
  void sendUncertain(int attempt, String startedAt, String text, boolean workerLost) {
    String observed = workerLost ? ExecutionRecord.Send.WORKER_LOST : ExecutionRecord.Send.OUTCOME_UNKNOWN;
    sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(), observed, null, text, null));
    sends.uncertain();
    outcome = Outcome.UNKNOWN;
    queue(JournalTransition.OUTCOME_UNKNOWN, attempt, Map.of("reason", text, "observed", observed));
    version++;
  }

  /**
   * Proof (a status query's "not executed", an operator's re-dispatch) that no send under this key
   * acted: nothing uncertain remains, and the next send is a first one again.
   */
  void provedNotActed(String text) {
    sends.provedNotActed();
    outcome = Outcome.PENDING;
    transition(ExecutionState.AUTHORIZED, text);
  }

  void statusQueryStarted() {
    if (state != ExecutionState.VERIFYING) {
      transition(ExecutionState.VERIFYING, "outcome unknown; asking the target's status facility");
    }
    sends.statusQueried();
  }

  void statusChecked(String verdict, Integer code, String detail) {
    int checks = sends.checked(new ExecutionRecord.StatusCheck(now(), verdict, code, detail));
    version++;
    queue(JournalTransition.STATUS_QUERY, checks, Map.of("verdict", verdict, "detail", detail));
  }

  void needsReview(String reason) {
    transition(ExecutionState.NEEDS_REVIEW,
        "outcome unknown (" + reason + "); it was not re-sent and waits for an operator: onceport executions resolve " + executionId);
    reviewAttempt = Math.max(1, sends.size());
    queue(JournalTransition.NEEDS_REVIEW, reviewAttempt, Map.of("reason", reason));
  }

  /** A completed action whose effect a check or an operator found absent waits for an operator (never re-sent for irreversible). */
  void needsReviewEffectAbsent(String reason) {
    transition(ExecutionState.NEEDS_REVIEW, "completed, but its effect is absent (" + reason + "); it was not re-sent and waits "
        + "for an operator: onceport executions resolve " + executionId + " --redispatch|--failed|--completed");
    // Numbered apart from the reviews of unknown outcomes (numbered by sends), which may have come before with as many sends.
    reviewAttempt = EFFECT_REVIEWS + verification.round();
    queue(JournalTransition.NEEDS_REVIEW, reviewAttempt, Map.of("reason", reason));
  }

  /** Journal attempts of reviews after an absent effect start here; those of unknown outcomes count sends (far fewer). */
  static final int EFFECT_REVIEWS = 1000;

  void reviewResolved(Resolution decided) {
    review = new ExecutionRecord.Review(decided.decision().name().toLowerCase(), decided.reason(), decided.by(), now());
    queue(JournalTransition.REVIEW_RESOLVED, reviewAttempt > 0 ? reviewAttempt : Math.max(1, sends.size()),
        JournalDetails.reviewResolved(review));
  }

  /**
   * The result the outcome settles on: the target's answer (its reference was given with the send,
   * {@code reference} null) or what a status query found (a reference of its own).
   */
  void result(DispatchResult answer, String reference) {
    result = answer;
    if (reference != null) {
      resultReference = reference;
    }
  }

  /**
   * Settled on the target's answer, whose outcome entry the send journaled itself: the workflow's
   * path and the in-band answer's ({@link InBandAnswer}), so both build the same record.
   */
  void settledOnAnswer(DispatchResult answer, boolean succeeded) {
    result(answer, null);
    settled(succeeded, "the target answered " + answer.answer(), false);
  }

  void settled(boolean succeeded, String why, boolean journalOutcome) {
    outcome = succeeded ? Outcome.COMPLETED : Outcome.FAILED;
    completedAt = now();
    transition(succeeded ? ExecutionState.COMPLETED : ExecutionState.FAILED, (succeeded ? "completed: " : "failed: ") + why);
    if (journalOutcome) {
      queue(JournalTransition.OUTCOME, Math.max(1, sends.size()), JournalDetails.outcome(outcome, result, resultReference));
    }
  }

  void failed(Outcome why, String text) {
    outcome = why;
    completedAt = now();
    transition(ExecutionState.FAILED, text);
    queue(JournalTransition.OUTCOME, Math.max(1, sends.size()), Map.of("outcome", why.wireName(), "reason", text));
  }

  void attachWindowOpened(long untilMillis) {
    attachableUntil = Instant.ofEpochMilli(untilMillis).toString();
    version++;
  }

  /** The window closed with a settled result nobody was known to receive. */
  void attachWindowClosed() {
    if (delivery != Delivery.DELIVERED && (state == ExecutionState.COMPLETED || state == ExecutionState.FAILED)) {
      queue(JournalTransition.ATTACH_WINDOW_CLOSED, 1, Map.of("delivery", delivery.wireName()));
    }
  }

  // ---- verification (attach_window: until_verified) ----

  /** The verification as it stands (read by the {@link Verifier} and the handlers; changed only here). */
  VerificationLog verification() {
    return verification;
  }

  /** The result the outcome settled on, or null (an operator resolved it): what {@code equals_result} reads. */
  DispatchResult storedResult() {
    return result;
  }

  /**
   * The outcome is completed and the contract keeps the execution until its effect is verified: a
   * round of checks begins, and the agent is told the action is not repeated meanwhile.
   */
  void verificationStarted(String target, long giveUpAtMillis) {
    String giveUpAt = Instant.ofEpochMilli(giveUpAtMillis).toString();
    int round = verification.start(target, now(), giveUpAt);
    message = PENDING_MESSAGE;
    note("verification_pending", "checking " + target + " until it confirms the effect, at the latest until " + giveUpAt
        + (round > 1 ? " (round " + round + ")" : ""));
  }

  /** What an agent reads while the effect is unconfirmed: why nothing is repeated, and how to act again on purpose. */
  static final String PENDING_MESSAGE = "completed; its effect is not confirmed yet, so the action is not repeated until a check "
      + "(or an operator) confirms it. An identical call gets this result; to act again on purpose, call with a new intent key "
      + "(params.idempotencyKey)";

  void nextCheckAt(long millis) {
    verification.nextCheckAt(Instant.ofEpochMilli(millis).toString());
    version++;
  }

  /** One check: on the record (the latest ones) and in the journal (every one). */
  void verificationChecked(io.onceport.workflow.verify.VerifyAnswer answer) {
    String at = now();
    int n = verification.checked(at, answer.verdict().wireName(), answer.status(), answer.held(), answer.detail());
    Map<String, Object> detail = new java.util.LinkedHashMap<>();
    detail.put("verdict", answer.verdict().wireName());
    if (answer.status() != null) {
      detail.put("status", answer.status());
    }
    List<Map<String, Object>> held = new ArrayList<>();
    for (io.onceport.workflow.verify.VerifyAnswer.Held h : answer.held()) {
      Map<String, Object> one = new java.util.LinkedHashMap<>();
      one.put("condition", h.condition());
      one.put("pointer", h.pointer());
      one.put("value", h.value());
      one.put("expected", h.expected());
      held.add(one);
    }
    detail.put("held", held);
    detail.put("detail", answer.detail());
    queue(JournalTransition.VERIFICATION_CHECK, n, detail);
    version++;
  }

  /**
   * The effect is confirmed: identical calls keep attaching until {@code untilMillis} (the verified
   * window), then one is a new intent. From a review (checks gave up), the execution is completed again.
   */
  void verified(String how, long untilMillis) {
    verification.settle(ExecutionRecord.Verification.VERIFIED, now());
    verification.verifiedUntil(untilMillis);
    String until = Instant.ofEpochMilli(untilMillis).toString();
    String text = "completed and verified (" + how + "); identical calls get this result until " + until
        + ", then one is a new intent";
    if (state != ExecutionState.COMPLETED) {
      transition(ExecutionState.COMPLETED, text);
    } else {
      message = text;
      note("verified", how);
    }
    queue(JournalTransition.VERIFIED, verification.round(), Map.of("how", how, "until", until));
  }

  /** The effect was found absent: on the record and in the journal; the replay policy decides next. */
  void notApplied(String how) {
    verification.settle(ExecutionRecord.Verification.NOT_APPLIED, now());
    message = "completed, but its effect is absent (" + how + ")";
    note("not_applied", how);
    queue(JournalTransition.NOT_APPLIED, verification.round(), Map.of("how", how));
  }

  /** No verdict before {@code give_up_after}: it waits for an operator, never repeated. */
  void verificationGivenUp(String why) {
    verification.settle(ExecutionRecord.Verification.GIVEN_UP, now());
    transition(ExecutionState.NEEDS_REVIEW, "completed, but its effect was not confirmed (" + why + "); it is not repeated and "
        + "waits for an operator: onceport executions verify " + executionId + " --verified|--not-applied --reason …");
    queue(JournalTransition.VERIFICATION_GIVEN_UP, verification.round(), Map.of("reason", why,
        "checks", verification.checkCount()));
  }

  /** An operator's verified verdict, journalled with who and why. */
  void verificationDecided(VerificationDecision.Decision decision, String reason, String by) {
    ExecutionRecord.Review review = new ExecutionRecord.Review(decision.wireName(), reason, by, now());
    int n = verification.decided(review);
    queue(JournalTransition.VERIFICATION_DECIDED, n, JournalDetails.reviewResolved(review));
  }

  /**
   * The verification as the record shows it: between the completion and the first step of the
   * checks (a caller's attach may be answered in that same task), already pending — an execution
   * kept until verified is never shown as a plain completion.
   */
  private Verification shownVerification() {
    Verification v = verification.view();
    if (v == null && awaitsVerification()) {
      return new Verification(Verification.PENDING, input.contract().replay().verify().target(),
          now(), null, null, null, 0, List.of(), null);
    }
    return v;
  }

  private String shownMessage() {
    return awaitsVerification() ? PENDING_MESSAGE : message;
  }

  /** Completed, kept until verified, and the checks have not begun yet. */
  private boolean awaitsVerification() {
    return !verification.started() && state == ExecutionState.COMPLETED && input.contract().replay().untilVerified();
  }

  /** A call that attached (the first one created the execution; later ones are retries). */
  void attached(AttachRequest request) {
    recordCall(request, calls.any());
    lastAttachMillis = clock.getAsLong();
    version++;
  }

  long lastAttachMillis() {
    return lastAttachMillis;
  }

  /** The result was delivered: identical calls keep attaching until {@code untilMillis} (the late-arrival tail). */
  void lateArrivalTail(long untilMillis) {
    attachableUntil = Instant.ofEpochMilli(untilMillis).toString();
    version++;
  }

  /** Calls a front end coalesced onto an attach it already made: retries, recorded in one change. */
  void coalesced(List<AttachRequest> requests) {
    for (AttachRequest request : requests) {
      recordCall(request, true);
    }
    version++;
  }

  private void recordCall(AttachRequest request, boolean retry) {
    ExecutionState at = state;
    queue(JournalTransition.CALL, calls.add(request, retry, at), CallLog.evidence(request, retry, at));
  }

  /**
   * A front end's report on one call. Delivered counts only once the result is settled (and not
   * merely waiting for review); not delivered never overrides an earlier delivery.
   */
  void deliveryReported(DeliveryReport report) {
    deliveryReported(report, false);
  }

  /**
   * As {@link #deliveryReported(DeliveryReport)}; {@code journaled}: the send that handed the answer
   * over in band already journaled the {@code delivered} entry.
   */
  void deliveryReported(DeliveryReport report, boolean journaled) {
    calls.reported(report);
    if (report.delivered() && isSettled() && state != ExecutionState.NEEDS_REVIEW) {
      if (delivery != Delivery.DELIVERED) {
        delivery = Delivery.DELIVERED;
        deliveredAt = report.at();
        if (!journaled) {
          queue(JournalTransition.DELIVERED, 1, Map.of("call", report.callId()));
        }
      }
    } else if (!report.delivered() && delivery != Delivery.DELIVERED) {
      delivery = Delivery.NOT_DELIVERED;
      queue(JournalTransition.NOT_DELIVERED, calls.notDelivered(), Map.of("call", report.callId(), "detail", report.detail()));
    }
    version++;
  }

  private void queue(JournalTransition transition, int attempt, Map<String, Object> detail) {
    journal.add(transition, attempt, now(), detail);
  }

  /** A journal append failed: recorded here and in history, not fatal. */
  void journalGap(String what, String why) {
    log.warn("{} journal append of {} failed: {}", executionId, what, why);
    note("journal_unavailable", what + ": " + why);
  }

  /** {@link ExecutionInput#shownArguments()}, derived once: every record carries it (deterministic, so replay derives the same). */
  private String shownArguments() {
    if (shownArguments == null) {
      shownArguments = input.shownArguments();
    }
    return shownArguments;
  }

  /** The record as the query, the updates and the run's result return it. */
  ExecutionRecord record() {
    ToolContract contract = input.contract();
    return new ExecutionRecord(executionId, workflowId, runId, input.fingerprint(), input.intentKey(), input.tool(),
        input.actor(), input.intentScope(), input.sessionId(), contract.channel().name().toLowerCase(),
        input.target(), input.method(), contract.credentialRef(), contract.replayClass().wireName(),
        shownArguments(), state, outcome, delivery, acceptedAt, authorizedAt, dispatchedAt, completedAt,
        deliveredAt, result == null ? null : result.status(), result == null ? null : result.exitStatus(),
        resultReference, result, authorization, review, sends.size(), sends.sends(), sends.statusChecks(), calls.calls(),
        transitions, attachableUntil, cancellation, calls.itemized(shownMessage()), version, reset, shownVerification());
  }
}
