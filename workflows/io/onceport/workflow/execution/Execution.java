package io.onceport.workflow.execution;

import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.journal.JournalTransition;
import io.onceport.workflow.replay.ReplayPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;

/**
 * One execution as its run knows it: the state object of {@link ToolExecutionWorkflowImpl} (in the
 * spirit of samples-java's single-state-object workflows). It owns the state transitions, the
 * version counter, the evidence (sends, status checks, calls, transitions), the journal entries
 * waiting to be written, and the one place the {@link ExecutionRecord} is built from them.
 *
 * <p><b>Why one object.</b> Every change goes through a method here, and every method that changes
 * what a caller could see bumps {@link #version()} exactly once, so a waiter in {@code awaitChange}
 * cannot miss a change and nobody writes {@code version++} by hand.
 *
 * <p><b>Determinism.</b> It holds data only: no stubs, promises or timers, and it issues no Temporal
 * command. Time comes from the clock it is given ({@code Workflow::currentTimeMillis} in the
 * workflow), so it is also usable, and tested, outside a workflow.
 */
final class Execution {
  /** Calls kept on the record; later ones are counted, not stored. */
  static final int MAX_RECORDED_CALLS = 200;

  private static final Pattern TOP_LEVEL_ARGUMENT =
      Pattern.compile("\"([A-Za-z0-9_.-]{1,40})\":(\"[^\"]{0,40}\"|[0-9.eE+-]{1,20}|true|false|null)");

  private final ExecutionInput input;
  private final String executionId;
  private final String workflowId;
  private final String runId;
  private final String acceptedAt;
  private final LongSupplier clock;
  private final Logger log;

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
  private final List<ExecutionRecord.Send> sends = new ArrayList<>();
  private final List<ExecutionRecord.StatusCheck> statusChecks = new ArrayList<>();
  private final List<AttachedCall> calls = new ArrayList<>();
  private int unrecordedCalls;
  private int callEntries;
  private final List<ExecutionRecord.Transition> transitions = new ArrayList<>();
  private String attachableUntil;
  private String cancellation;
  private String message = "accepted";
  private long version;
  private int refusals;

  /** Journal entries queued by the main method and by handlers, written by the main method. */
  private final List<JournalEntry> pendingJournal = new ArrayList<>();

  // Counters the replay policy decides on.
  private int notSentRetries;
  private int statusChecksSinceSend;
  private int uncertainSends;
  private long lastSendEndedMillis;

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
    transitions.add(new ExecutionRecord.Transition(state.wireName(), acceptedAt, ""));
    queue(JournalTransition.ACCEPTED, 1, Map.of(
        "tool", input.tool(), "actor", input.actor(), "target", input.target(),
        "replay_class", input.contract().replayClass().wireName(), "intent_scope", input.intentScope(),
        "arguments", input.shownArguments()));
  }

  // ---- reading ----

  ExecutionInput input() {
    return input;
  }

  String executionId() {
    return executionId;
  }

  String acceptedAt() {
    return acceptedAt;
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

  int sendCount() {
    return sends.size();
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

  /** True while nothing sent may have acted: a cancellation still stops the execution. */
  boolean mayCancel() {
    return uncertainSends == 0 && !state.mayHaveCrossedDispatch();
  }

  /** What the replay policy decides on. */
  ReplayPolicy.Situation situation(boolean succeeded) {
    int mayHaveReached = 0;
    for (ExecutionRecord.Send s : sends) {
      if (s.mayHaveReachedTarget()) {
        mayHaveReached++;
      }
    }
    long since = sends.isEmpty() ? 0 : Math.max(0, clock.getAsLong() - lastSendEndedMillis);
    ToolContract contract = input.contract();
    return new ReplayPolicy.Situation(mayHaveReached, notSentRetries, statusChecksSinceSend, uncertainSends, since,
        contract.settleMillis(), contract.requestTimeoutMillis(), succeeded);
  }

  // ---- the one way the state changes ----

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

  // ---- authorization ----

  void authorized(AuthorizationDecision decision) {
    authorizedAt = now();
    authorization = new ExecutionRecord.Authorization("authorized", decision.rule(), authorizedAt, decision.by(), decision.reason(), null);
    transition(ExecutionState.AUTHORIZED, "authorized (" + decision.rule() + ")");
    Map<String, Object> detail = new LinkedHashMap<>(Map.of("rule", decision.rule(), "by", decision.by()));
    if (!decision.reason().isEmpty()) {
      detail.put("reason", decision.reason()); // an operator's approval keeps its reason
    }
    queue(JournalTransition.AUTHORIZED, 1, detail);
  }

  void awaitingApproval(AuthorizationDecision decision, String expiresAt) {
    authorization = new ExecutionRecord.Authorization("awaiting_approval", decision.rule(), now(), decision.by(), decision.reason(), expiresAt);
    transition(ExecutionState.AWAITING_APPROVAL, "awaiting an operator's approval (" + decision.rule() + ") until " + expiresAt
        + ": onceport approve " + executionId);
    queue(JournalTransition.AWAITING_APPROVAL, 1, Map.of("rule", decision.rule(), "expires_at", expiresAt));
  }

  void awaitingSessionAuthorization(AuthorizationDecision decision, String expiresAt) {
    authorization = new ExecutionRecord.Authorization("awaiting_session_authorization", decision.rule(), now(), decision.by(), decision.reason(), expiresAt);
    transition(ExecutionState.AWAITING_SESSION_AUTHORIZATION, "awaiting an operator's authorization of session " + input.sessionId()
        + " until " + expiresAt + ": onceport sessions authorize " + input.sessionId());
    queue(JournalTransition.AWAITING_SESSION_AUTHORIZATION, 1,
        Map.of("rule", decision.rule(), "session", String.valueOf(input.sessionId()), "expires_at", expiresAt));
  }

  void rejected(String rule, String by, String reason) {
    authorization = new ExecutionRecord.Authorization("rejected", rule, now(), by, reason, null);
    outcome = Outcome.NOT_EXECUTED;
    transition(ExecutionState.REJECTED, "rejected (" + rule + ")" + (reason.isEmpty() ? "" : ": " + reason) + "; nothing was dispatched");
    queue(JournalTransition.REJECTED, 1, Map.of("rule", rule, "by", by, "reason", reason));
  }

  /** An operator's statement was refused: on the record and in the journal with what was presented. */
  void decisionRefused(String kind, String refusal, String presentedBy, String statement) {
    refusals++;
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("kind", kind);
    detail.put("refusal", refusal);
    detail.put("presented_by", presentedBy);
    detail.put("statement", statement);
    queue(JournalTransition.DECISION_REFUSED, refusals, detail);
    note("decision_refused", kind + " refused: " + refusal);
  }

  // ---- cancellation ----

  /** Whether a cancellation can still stop the execution: nothing sent may have acted. */
  boolean cancellable() {
    return !(state.isTerminal() || state.mayHaveCrossedDispatch() || uncertainSends > 0);
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

  // ---- sends and status queries ----

  void retryingNotSent() {
    notSentRetries++;
  }

  /** A send begins: dispatched, outcome pending; returns its attempt number. */
  int sendStarted() {
    int attempt = sends.size() + 1;
    statusChecksSinceSend = 0;
    if (dispatchedAt == null) {
      dispatchedAt = now();
    }
    outcome = Outcome.PENDING;
    transition(ExecutionState.DISPATCHED, "dispatched (send " + attempt + "), outcome pending");
    return attempt;
  }

  void sendEnded() {
    lastSendEndedMillis = clock.getAsLong();
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

  /** Bytes may have reached the target and no answer came (or the worker was lost mid-send). */
  void sendUncertain(int attempt, String startedAt, String text, boolean workerLost) {
    sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(),
        workerLost ? ExecutionRecord.Send.WORKER_LOST : ExecutionRecord.Send.OUTCOME_UNKNOWN, null, text, null));
    uncertainSends++;
    outcome = Outcome.UNKNOWN;
    queue(JournalTransition.OUTCOME_UNKNOWN, attempt,
        Map.of("reason", text, "observed", workerLost ? ExecutionRecord.Send.WORKER_LOST : ExecutionRecord.Send.OUTCOME_UNKNOWN));
    version++;
  }

  /** The policy's decision after the last send, written on that send once. */
  void decided(ReplayPolicy.Step step) {
    if (sends.isEmpty()) {
      return;
    }
    int last = sends.size() - 1;
    ExecutionRecord.Send s = sends.get(last);
    if (s.decision() == null) {
      sends.set(last, new ExecutionRecord.Send(s.attempt(), s.key(), s.startedAt(), s.endedAt(), s.observed(), s.status(),
          s.detail(), step.action().name().toLowerCase(Locale.ROOT)));
    }
  }

  /**
   * Proof (a status query's "not executed", an operator's re-dispatch) that no send under this key
   * acted: nothing uncertain remains, and the next send is a first one again.
   */
  void provedNotActed(String text) {
    uncertainSends = 0;
    outcome = Outcome.PENDING;
    transition(ExecutionState.AUTHORIZED, text);
  }

  void statusQueryStarted() {
    if (state != ExecutionState.VERIFYING) {
      transition(ExecutionState.VERIFYING, "outcome unknown; asking the target's status facility");
    }
    statusChecksSinceSend++;
  }

  void statusChecked(String verdict, Integer code, String detail) {
    statusChecks.add(new ExecutionRecord.StatusCheck(now(), verdict, code, detail));
    version++;
    queue(JournalTransition.STATUS_QUERY, statusChecks.size(), Map.of("verdict", verdict, "detail", detail));
  }

  // ---- review ----

  void needsReview(String reason) {
    transition(ExecutionState.NEEDS_REVIEW,
        "outcome unknown (" + reason + "); it was not re-sent and waits for an operator: onceport executions resolve " + executionId);
    queue(JournalTransition.NEEDS_REVIEW, Math.max(1, sends.size()), Map.of("reason", reason));
  }

  void reviewResolved(Resolution decided) {
    review = new ExecutionRecord.Review(decided.decision().name().toLowerCase(), decided.reason(), decided.by(), now());
    queue(JournalTransition.REVIEW_RESOLVED, Math.max(1, sends.size()),
        Map.of("decision", review.decision(), "by", decided.by(), "reason", decided.reason()));
  }

  String reviewDecision() {
    return review == null ? null : review.decision();
  }

  // ---- the outcome ----

  /** The result the target answered with (the send activity journaled it itself). */
  void answered(DispatchResult answer) {
    result = answer;
  }

  /** A result a status query found: it gets a reference of its own. */
  void found(DispatchResult answer, String reference) {
    result = answer;
    resultReference = reference;
  }

  void settled(boolean succeeded, String why, boolean journalOutcome) {
    outcome = succeeded ? Outcome.COMPLETED : Outcome.FAILED;
    completedAt = now();
    transition(succeeded ? ExecutionState.COMPLETED : ExecutionState.FAILED, (succeeded ? "completed: " : "failed: ") + why);
    if (!journalOutcome) {
      return;
    }
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("outcome", outcome.wireName());
    if (result != null && result.status() != null) {
      detail.put("target_status", result.status());
    }
    if (result != null && result.exitStatus() != null) {
      detail.put("exit_status", result.exitStatus());
    }
    if (resultReference != null) {
      detail.put("result_reference", resultReference);
    }
    queue(JournalTransition.OUTCOME, Math.max(1, sends.size()), detail);
  }

  void failed(Outcome why, String text) {
    outcome = why;
    completedAt = now();
    transition(ExecutionState.FAILED, text);
    queue(JournalTransition.OUTCOME, Math.max(1, sends.size()), Map.of("outcome", why.wireName(), "reason", text));
  }

  // ---- staying attachable: calls and deliveries ----

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

  /** A call that attached (the first one created the execution; later ones are retries). */
  void attached(AttachRequest request) {
    recordCall(request, !calls.isEmpty() || unrecordedCalls > 0);
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
    if (calls.size() < MAX_RECORDED_CALLS) {
      calls.add(AttachedCall.of(request, retry, state));
    } else {
      unrecordedCalls++;
    }
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("retry", retry);
    evidence.put("state", state.wireName());
    putIfPresent(evidence, "jsonrpc_id", request.jsonRpcId());
    putIfPresent(evidence, "session", request.sessionId());
    putIfPresent(evidence, "run", request.runId());
    putIfPresent(evidence, "intent_key", request.intentKey());
    putIfPresent(evidence, "client", request.clientInfo());
    putIfPresent(evidence, "protocol_version", request.protocolVersion());
    putIfPresent(evidence, "remote", request.remoteAddress());
    queue(JournalTransition.CALL, ++callEntries, evidence);
  }

  /**
   * A front end's report on one call. Delivered counts only once the result is settled (and not
   * merely waiting for review); not delivered never overrides an earlier delivery.
   */
  void deliveryReported(DeliveryReport report) {
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).callId().equals(report.callId())) {
        calls.set(i, calls.get(i).withDelivery(report.delivered() ? "delivered" : "not_delivered", report.at()));
      }
    }
    if (report.delivered() && isSettled() && state != ExecutionState.NEEDS_REVIEW) {
      if (delivery != Delivery.DELIVERED) {
        delivery = Delivery.DELIVERED;
        deliveredAt = report.at();
        queue(JournalTransition.DELIVERED, 1, Map.of("call", report.callId()));
      }
    } else if (!report.delivered() && delivery != Delivery.DELIVERED) {
      delivery = Delivery.NOT_DELIVERED;
      queue(JournalTransition.NOT_DELIVERED, countNotDelivered(), Map.of("call", report.callId(), "detail", report.detail()));
    }
    version++;
  }

  private int countNotDelivered() {
    int n = 0;
    for (AttachedCall c : calls) {
      if ("not_delivered".equals(c.delivery())) {
        n++;
      }
    }
    return Math.max(1, n);
  }

  // ---- the journal queue ----

  void queue(JournalTransition transition, int attempt, Map<String, Object> detail) {
    Map<String, Object> withTool = new LinkedHashMap<>(detail);
    withTool.putIfAbsent("tool", input.tool());
    pendingJournal.add(new JournalEntry(executionId, input.fingerprint(), transition.wireName(), attempt, now(), withTool));
  }

  boolean journalPending() {
    return !pendingJournal.isEmpty();
  }

  /** The queued entries, in order, and an empty queue. */
  List<JournalEntry> drainJournal() {
    List<JournalEntry> batch = new ArrayList<>(pendingJournal);
    pendingJournal.clear();
    return batch;
  }

  /** Entries that did not become durable go back to the front of the queue. */
  void requeue(List<JournalEntry> entries) {
    pendingJournal.addAll(0, entries);
  }

  /** A journal append failed: recorded here and in history, not fatal. */
  void journalGap(String what, String why) {
    log.warn("{} journal append of {} failed: {}", executionId, what, why);
    note("journal_unavailable", what + ": " + why);
  }

  // ---- the record and what visibility shows of it ----

  /** The memo is written when the execution settles, waits for a person, or closes. */
  boolean memoDue() {
    return state.isTerminal() || state == ExecutionState.NEEDS_REVIEW
        || state == ExecutionState.AWAITING_APPROVAL || state == ExecutionState.AWAITING_SESSION_AUTHORIZATION;
  }

  /** One line for the Temporal UI: {@code create_release service=catalog version=1 → 201, delivered}. */
  String summary() {
    StringBuilder b = new StringBuilder(input.tool());
    Matcher m = TOP_LEVEL_ARGUMENT.matcher(input.shownArguments());
    for (int n = 0; n < 3 && m.find(); n++) {
      b.append(' ').append(m.group(1)).append('=').append(m.group(2).replace("\"", ""));
    }
    b.append(" → ");
    if (result != null && result.status() != null) {
      b.append(result.status());
    } else if (result != null && result.exitStatus() != null) {
      b.append("exit ").append(result.exitStatus());
    } else {
      b.append(state.wireName());
    }
    if (state == ExecutionState.COMPLETED || state == ExecutionState.FAILED) {
      b.append(", ").append(delivery.wireName());
    } else if (outcome == Outcome.UNKNOWN) {
      b.append(", outcome unknown");
    }
    return b.toString();
  }

  /** The record as the query, the updates and the run's result return it. */
  ExecutionRecord record() {
    ToolContract contract = input.contract();
    Integer targetStatus = result == null ? null : result.status();
    Integer exitStatus = result == null ? null : result.exitStatus();
    String shown = unrecordedCalls == 0 ? message : message + " (" + unrecordedCalls + " further calls not itemized)";
    return new ExecutionRecord(
        executionId, workflowId, runId, input.fingerprint(), input.intentKey(), input.tool(),
        input.actor(), input.intentScope(), input.sessionId(), contract.channel().name().toLowerCase(),
        input.target(), input.method(), contract.credentialRef(), contract.replayClass().wireName(),
        input.shownArguments(), state, outcome, delivery, acceptedAt, authorizedAt, dispatchedAt, completedAt,
        deliveredAt, targetStatus, exitStatus, resultReference, result, authorization, review,
        sends.size(), sends, statusChecks, new ArrayList<>(calls), transitions, attachableUntil, cancellation,
        shown, version);
  }

  private static void putIfPresent(Map<String, Object> map, String key, String value) {
    if (value != null) {
      map.put(key, value);
    }
  }
}
