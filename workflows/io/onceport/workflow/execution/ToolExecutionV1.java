package io.onceport.workflow.execution;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.SearchAttributeKey;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.slf4j.Logger;

/**
 * The execution state machine as it was before {@link ToolExecutionWorkflowImpl#REPLAY_POLICY_CHANGE}:
 * frozen, so that executions started by earlier workers (and the histories under
 * {@code src/test/resources/histories/}) keep replaying. New executions never run this code. Do not
 * change it; fix bugs in {@link ToolExecutionWorkflowImpl} behind a new version instead.
 *
 * <p>Long because: frozen code is kept byte for byte (a split would have to be proven to issue the
 * same commands for every recorded history, for code no new execution runs), so the class stays at
 * its pre-split size and {@code authorize} and {@code dispatchUntilSettled} keep their length.
 */
final class ToolExecutionV1 {
  private static final SearchAttributeKey<String> SA_EXECUTION_ID = ExecutionSearchAttributes.SA_EXECUTION_ID;
  private static final SearchAttributeKey<String> SA_FINGERPRINT = ExecutionSearchAttributes.SA_FINGERPRINT;
  private static final SearchAttributeKey<String> SA_TOOL = ExecutionSearchAttributes.SA_TOOL;
  private static final SearchAttributeKey<String> SA_ACTOR = ExecutionSearchAttributes.SA_ACTOR;
  private static final SearchAttributeKey<String> SA_STATE = ExecutionSearchAttributes.SA_STATE;
  private static final String INTENT_KEY_MISMATCH_PREFIX = ExecutionSearchAttributes.INTENT_KEY_MISMATCH_PREFIX;

  /** Sends that provably did not reach the target are retried this many times at most. */
  static final int MAX_NOT_SENT_RETRIES = 5;
  /** Status queries after an unknown outcome before an operator is asked. */
  static final int MAX_STATUS_CHECKS = 8;
  /** Re-dispatches after a status query proved the action did not run. */
  static final int MAX_REDISPATCHES = 3;
  /** While waiting for an operator, the gate (vault, credential) is re-checked this often at least... */
  static final int RECHECK_SECONDS = 10;
  /** ...and at most this many times per wait, so a long approval window keeps the history bounded. */
  static final int MAX_RECHECKS = 500;
  /** Calls kept on the record; later ones are counted, not stored. */
  static final int MAX_RECORDED_CALLS = 200;

  private static final String[] NON_RETRYABLE = {
    ErrorTypes.INVALID_REQUEST, ErrorTypes.HOST_KEY_MISMATCH, ErrorTypes.CREDENTIAL_UNAVAILABLE, ErrorTypes.JOURNAL_UNAVAILABLE
  };

  private static final LocalActivityOptions JOURNAL_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).setInitialInterval(Duration.ofMillis(200)).build())
          .build();

  private static final ActivityOptions AUTHORIZATION_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).build())
          .build();

  /** At-most-once dispatch (status_query, irreversible): a lost worker is an unknown outcome. */
  private static final ActivityOptions DISPATCH_ONCE_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setHeartbeatTimeout(Duration.ofSeconds(15))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build();

  /** Repeatable dispatch (read_only, idempotency_key): Temporal retries, the same key every time. */
  private static final ActivityOptions DISPATCH_REPEATABLE_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setHeartbeatTimeout(Duration.ofSeconds(15))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setMaximumAttempts(MAX_NOT_SENT_RETRIES)
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setBackoffCoefficient(2)
                  .setDoNotRetry(NON_RETRYABLE)
                  .build())
          .build();

  private static final ActivityOptions STATUS_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setRetryOptions(
              RetryOptions.newBuilder().setMaximumAttempts(3).setDoNotRetry(NON_RETRYABLE).build())
          .build();

  private final Logger log = Workflow.getLogger(ToolExecutionV1.class);
  private final JournalActivities journal = Workflow.newLocalActivityStub(JournalActivities.class, JOURNAL_OPTIONS);
  /** The ladder as a local activity (version 1): it reads local state only, so no task-queue trip. */
  private static final LocalActivityOptions LOCAL_AUTHORIZATION_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).build())
          .build();

  static final String LOCAL_AUTHORIZATION_CHANGE = "authorization-as-local-activity";
  static final String MEMO_SUMMARY_CHANGE = "memo-summary";

  private AuthorizationActivities authorization =
      Workflow.newActivityStub(AuthorizationActivities.class, AUTHORIZATION_OPTIONS);

  private final ExecutionInput input;
  private final String executionId;
  private final Random random;

  private ExecutionState state = ExecutionState.ACCEPTED;
  private Outcome outcome = Outcome.PENDING;
  private Delivery delivery = Delivery.PENDING;
  private final String acceptedAt;
  private String authorizedAt;
  private String dispatchedAt;
  private String completedAt;
  private String deliveredAt;
  private String resultReference;
  private DispatchResult result;
  private ExecutionRecord.Authorization authorizationRecord;
  private ExecutionRecord.Review review;
  private int dispatchAttempts;
  private final List<ExecutionRecord.StatusCheck> statusChecks = new ArrayList<>();
  private final List<AttachedCall> calls = new ArrayList<>();
  private int unrecordedCalls;
  private final List<ExecutionRecord.Transition> transitions = new ArrayList<>();
  private String attachableUntil;
  private String cancellation;
  private String message = "accepted";
  private long version;
  /** Memo summary for the Temporal UI (version 1 of {@link #MEMO_SUMMARY_CHANGE}). */
  private boolean memoSummary;

  // Decisions arriving through updates and signals, consumed by the main method.
  private ApprovalDecision approvalDecision;
  private SessionAuthorization sessionDecision;
  private Resolution resolution;
  private boolean cancelRequested;
  private boolean recheckRequested;
  private long approvalDeadline;

  ToolExecutionV1(ExecutionInput input, String executionId, Random random, String acceptedAt) {
    this.input = input;
    this.random = random;
    this.executionId = executionId;
    this.acceptedAt = acceptedAt;
    transitions.add(new ExecutionRecord.Transition(state.wireName(), acceptedAt, ""));
  }

  public ExecutionRecord run(ExecutionInput ignored) {
    memoSummary = Workflow.getVersion(MEMO_SUMMARY_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
    upsertSearchAttributes();
    journal("accepted", 1, Map.of(
        "tool", input.tool(), "actor", input.actor(), "target", input.target(),
        "replay_class", input.contract().replayClass().wireName(), "intent_scope", input.intentScope(),
        "arguments", input.shownArguments()));

    if (authorize()) {
      dispatchUntilSettled();
    }
    awaitDeliveryOrWindow();
    Workflow.await(Workflow::isEveryHandlerFinished);
    return snapshot();
  }

  // ---- authorization: who may act, never whether it already happened ----

  private boolean authorize() {
    if (Workflow.getVersion(LOCAL_AUTHORIZATION_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
      authorization = Workflow.newLocalActivityStub(AuthorizationActivities.class, LOCAL_AUTHORIZATION_OPTIONS);
    }
    AuthorizationRequest request = new AuthorizationRequest(
        executionId, input.fingerprint(), input.tool(), input.actor(), input.sessionId(),
        input.contract().credentialRef(), input.target(), input.sessionPolicy());
    AuthorizationDecision decision = authorization.decide(request);
    while (true) {
      if (cancelRequested) {
        cancelBeforeDispatch();
        return false;
      }
      switch (decision.kind()) {
        case ALLOW -> {
          authorizedAt = now();
          authorizationRecord = new ExecutionRecord.Authorization("authorized", decision.rule(), authorizedAt, decision.by(), decision.reason(), null);
          transition(ExecutionState.AUTHORIZED, "authorized (" + decision.rule() + ")");
          journal("authorized", 1, Map.of("rule", decision.rule(), "by", decision.by()));
          return true;
        }
        case REJECT -> {
          reject(decision.rule(), decision.by(), decision.reason());
          return false;
        }
        case APPROVAL_REQUIRED -> {
          approvalDeadline = Workflow.currentTimeMillis() + Math.max(1, decision.timeoutMillis());
          String expiresAt = Instant.ofEpochMilli(approvalDeadline).toString();
          authorizationRecord = new ExecutionRecord.Authorization("awaiting_approval", decision.rule(), now(), decision.by(), decision.reason(), expiresAt);
          transition(ExecutionState.AWAITING_APPROVAL, "awaiting an operator's approval (" + decision.rule() + ") until " + expiresAt
              + ": onceport approve " + executionId);
          journal("awaiting_approval", 1, Map.of("rule", decision.rule(), "expires_at", expiresAt));
          AuthorizationDecision closed = awaitOperator(request, approvalDeadline, () -> approvalDecision != null,
              "approval_timeout", "no operator approved within " + Duration.ofMillis(decision.timeoutMillis()));
          if (closed != null) {
            decision = closed;
          } else if (approvalDecision != null) {
            decision = approvalDecision.approved()
                ? AuthorizationDecision.allow("approved", approvalDecision.by())
                : new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, "denied", approvalDecision.reason(), approvalDecision.by(), 0);
          }
        }
        case SESSION_AUTHORIZATION_REQUIRED -> {
          long deadline = Workflow.currentTimeMillis() + Math.max(1, decision.timeoutMillis());
          String expiresAt = Instant.ofEpochMilli(deadline).toString();
          authorizationRecord = new ExecutionRecord.Authorization("awaiting_session_authorization", decision.rule(), now(), decision.by(), decision.reason(), expiresAt);
          transition(ExecutionState.AWAITING_SESSION_AUTHORIZATION, "awaiting an operator's authorization of session " + input.sessionId()
              + " until " + expiresAt + ": onceport sessions authorize " + input.sessionId());
          journal("awaiting_session_authorization", 1, Map.of("rule", decision.rule(), "session", String.valueOf(input.sessionId()), "expires_at", expiresAt));
          AuthorizationDecision closed = awaitOperator(request, deadline, () -> sessionDecision != null,
              "session_authorization_timeout", "no operator authorized session " + input.sessionId() + " in time");
          if (closed != null) {
            decision = closed;
          } else if (sessionDecision != null) {
            // The session gate is passed; the rest of the ladder (vault, credential) still applies.
            decision = sessionDecision.authorized()
                ? authorization.decide(request)
                : new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, "session_denied", sessionDecision.reason(), sessionDecision.by(), 0);
            if (decision.kind() == AuthorizationDecision.Kind.SESSION_AUTHORIZATION_REQUIRED) {
              decision = AuthorizationDecision.allow("session_authorized", sessionDecision.by());
            }
          }
        }
      }
    }
  }

  /**
   * Waits for an operator until {@code deadline}, re-checking the gate (vault unlocked, credential
   * still there) every {@link #recheckInterval} and whenever {@code recheckAuthorization} arrives.
   * Returns a rejection (gate closed, or the deadline passed), or null once {@code decided} holds or
   * a cancellation arrived. An ALLOW from the re-check only means "not blocked": it keeps waiting.
   */
  private AuthorizationDecision awaitOperator(
      AuthorizationRequest request, long deadline, Functions.Func<Boolean> decided, String timeoutRule, String timeoutReason) {
    Duration interval = recheckInterval(deadline - Workflow.currentTimeMillis());
    while (true) {
      long remaining = deadline - Workflow.currentTimeMillis();
      if (remaining <= 0) {
        return new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, timeoutRule, timeoutReason, "policy", 0);
      }
      Workflow.await(Duration.ofMillis(Math.min(remaining, interval.toMillis())),
          () -> decided.apply() || cancelRequested || recheckRequested);
      if (decided.apply() || cancelRequested) {
        return null;
      }
      recheckRequested = false;
      AuthorizationDecision again = authorization.recheck(request);
      if (again.kind() == AuthorizationDecision.Kind.REJECT) {
        return again;
      }
    }
  }

  /** Every {@value #RECHECK_SECONDS} s, or less often for long waits: at most {@value #MAX_RECHECKS} re-checks per wait. */
  static Duration recheckInterval(long waitMillis) {
    return Duration.ofMillis(Math.max(RECHECK_SECONDS * 1000L, waitMillis / MAX_RECHECKS));
  }

  private void reject(String rule, String by, String reason) {
    authorizationRecord = new ExecutionRecord.Authorization("rejected", rule, now(), by, reason, null);
    outcome = Outcome.NOT_EXECUTED;
    transition(ExecutionState.REJECTED, "rejected (" + rule + ")" + (reason.isEmpty() ? "" : ": " + reason) + "; nothing was dispatched");
    journal("rejected", 1, Map.of("rule", rule, "by", by, "reason", reason));
  }

  private void cancelBeforeDispatch() {
    outcome = Outcome.NOT_EXECUTED;
    transition(ExecutionState.CANCELLED, "cancelled before dispatch; nothing was sent (" + cancellation + ")");
    journal("cancelled", 1, Map.of("detail", cancellation));
  }

  // ---- dispatch: the only place that crosses the boundary ----

  private void dispatchUntilSettled() {
    ReplayClass replay = input.contract().replayClass();
    DispatchActivities dispatcher = Workflow.newActivityStub(DispatchActivities.class, dispatchOptions(replay));
    DispatchActivities status = Workflow.newActivityStub(DispatchActivities.class, STATUS_OPTIONS);
    int notSentRetries = 0;
    int redispatches = 0;
    while (true) {
      if (cancelRequested && !state.mayHaveCrossedDispatch()) {
        cancelBeforeDispatch();
        return;
      }
      dispatchAttempts++;
      if (dispatchedAt == null) {
        dispatchedAt = now();
      }
      transition(ExecutionState.DISPATCHED, "dispatched (attempt " + dispatchAttempts + "), outcome pending");
      DispatchRequest request = new DispatchRequest(executionId, input.fingerprint(), input.contract(), input.arguments(), dispatchAttempts);
      String failureType;
      String failureMessage;
      try {
        observe(dispatcher.dispatch(request));
        return;
      } catch (ActivityFailure failure) {
        Throwable cause = failure.getCause();
        if (cause instanceof ApplicationFailure app) {
          failureType = app.getType();
          failureMessage = app.getOriginalMessage();
        } else if (cause instanceof TimeoutFailure timeout) {
          failureType = ErrorTypes.OUTCOME_UNKNOWN;
          failureMessage = "the worker stopped answering during dispatch (" + timeout.getTimeoutType() + ")";
        } else {
          failureType = ErrorTypes.OUTCOME_UNKNOWN;
          failureMessage = String.valueOf(cause == null ? failure.getMessage() : cause.getMessage());
        }
      }

      if (ErrorTypes.NOT_SENT.equals(failureType)) {
        if (!replay.resendsAfterUnknown() && notSentRetries < MAX_NOT_SENT_RETRIES) {
          notSentRetries++;
          journal("not_sent", dispatchAttempts, Map.of("reason", failureMessage));
          transition(ExecutionState.AUTHORIZED, "not sent (" + failureMessage + "); retrying");
          Workflow.sleep(Duration.ofSeconds(1L << Math.min(notSentRetries - 1, 4)));
          continue;
        }
        fail(Outcome.NOT_EXECUTED, "the target could not be reached; nothing was sent: " + failureMessage);
        return;
      }
      if (isNonRetryable(failureType)) {
        fail(Outcome.NOT_EXECUTED, "not dispatched: " + failureMessage);
        return;
      }

      // The request may have reached the target and no answer was observed.
      outcome = Outcome.UNKNOWN;
      journal("outcome_unknown", dispatchAttempts, Map.of("reason", failureMessage));
      if (replay == ReplayClass.READ_ONLY) {
        fail(Outcome.UNKNOWN, "no answer from the target after retries: " + failureMessage);
        return;
      }
      if (replay == ReplayClass.STATUS_QUERY) {
        StatusResult verdict = verify(status, request);
        if (verdict != null && verdict.verdict() == StatusResult.Verdict.NOT_EXECUTED && redispatches < MAX_REDISPATCHES) {
          redispatches++;
          outcome = Outcome.PENDING;
          continue;
        }
        if (verdict != null && verdict.verdict() != StatusResult.Verdict.NOT_EXECUTED) {
          return;
        }
      }
      if (awaitReview(failureMessage)) {
        outcome = Outcome.PENDING;
        continue;
      }
      return;
    }
  }

  private long dispatchTimeoutMillis() {
    ToolContract contract = input.contract();
    long timeout = contract.channel() == ToolContract.Channel.HTTP ? contract.http().timeoutMillis() : contract.ssh().timeoutMillis();
    return timeout > 0 ? timeout : Duration.ofMinutes(5).toMillis();
  }

  private ActivityOptions dispatchOptions(ReplayClass replay) {
    long timeout = dispatchTimeoutMillis();
    ActivityOptions base = replay.resendsAfterUnknown() ? DISPATCH_REPEATABLE_OPTIONS : DISPATCH_ONCE_OPTIONS;
    return ActivityOptions.newBuilder(base).setStartToCloseTimeout(Duration.ofMillis(timeout).plusSeconds(30)).build();
  }

  private static boolean isNonRetryable(String type) {
    for (String t : NON_RETRYABLE) {
      if (t.equals(type)) {
        return true;
      }
    }
    return false;
  }

  /** Polls the target's status facility; returns the settling verdict, or null when it never settled. */
  private StatusResult verify(DispatchActivities status, DispatchRequest request) {
    transition(ExecutionState.VERIFYING, "outcome unknown; asking the target's status facility");
    // "Still running" (an SSH marker says started, not finished) keeps polling for as long as the
    // contract lets the action run; "cannot tell" gives up after MAX_STATUS_CHECKS.
    long runningDeadline = Workflow.currentTimeMillis() + dispatchTimeoutMillis() + 60_000;
    int unknownChecks = 0;
    for (int check = 1; unknownChecks < MAX_STATUS_CHECKS; check++) {
      StatusResult verdict;
      try {
        verdict = status.queryStatus(request);
      } catch (ActivityFailure failure) {
        verdict = new StatusResult(StatusResult.Verdict.UNKNOWN, null, "status query failed: " + rootMessage(failure));
      }
      Integer code = verdict.result() == null ? null : verdict.result().status() != null ? verdict.result().status() : verdict.result().exitStatus();
      statusChecks.add(new ExecutionRecord.StatusCheck(now(), verdict.verdict().name().toLowerCase(), code, verdict.detail()));
      version++;
      journal("status_query", statusChecks.size(), Map.of("verdict", verdict.verdict().name().toLowerCase(), "detail", verdict.detail()));
      switch (verdict.verdict()) {
        case COMPLETED, FAILED -> {
          if (verdict.result() != null) {
            observe(verdict.result(), verdict.verdict() == StatusResult.Verdict.COMPLETED, "the status query found it: ");
          } else {
            settle(verdict.verdict() == StatusResult.Verdict.COMPLETED, "status query: " + verdict.detail());
          }
          return verdict;
        }
        case NOT_EXECUTED -> {
          transition(ExecutionState.AUTHORIZED, "status query proved the action did not run; dispatching again under the same execution id");
          return verdict;
        }
        case RUNNING -> {
          if (Workflow.currentTimeMillis() > runningDeadline) {
            unknownChecks = MAX_STATUS_CHECKS;
          } else {
            Workflow.sleep(Duration.ofSeconds(Math.min(30, 1L << Math.min(check - 1, 5))));
          }
        }
        case UNKNOWN -> {
          unknownChecks++;
          if (unknownChecks < MAX_STATUS_CHECKS) {
            Workflow.sleep(Duration.ofSeconds(Math.min(30, 1L << Math.min(check - 1, 5))));
          }
        }
      }
    }
    return null;
  }

  /** Waits for an operator's resolution. Returns true when the operator asked to dispatch again. */
  private boolean awaitReview(String reason) {
    transition(ExecutionState.NEEDS_REVIEW,
        "outcome unknown (" + reason + "); it was not re-sent and waits for an operator: onceport executions resolve " + executionId);
    journal("needs_review", dispatchAttempts, Map.of("reason", reason));
    Workflow.await(() -> resolution != null);
    Resolution decided = resolution;
    resolution = null;
    review = new ExecutionRecord.Review(decided.decision().name().toLowerCase(), decided.reason(), decided.by(), now());
    journal("review_resolved", dispatchAttempts, Map.of("decision", review.decision(), "by", decided.by(), "reason", decided.reason()));
    switch (decided.decision()) {
      case COMPLETED -> settle(true, "resolved by " + decided.by() + " as completed: " + decided.reason());
      case FAILED -> settle(false, "resolved by " + decided.by() + " as failed: " + decided.reason());
      case REDISPATCH -> {
        transition(ExecutionState.AUTHORIZED, "resolved by " + decided.by() + " for re-dispatch: " + decided.reason());
        return true;
      }
    }
    return false;
  }

  private void observe(DispatchResult observed) {
    observe(observed, observed.succeeded(), "the target answered ");
  }

  private void observe(DispatchResult observed, boolean succeeded, String how) {
    result = observed;
    resultReference = Ids.resultReference(Workflow.currentTimeMillis(), random);
    String answer = observed.status() != null ? "HTTP " + observed.status() : "exit status " + observed.exitStatus();
    settle(succeeded, how + answer);
  }

  private void settle(boolean succeeded, String why) {
    outcome = succeeded ? Outcome.COMPLETED : Outcome.FAILED;
    completedAt = now();
    transition(succeeded ? ExecutionState.COMPLETED : ExecutionState.FAILED, (succeeded ? "completed: " : "failed: ") + why);
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
    journal("outcome", dispatchAttempts, detail);
  }

  private void fail(Outcome why, String text) {
    outcome = why;
    completedAt = now();
    transition(ExecutionState.FAILED, text);
    journal("outcome", dispatchAttempts, Map.of("outcome", why.wireName(), "reason", text));
  }

  // ---- staying attachable ----

  private void awaitDeliveryOrWindow() {
    Duration window = input.contract().replay().attachWindow();
    attachableUntil = Instant.ofEpochMilli(Workflow.currentTimeMillis()).plus(window).toString();
    version++;
    upsertSearchAttributes();
    if (state == ExecutionState.REJECTED || state == ExecutionState.CANCELLED) {
      // A retry within the window gets the same refusal instead of a fresh approval path.
      Workflow.await(window, () -> false);
    } else {
      Workflow.await(window, () -> delivery == Delivery.DELIVERED);
    }
    if (delivery != Delivery.DELIVERED && (state == ExecutionState.COMPLETED || state == ExecutionState.FAILED)) {
      journal("attach_window_closed", 1, Map.of("delivery", delivery.wireName()));
    }
  }

  // ---- handlers ----

  public ExecutionRecord record() {
    return snapshot();
  }

  public void validateAttach(AttachRequest request) {
    if (!input.fingerprint().equals(request.fingerprint())) {
      throw ApplicationFailure.newNonRetryableFailure(
          INTENT_KEY_MISMATCH_PREFIX + "intent key " + request.intentKey() + " was already used by execution " + executionId
              + " for a different request; use a new key for a new intent",
          ErrorTypes.INTENT_KEY_MISMATCH);
    }
  }

  public ExecutionRecord attach(AttachRequest request) {
    boolean retry = !calls.isEmpty() || unrecordedCalls > 0;
    if (calls.size() < MAX_RECORDED_CALLS) {
      calls.add(AttachedCall.of(request, retry, state));
    } else {
      unrecordedCalls++;
    }
    version++;
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
    journal("call", calls.size() + unrecordedCalls, evidence);
    if (request.waitMillis() > 0) {
      Workflow.await(Duration.ofMillis(request.waitMillis()), this::isSettled);
    }
    return snapshot();
  }

  public ExecutionRecord awaitChange(long afterVersion, long waitMillis) {
    if (waitMillis > 0) {
      Workflow.await(Duration.ofMillis(waitMillis), () -> version > afterVersion);
    }
    return snapshot();
  }

  public void reportDelivery(DeliveryReport report) {
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).callId().equals(report.callId())) {
        calls.set(i, calls.get(i).withDelivery(report.delivered() ? "delivered" : "not_delivered", report.at()));
      }
    }
    if (report.delivered() && isSettled() && state != ExecutionState.NEEDS_REVIEW) {
      if (delivery != Delivery.DELIVERED) {
        delivery = Delivery.DELIVERED;
        deliveredAt = report.at();
        journal("delivered", 1, Map.of("call", report.callId()));
      }
    } else if (!report.delivered() && delivery != Delivery.DELIVERED) {
      delivery = Delivery.NOT_DELIVERED;
      journal("not_delivered", countNotDelivered(), Map.of("call", report.callId(), "detail", report.detail()));
    }
    version++;
    upsertSearchAttributes();
  }

  public void reportDeliveries(List<DeliveryReport> reports) {
    for (DeliveryReport report : reports) {
      reportDelivery(report);
    }
  }

  public void recordCalls(List<AttachRequest> requests) {
    for (AttachRequest request : requests) {
      if (calls.size() < MAX_RECORDED_CALLS) {
        calls.add(AttachedCall.of(request, true, state));
      } else {
        unrecordedCalls++;
      }
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

  public void validateResolve(Resolution resolution) {
    if (state != ExecutionState.NEEDS_REVIEW) {
      throw ApplicationFailure.newNonRetryableFailure(
          "execution " + executionId + " is " + state.wireName() + ", not needs_review; nothing to resolve",
          ErrorTypes.INVALID_TRANSITION);
    }
  }

  public ExecutionRecord resolve(Resolution decided) {
    this.resolution = decided;
    Workflow.await(() -> state != ExecutionState.NEEDS_REVIEW);
    return snapshot();
  }

  public void validateDecideApproval(ApprovalDecision decision) {
    if (!executionId.equals(decision.executionId()) || !input.fingerprint().equals(decision.fingerprint())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "this approval names " + decision.executionId() + " / " + decision.fingerprint()
              + ", not execution " + executionId + " / " + input.fingerprint(),
          ErrorTypes.INVALID_TRANSITION);
    }
    if (state != ExecutionState.AWAITING_APPROVAL || approvalDecision != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "execution " + executionId + " is " + state.wireName() + ", not awaiting approval",
          ErrorTypes.INVALID_TRANSITION);
    }
    if (Workflow.currentTimeMillis() >= approvalDeadline) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the approval of execution " + executionId + " expired at " + Instant.ofEpochMilli(approvalDeadline),
          ErrorTypes.INVALID_TRANSITION);
    }
  }

  public ExecutionRecord decideApproval(ApprovalDecision decision) {
    this.approvalDecision = decision;
    Workflow.await(() -> state != ExecutionState.AWAITING_APPROVAL);
    return snapshot();
  }

  public ExecutionRecord cancel(CancelRequest request) {
    String who = request.by() + (request.reason().isEmpty() ? "" : ": " + request.reason());
    if (state.isTerminal() || state.mayHaveCrossedDispatch()) {
      cancellation = "cancellation requested by " + who + " after dispatch; a sent request cannot be unsent, only waiting stopped";
      version++;
      journal("cancel_refused", 1, Map.of("by", request.by(), "state", state.wireName()));
      return snapshot();
    }
    cancellation = "cancelled by " + who;
    cancelRequested = true;
    Workflow.await(() -> state == ExecutionState.CANCELLED || state.mayHaveCrossedDispatch());
    return snapshot();
  }

  public void sessionAuthorization(SessionAuthorization decision) {
    // A decision on another session is not this execution's; without a session id any is accepted.
    boolean ours = input.sessionId() == null || input.sessionId().equals(decision.sessionId());
    if (sessionDecision == null && ours) {
      sessionDecision = decision;
    }
  }

  public void recheckAuthorization(String reason) {
    recheckRequested = true;
  }

  // ---- record keeping ----

  private boolean isSettled() {
    return state.isTerminal() || state == ExecutionState.NEEDS_REVIEW;
  }

  private void transition(ExecutionState next, String text) {
    state = next;
    message = text;
    transitions.add(new ExecutionRecord.Transition(next.wireName(), now(), text));
    version++;
    log.info("{} {} {}", executionId, next.wireName(), text);
    upsertSearchAttributes();
  }

  private void upsertSearchAttributes() {
    if (memoSummary) {
      Workflow.upsertMemo(Map.of("summary", summary()));
    }
    Workflow.upsertTypedSearchAttributes(
        SA_EXECUTION_ID.valueSet(executionId),
        SA_FINGERPRINT.valueSet(input.fingerprint()),
        SA_TOOL.valueSet(input.tool()),
        SA_ACTOR.valueSet(input.actor()),
        SA_STATE.valueSet(stateLabel()));
  }

  private static final java.util.regex.Pattern TOP_LEVEL_ARGUMENT =
      java.util.regex.Pattern.compile("\"([A-Za-z0-9_.-]{1,40})\":(\"[^\"]{0,40}\"|[0-9.eE+-]{1,20}|true|false|null)");

  /** One line for the Temporal UI: {@code create_release service=catalog version=1 → 201, delivered}. */
  private String summary() {
    StringBuilder b = new StringBuilder(input.tool());
    java.util.regex.Matcher m = TOP_LEVEL_ARGUMENT.matcher(input.shownArguments());
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

  private String stateLabel() {
    ExecutionRecord snapshot = snapshot();
    return snapshot.view();
  }

  private void journal(String transition, int attempt, Map<String, Object> detail) {
    try {
      Map<String, Object> withTool = new LinkedHashMap<>(detail);
      withTool.putIfAbsent("tool", input.tool());
      journal.append(new JournalEntry(executionId, input.fingerprint(), transition, attempt, now(), withTool));
    } catch (ActivityFailure failure) {
      // The dispatched entry is written by the dispatch activity itself and fails closed; other
      // transitions are also in the workflow history, so a journal outage is recorded, not fatal.
      log.warn("{} journal append of {} failed: {}", executionId, transition, rootMessage(failure));
      transitions.add(new ExecutionRecord.Transition("journal_unavailable", now(), transition + ": " + rootMessage(failure)));
      version++;
    }
  }

  private static void putIfPresent(Map<String, Object> map, String key, String value) {
    if (value != null) {
      map.put(key, value);
    }
  }

  private static String rootMessage(Throwable failure) {
    Throwable t = failure;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof ApplicationFailure app ? app.getOriginalMessage() : String.valueOf(t.getMessage());
  }

  private String now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis()).toString();
  }

  private ExecutionRecord snapshot() {
    ToolContract contract = input.contract();
    Integer targetStatus = result == null ? null : result.status();
    Integer exitStatus = result == null ? null : result.exitStatus();
    List<AttachedCall> recorded = new ArrayList<>(calls);
    return new ExecutionRecord(
        executionId, Workflow.getInfo().getWorkflowId(), Workflow.getInfo().getRunId(), input.fingerprint(), input.intentKey(), input.tool(),
        input.actor(), input.intentScope(), input.sessionId(), contract.channel().name().toLowerCase(),
        input.target(), input.method(), contract.credentialRef(), contract.replayClass().wireName(),
        input.shownArguments(), state, outcome, delivery, acceptedAt, authorizedAt, dispatchedAt, completedAt,
        deliveredAt, targetStatus, exitStatus, resultReference, result, authorizationRecord, review,
        dispatchAttempts, statusChecks, recorded, transitions, attachableUntil, cancellation,
        unrecordedCalls == 0 ? message : message + " (" + unrecordedCalls + " further calls not itemized)", version);
  }
}
