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
import io.onceport.workflow.dispatch.Sent;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.operator.OperatorActivities;
import io.onceport.workflow.operator.SignedDecision;
import io.onceport.workflow.replay.ReplayPolicy;
import io.onceport.workflow.replay.ReplayPolicy.Action;
import io.onceport.workflow.replay.ReplayPolicy.Fact;
import io.onceport.workflow.replay.ReplayPolicy.Step;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.SearchAttributeKey;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.slf4j.Logger;

/**
 * The execution state machine. Deterministic: time, randomness, waiting and logging go through
 * {@code Workflow.*} only; everything that touches the world is an activity.
 *
 * <p><b>One policy decides.</b> Every send is a {@link ReplayPolicy} step: the dispatch
 * activities run with {@code maximumAttempts = 1}, channels report facts, and this class carries
 * the policy's decision out. Each send is on the record ({@link ExecutionRecord.Send}) and in the
 * journal.
 *
 * <p><b>Handlers only change state.</b> Signal and update handlers record evidence, set decisions
 * and queue journal entries; journal appends, timers, activities and search-attribute/memo upserts
 * come from the main method only, in one deterministic order ({@link #waitUntil}). A handler that
 * issues commands can replay in another order than it ran (a signal and an update handled in one
 * workflow task) and stick the workflow with a {@code NonDeterministicException}. Callers waiting
 * in {@code attach}/{@code awaitChange} register a deadline; the main method's single timer serves
 * the earliest one.
 *
 * <p><b>Cost.</b> Queued journal entries travel with the next send (the dispatch activity makes
 * them durable with its {@code dispatched} entry, before the first byte) or are written by one
 * local activity per workflow task; search attributes and the memo are written when the view an
 * operator sees changed, at most once per workflow task.
 *
 * <p><b>Operator decisions are signed.</b> Since {@link #SIGNED_DECISIONS_CHANGE} an approval, a
 * resolution and a forwarded session decision take effect only after the main method verified the
 * operator's statement ({@link OperatorActivities}, a local activity: the verdict is in history and
 * replays): signed by a registered operator's current key, bound to this execution id and
 * fingerprint (or its session) and an applicable decision, within its validity, and not applied
 * before (nonce). A refused decision changes nothing; the update fails with the reason and the
 * refusal is journalled ({@code decision_refused}) with what was presented. The version is asked
 * at the first decision, so an execution no operator touches pays nothing for it.
 *
 * <p>Executions started before {@link #REPLAY_POLICY_CHANGE} run {@link ToolExecutionV1}, frozen.
 */
public final class ToolExecutionWorkflowImpl implements ToolExecutionWorkflow {
  public static final SearchAttributeKey<String> SA_EXECUTION_ID = SearchAttributeKey.forKeyword("OnceportExecutionId");
  public static final SearchAttributeKey<String> SA_FINGERPRINT = SearchAttributeKey.forKeyword("OnceportFingerprint");
  public static final SearchAttributeKey<String> SA_TOOL = SearchAttributeKey.forKeyword("OnceportTool");
  public static final SearchAttributeKey<String> SA_ACTOR = SearchAttributeKey.forKeyword("OnceportActor");
  public static final SearchAttributeKey<String> SA_STATE = SearchAttributeKey.forKeyword("OnceportState");

  /** How the attach validator's refusal of a reused intent key begins (failure types of validators are not kept). */
  public static final String INTENT_KEY_MISMATCH_PREFIX = "intent key reused: ";

  /** Version 1: the replay policy, state-only handlers, folded journal writes (before it: {@link ToolExecutionV1}). */
  static final String REPLAY_POLICY_CHANGE = "replay-policy";
  static final String LOCAL_AUTHORIZATION_CHANGE = "authorization-as-local-activity";
  static final String MEMO_SUMMARY_CHANGE = "memo-summary";
  /** Version 1: operator decisions are verified signed statements (asked at the first decision). */
  static final String SIGNED_DECISIONS_CHANGE = "signed-operator-decisions";
  /** Session decisions queued while one is being verified; more are dropped (a flood changes nothing). */
  static final int MAX_QUEUED_SESSION_DECISIONS = 20;
  /** The statement text kept in a refusal's journal entry, at most. */
  static final int MAX_JOURNALLED_STATEMENT = 2_000;

  /**
   * While waiting for an operator the gate (vault, credential) is re-checked when
   * {@code recheckAuthorization} arrives (the vault-lock watcher sends it) and otherwise only this
   * rarely, as a fallback for a missed signal: a waiting execution costs no workflow task.
   */
  static final Duration FALLBACK_RECHECK = Duration.ofMinutes(10);
  /** Kept for the executions of {@link ToolExecutionV1}, which re-checked every 10 s. */
  static final int RECHECK_SECONDS = 10;
  /** Calls kept on the record; later ones are counted, not stored. */
  static final int MAX_RECORDED_CALLS = 200;

  private static final LocalActivityOptions JOURNAL_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).setInitialInterval(Duration.ofMillis(200)).build())
          .build();

  /** Verification reads the operator registry on the worker: local, fast, retried a little. */
  private static final LocalActivityOptions VERIFY_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).setInitialInterval(Duration.ofMillis(200)).build())
          .build();

  /** The ladder as a local activity: it reads local state only, so no task-queue trip. */
  private static final LocalActivityOptions LOCAL_AUTHORIZATION_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).build())
          .build();

  /**
   * Every send, whatever the class: one attempt. A lost worker is a fact (heartbeat or
   * start-to-close timeout) for the policy, never a Temporal-level re-send.
   */
  private static final ActivityOptions SEND_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setHeartbeatTimeout(Duration.ofSeconds(15))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build();

  /** Status queries: one attempt each; a failed query is a "still unknown" fact the policy polls on. */
  private static final ActivityOptions STATUS_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setHeartbeatTimeout(Duration.ofSeconds(15))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build();

  private static final String[] NOT_DISPATCHABLE = {
    ErrorTypes.INVALID_REQUEST, ErrorTypes.HOST_KEY_MISMATCH, ErrorTypes.CREDENTIAL_UNAVAILABLE, ErrorTypes.JOURNAL_UNAVAILABLE
  };

  private final Logger log = Workflow.getLogger(ToolExecutionWorkflowImpl.class);
  private final ReplayPolicy policy = ReplayPolicy.DEFAULT;

  private final ExecutionInput input;
  private final String executionId;
  private final Random random;
  private final String acceptedAt;
  /** Set when this run started before {@link #REPLAY_POLICY_CHANGE}: everything delegates to it. */
  private ToolExecutionV1 legacy;
  private boolean modeKnown;

  private JournalActivities journal;
  private AuthorizationActivities authorization;
  private OperatorActivities operators;

  private ExecutionState state = ExecutionState.ACCEPTED;
  private Outcome outcome = Outcome.PENDING;
  private Delivery delivery = Delivery.PENDING;
  private String authorizedAt;
  private String dispatchedAt;
  private String completedAt;
  private String deliveredAt;
  private String resultReference;
  private DispatchResult result;
  private ExecutionRecord.Authorization authorizationRecord;
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

  // Journal entries queued by the main method and by handlers, written by the main method.
  private final List<JournalEntry> pendingJournal = new ArrayList<>();
  private String publishedLabel;
  private String publishedMemo;
  private boolean publishedIdentity;

  // Callers waiting in attach/awaitChange: their deadlines, served by the main method's timer.
  private final List<Long> waitDeadlines = new ArrayList<>();
  private Promise<Void> timer;
  private long timerAt = Long.MAX_VALUE;

  // Decisions arriving through updates and signals, consumed by the main method.
  private ApprovalDecision approvalDecision;
  private SessionAuthorization sessionDecision;
  private Resolution resolution;
  private boolean cancelRequested;
  private boolean recheckRequested;
  private long approvalDeadline;

  // Signed decisions (SIGNED_DECISIONS_CHANGE): the mode, asked at the first decision; what each
  // waiting update was told; the session decisions presented; the nonces applied.
  private Boolean signedDecisions;
  private Presented presentedApproval;
  private Presented presentedResolution;
  private final List<SessionAuthorization> sessionDecisions = new ArrayList<>();
  private final java.util.Set<String> appliedNonces = new LinkedHashSet<>();
  private int refusals;

  /** An update waiting for the main method's verdict on what it presented. */
  private static final class Presented {
    boolean done;
    String refusal;
  }

  // Counters the replay policy decides on.
  private int notSentRetries;
  private int statusChecksSinceSend;
  private int uncertainSends;
  private long lastSendEndedMillis;

  @WorkflowInit
  public ToolExecutionWorkflowImpl(ExecutionInput input) {
    this.input = input;
    this.random = Workflow.newRandom();
    long now = Workflow.currentTimeMillis();
    this.executionId = Ids.executionId(now, random);
    this.acceptedAt = Instant.ofEpochMilli(now).toString();
    transitions.add(new ExecutionRecord.Transition(state.wireName(), acceptedAt, ""));
    // Only state: the first journal entry, written with the first send (or the first journal write).
    queue("accepted", 1, Map.of(
        "tool", input.tool(), "actor", input.actor(), "target", input.target(),
        "replay_class", input.contract().replayClass().wireName(), "intent_scope", input.intentScope(),
        "arguments", input.shownArguments()));
  }

  /**
   * Whether this run started before {@link #REPLAY_POLICY_CHANGE}, decided once by whoever runs
   * first: with update-with-start the first attach handler runs before the workflow method.
   */
  private boolean isLegacy() {
    if (!modeKnown) {
      modeKnown = true;
      if (Workflow.getVersion(REPLAY_POLICY_CHANGE, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION) {
        legacy = new ToolExecutionV1(input, executionId, random, acceptedAt);
      }
    }
    return legacy != null;
  }

  @Override
  public ExecutionRecord run(ExecutionInput ignored) {
    if (isLegacy()) {
      return legacy.run(ignored);
    }
    journal = Workflow.newLocalActivityStub(JournalActivities.class, JOURNAL_OPTIONS);
    authorization = Workflow.newLocalActivityStub(AuthorizationActivities.class, LOCAL_AUTHORIZATION_OPTIONS);
    operators = Workflow.newLocalActivityStub(OperatorActivities.class, VERIFY_OPTIONS);

    if (authorize()) {
      execute();
    }
    awaitDeliveryOrWindow();
    // Handlers still waiting (a caller's attach) finish before the run closes; entries they queued are written.
    waitUntil(Long.MAX_VALUE, () -> Workflow.isEveryHandlerFinished() && pendingJournal.isEmpty());
    return snapshot();
  }

  // ---- authorization: who may act, never whether it already happened ----

  private boolean authorize() {
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
          Map<String, Object> authorized = new LinkedHashMap<>(Map.of("rule", decision.rule(), "by", decision.by()));
          if (!decision.reason().isEmpty()) {
            authorized.put("reason", decision.reason()); // an operator's approval keeps its reason
          }
          queue("authorized", 1, authorized);
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
          queue("awaiting_approval", 1, Map.of("rule", decision.rule(), "expires_at", expiresAt));
          long timeoutMillis = decision.timeoutMillis();
          while (true) {
            AuthorizationDecision closed = awaitOperator(request, approvalDeadline, () -> approvalDecision != null,
                "approval_timeout", "no operator approved within " + Duration.ofMillis(timeoutMillis));
            if (closed != null) {
              decision = closed;
              break;
            }
            if (approvalDecision == null) {
              break; // a cancellation: handled at the top of the loop
            }
            AuthorizationDecision consumed = consumeApproval(approvalDecision);
            if (consumed != null) {
              decision = consumed;
              break;
            }
            // Refused: nothing changed; keep waiting until the same deadline.
          }
        }
        case SESSION_AUTHORIZATION_REQUIRED -> {
          long deadline = Workflow.currentTimeMillis() + Math.max(1, decision.timeoutMillis());
          String expiresAt = Instant.ofEpochMilli(deadline).toString();
          authorizationRecord = new ExecutionRecord.Authorization("awaiting_session_authorization", decision.rule(), now(), decision.by(), decision.reason(), expiresAt);
          transition(ExecutionState.AWAITING_SESSION_AUTHORIZATION, "awaiting an operator's authorization of session " + input.sessionId()
              + " until " + expiresAt + ": onceport sessions authorize " + input.sessionId());
          queue("awaiting_session_authorization", 1, Map.of("rule", decision.rule(), "session", String.valueOf(input.sessionId()), "expires_at", expiresAt));
          while (true) {
            AuthorizationDecision closed = awaitOperator(request, deadline, () -> sessionDecision != null,
                "session_authorization_timeout", "no operator authorized session " + input.sessionId() + " in time");
            if (closed != null) {
              decision = closed;
              break;
            }
            if (sessionDecision == null) {
              break; // a cancellation: handled at the top of the loop
            }
            AuthorizationDecision consumed = consumeSessionDecision(sessionDecision, request);
            if (consumed != null) {
              decision = consumed;
              break;
            }
            // Every presented decision was refused: keep waiting until the same deadline.
          }
        }
      }
    }
  }

  /**
   * An operator's approval or denial becomes the ladder's decision (the one place an approval is
   * consumed), or null when the statement is refused (the update fails, nothing changes).
   */
  private AuthorizationDecision consumeApproval(ApprovalDecision decided) {
    Presented presented = presentedApproval;
    approvalDecision = null;
    presentedApproval = null;
    if (!signedDecisions()) {
      answer(presented, null);
      return decided.approved()
          ? AuthorizationDecision.allow("approved", decided.by())
          : new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, "denied", decided.reason(), decided.by(), 0);
    }
    DecisionVerdict v = verify(decided.signedDecision(), DecisionBinding.APPROVAL, executionId, input.fingerprint(),
        List.of(DecisionBinding.APPROVE, DecisionBinding.DENY), decided.by(), "onceport approve|deny, or onceport operator sign approval");
    if (!v.valid()) {
      refuse(DecisionBinding.APPROVAL, v, decided.signedDecision(), decided.by());
      answer(presented, v.refusal());
      return null;
    }
    answer(presented, null);
    return DecisionBinding.APPROVE.equals(v.decision())
        ? new AuthorizationDecision(AuthorizationDecision.Kind.ALLOW, "approved", v.reason(), v.operator(), 0)
        : new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, "denied", v.reason(), v.operator(), 0);
  }

  /**
   * An operator's session decision (the one place it is consumed). The session gate is passed; the
   * rest of the ladder (vault, credential) still applies.
   */
  private AuthorizationDecision consumeSessionDecision(SessionAuthorization decided, AuthorizationRequest request) {
    if (signedDecisions()) {
      return consumeSignedSessionDecisions(request);
    }
    if (!decided.authorized()) {
      return new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, "session_denied", decided.reason(), decided.by(), 0);
    }
    AuthorizationDecision again = authorization.decide(request);
    return again.kind() == AuthorizationDecision.Kind.SESSION_AUTHORIZATION_REQUIRED
        ? AuthorizationDecision.allow("session_authorized", decided.by())
        : again;
  }

  /**
   * The presented session decisions, oldest first, until one verifies: bound to this execution's
   * session, signed by a registered operator, current and not applied before. Null when all were
   * refused (each journalled). An authorization passes the session gate only; the rest of the
   * ladder (vault, credential) still applies, and the record names the operator, not "policy".
   */
  private AuthorizationDecision consumeSignedSessionDecisions(AuthorizationRequest request) {
    String subject = input.sessionId() == null || input.sessionId().isBlank() ? "actor:" + input.actor() : input.sessionId();
    try {
      while (!sessionDecisions.isEmpty()) {
        SessionAuthorization presented = sessionDecisions.remove(0);
        DecisionVerdict v = verify(presented.signedDecision(), DecisionBinding.SESSION, subject, null,
            List.of(DecisionBinding.AUTHORIZE, DecisionBinding.DENY), presented.by(), "onceport sessions authorize|deny");
        if (!v.valid()) {
          refuse(DecisionBinding.SESSION, v, presented.signedDecision(), presented.by());
          continue;
        }
        if (DecisionBinding.DENY.equals(v.decision())) {
          return new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, "session_denied", v.reason(), v.operator(), 0);
        }
        AuthorizationDecision again = authorization.decide(request);
        boolean sessionGateOnly = again.kind() == AuthorizationDecision.Kind.SESSION_AUTHORIZATION_REQUIRED
            || again.kind() == AuthorizationDecision.Kind.ALLOW;
        return sessionGateOnly ? new AuthorizationDecision(AuthorizationDecision.Kind.ALLOW, "session_authorized", v.reason(), v.operator(), 0) : again;
      }
      return null;
    } finally {
      sessionDecisions.clear();
      sessionDecision = null;
    }
  }

  /** The mode, asked once, at the first operator decision (from the main method). */
  private boolean signedDecisions() {
    if (signedDecisions == null) {
      signedDecisions = Workflow.getVersion(SIGNED_DECISIONS_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
    }
    return signedDecisions;
  }

  /**
   * Verifies a presented decision: null (unsigned) is refused without asking; a statement whose
   * nonce was applied here before is refused as replayed; a verification that cannot run fails
   * closed. A valid statement's nonce is taken: it decides once.
   */
  private DecisionVerdict verify(SignedDecision signed, String kind, String subject, String fingerprint, List<String> allowed,
      String claimedBy, String howToSign) {
    DecisionVerdict v;
    if (signed == null) {
      v = DecisionVerdict.refused(claimedBy, "unsigned: no signed statement was presented (sign it with " + howToSign + ")");
    } else {
      try {
        v = operators.verify(signed, new DecisionBinding(kind, subject, fingerprint, allowed, Workflow.currentTimeMillis()));
      } catch (ActivityFailure failure) {
        v = DecisionVerdict.refused(null, "the decision could not be verified: " + rootMessage(failure));
      }
    }
    if (v.valid() && appliedNonces.contains(v.nonce())) {
      v = DecisionVerdict.refused(v.operator(), "replayed: this statement (nonce " + v.nonce() + ") was already applied to execution " + executionId);
    }
    if (v.valid()) {
      appliedNonces.add(v.nonce());
    }
    return v;
  }

  /** A refusal: on the record, in the journal with what was presented; nothing else changes. */
  private void refuse(String kind, DecisionVerdict v, SignedDecision signed, String claimedBy) {
    refusals++;
    String statement = signed == null ? "(none)" : signed.statement();
    if (statement.length() > MAX_JOURNALLED_STATEMENT) {
      statement = statement.substring(0, MAX_JOURNALLED_STATEMENT) + "… (" + signed.statement().length() + " characters)";
    }
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("kind", kind);
    detail.put("refusal", v.refusal());
    detail.put("presented_by", v.operator() != null ? v.operator() : String.valueOf(claimedBy));
    detail.put("statement", statement);
    queue("decision_refused", refusals, detail);
    transitions.add(new ExecutionRecord.Transition("decision_refused", now(), kind + " refused: " + v.refusal()));
    version++;
    log.warn("{} {} decision refused: {}", executionId, kind, v.refusal());
  }

  /** Tells the waiting update what became of its decision. */
  private static void answer(Presented presented, String refusal) {
    if (presented != null) {
      presented.refusal = refusal;
      presented.done = true;
    }
  }

  /**
   * Waits for an operator until {@code deadline}. Wakes on the events that matter — the decision, a
   * cancellation, {@code recheckAuthorization} (the vault was locked), the deadline — and otherwise
   * only every {@link #FALLBACK_RECHECK}. Returns a rejection (gate closed, or the deadline passed),
   * or null once {@code decided} holds or a cancellation arrived. An ALLOW from a re-check only means
   * "not blocked": it keeps waiting.
   */
  private AuthorizationDecision awaitOperator(
      AuthorizationRequest request, long deadline, Functions.Func<Boolean> decided, String timeoutRule, String timeoutReason) {
    while (true) {
      long now = Workflow.currentTimeMillis();
      if (now >= deadline) {
        return new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, timeoutRule, timeoutReason, "policy", 0);
      }
      long until = Math.min(deadline, now + FALLBACK_RECHECK.toMillis());
      waitUntil(until, () -> decided.apply() || cancelRequested || recheckRequested);
      if (decided.apply() || cancelRequested) {
        return null;
      }
      if (Workflow.currentTimeMillis() >= deadline) {
        continue;
      }
      recheckRequested = false;
      AuthorizationDecision again = authorization.recheck(request);
      if (again.kind() == AuthorizationDecision.Kind.REJECT) {
        return again;
      }
    }
  }

  private void reject(String rule, String by, String reason) {
    authorizationRecord = new ExecutionRecord.Authorization("rejected", rule, now(), by, reason, null);
    outcome = Outcome.NOT_EXECUTED;
    transition(ExecutionState.REJECTED, "rejected (" + rule + ")" + (reason.isEmpty() ? "" : ": " + reason) + "; nothing was dispatched");
    queue("rejected", 1, Map.of("rule", rule, "by", by, "reason", reason));
  }

  private void cancelBeforeDispatch() {
    outcome = Outcome.NOT_EXECUTED;
    transition(ExecutionState.CANCELLED, "cancelled before dispatch; nothing was sent (" + cancellation + ")");
    queue("cancelled", 1, Map.of("detail", cancellation));
  }

  // ---- dispatch: the only place that crosses the boundary, one policy step at a time ----

  private void execute() {
    ReplayClass replay = input.contract().replayClass();
    DispatchActivities sender = Workflow.newActivityStub(DispatchActivities.class, sendOptions());
    DispatchActivities status = Workflow.newActivityStub(DispatchActivities.class, STATUS_OPTIONS);
    Observation seen = new Observation(Fact.NONE, false, null, null);
    while (true) {
      Step step = policy.decide(replay, seen.fact(), situation(seen.succeeded()));
      recordDecision(step);
      Action action = step.action();
      if (action.sends()) {
        if (action == Action.RETRY_NOT_SENT) {
          notSentRetries++;
        }
        if (!step.delay().isZero()) {
          waitUntil(Workflow.currentTimeMillis() + step.delay().toMillis(), () -> cancelRequested && mayCancel());
        }
        if (seen.fact() == Fact.STATUS_NOT_EXECUTED) {
          // Proof: no send under this key acted (the status facility is keyed by the execution id).
          uncertainSends = 0;
          outcome = Outcome.PENDING;
          transition(ExecutionState.AUTHORIZED, "status query proved the action did not run; dispatching again under the same execution id");
        }
        if (cancelRequested && mayCancel()) {
          cancelBeforeDispatch();
          return;
        }
        seen = send(sender);
        continue;
      }
      switch (action) {
        case QUERY_STATUS -> {
          if (!step.delay().isZero()) {
            waitUntil(Workflow.currentTimeMillis() + step.delay().toMillis(), () -> false);
          }
          seen = queryStatus(status);
        }
        case SETTLE_COMPLETED, SETTLE_FAILED -> {
          settleFrom(seen, action == Action.SETTLE_COMPLETED);
          return;
        }
        case FAIL_NOT_EXECUTED -> {
          fail(Outcome.NOT_EXECUTED, seen.fact() == Fact.NOT_SENT
              ? "the target could not be reached; nothing was sent: " + seen.detail()
              : "not dispatched: " + seen.detail());
          return;
        }
        case NEEDS_REVIEW -> seen = awaitReview(step.reason() + (seen.detail() == null ? "" : ": " + seen.detail()));
        default -> throw new IllegalStateException("unhandled step " + action);
      }
    }
  }

  /** What the last send, status query or operator reported, for the next policy decision. */
  private record Observation(Fact fact, boolean succeeded, DispatchResult answer, String detail) {}

  private ReplayPolicy.Situation situation(boolean succeeded) {
    int mayHaveReached = 0;
    for (ExecutionRecord.Send s : sends) {
      if (s.mayHaveReachedTarget()) {
        mayHaveReached++;
      }
    }
    long since = sends.isEmpty() ? 0 : Math.max(0, Workflow.currentTimeMillis() - lastSendEndedMillis);
    ToolContract contract = input.contract();
    return new ReplayPolicy.Situation(mayHaveReached, notSentRetries, statusChecksSinceSend, uncertainSends, since,
        contract.settleMillis(), contract.requestTimeoutMillis(), succeeded);
  }

  /** True while nothing sent may have acted: a cancellation still stops the execution. */
  private boolean mayCancel() {
    return uncertainSends == 0 && !state.mayHaveCrossedDispatch();
  }

  private void recordDecision(Step step) {
    if (sends.isEmpty()) {
      return;
    }
    int last = sends.size() - 1;
    ExecutionRecord.Send s = sends.get(last);
    if (s.decision() == null) {
      sends.set(last, new ExecutionRecord.Send(s.attempt(), s.key(), s.startedAt(), s.endedAt(), s.observed(), s.status(),
          s.detail(), step.action().name().toLowerCase(java.util.Locale.ROOT)));
    }
  }

  private Observation send(DispatchActivities sender) {
    int attempt = sends.size() + 1;
    statusChecksSinceSend = 0;
    if (dispatchedAt == null) {
      dispatchedAt = now();
    }
    outcome = Outcome.PENDING;
    transition(ExecutionState.DISPATCHED, "dispatched (send " + attempt + "), outcome pending");
    String startedAt = now();
    String reference = Ids.resultReference(Workflow.currentTimeMillis(), random);
    // The entries queued so far travel with the send: the activity makes them durable with its
    // dispatched entry, before the first byte.
    publish();
    List<JournalEntry> carried = drainJournal();
    DispatchRequest request = new DispatchRequest(executionId, input.fingerprint(), input.contract(), input.arguments(),
        attempt, carried, reference);
    Promise<Sent> sent = Async.function(sender::send, request);
    waitUntil(Long.MAX_VALUE, sent::isCompleted);
    lastSendEndedMillis = Workflow.currentTimeMillis();
    try {
      Sent answer = sent.get();
      DispatchResult r = answer.answer();
      Integer code = r.status() != null ? r.status() : r.exitStatus();
      sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(), ExecutionRecord.Send.ANSWERED, code, "", null));
      resultReference = reference;
      if (answer.journalProblem() != null) {
        journalGap("outcome", answer.journalProblem());
      }
      return new Observation(Fact.ANSWERED, r.succeeded(), r, null);
    } catch (ActivityFailure failure) {
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
        requeue(carried);
      }
      if (ErrorTypes.NOT_SENT.equals(type)) {
        sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(), ExecutionRecord.Send.NOT_SENT, null, text, null));
        queue("not_sent", attempt, Map.of("reason", text));
        transition(ExecutionState.AUTHORIZED, "not sent (" + text + ")");
        return new Observation(Fact.NOT_SENT, false, null, text);
      }
      if (isNotDispatchable(type)) {
        sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(), ExecutionRecord.Send.NOT_SENT, null, text, null));
        return new Observation(Fact.NOT_DISPATCHABLE, false, null, text);
      }
      boolean lost = type == null;
      sends.add(new ExecutionRecord.Send(attempt, executionId, startedAt, now(),
          lost ? ExecutionRecord.Send.WORKER_LOST : ExecutionRecord.Send.OUTCOME_UNKNOWN, null, text, null));
      uncertainSends++;
      outcome = Outcome.UNKNOWN;
      queue("outcome_unknown", attempt, Map.of("reason", text, "observed", lost ? "worker_lost" : "outcome_unknown"));
      version++;
      return new Observation(lost ? Fact.WORKER_LOST : Fact.OUTCOME_UNKNOWN, false, null, text);
    }
  }

  private ActivityOptions sendOptions() {
    long timeout = input.contract().requestTimeoutMillis();
    if (timeout <= 0) {
      timeout = Duration.ofMinutes(5).toMillis();
    }
    return ActivityOptions.newBuilder(SEND_OPTIONS).setStartToCloseTimeout(Duration.ofMillis(timeout).plusSeconds(30)).build();
  }

  private static boolean isNotDispatchable(String type) {
    for (String t : NOT_DISPATCHABLE) {
      if (t.equals(type)) {
        return true;
      }
    }
    return false;
  }

  /** One status query: the verdict becomes a fact for the policy. */
  private Observation queryStatus(DispatchActivities status) {
    if (state != ExecutionState.VERIFYING) {
      transition(ExecutionState.VERIFYING, "outcome unknown; asking the target's status facility");
    }
    statusChecksSinceSend++;
    DispatchRequest request = new DispatchRequest(executionId, input.fingerprint(), input.contract(), input.arguments(), Math.max(1, sends.size()));
    Promise<StatusResult> asked = Async.function(status::queryStatus, request);
    waitUntil(Long.MAX_VALUE, asked::isCompleted);
    StatusResult verdict;
    try {
      verdict = asked.get();
    } catch (ActivityFailure failure) {
      verdict = new StatusResult(StatusResult.Verdict.UNKNOWN, null, "status query failed: " + rootMessage(failure));
    }
    Integer code = verdict.result() == null ? null : verdict.result().status() != null ? verdict.result().status() : verdict.result().exitStatus();
    String name = verdict.verdict().name().toLowerCase(java.util.Locale.ROOT);
    statusChecks.add(new ExecutionRecord.StatusCheck(now(), name, code, verdict.detail()));
    version++;
    queue("status_query", statusChecks.size(), Map.of("verdict", name, "detail", verdict.detail()));
    Fact fact = switch (verdict.verdict()) {
      case COMPLETED -> Fact.STATUS_COMPLETED;
      case FAILED -> Fact.STATUS_FAILED;
      case NOT_EXECUTED -> Fact.STATUS_NOT_EXECUTED;
      case RUNNING -> Fact.STATUS_RUNNING;
      case UNKNOWN -> Fact.STATUS_OTHER;
    };
    return new Observation(fact, fact == Fact.STATUS_COMPLETED, verdict.result(), verdict.detail());
  }

  /** Waits for an operator's resolution; returns it as a fact for the policy. */
  private Observation awaitReview(String reason) {
    transition(ExecutionState.NEEDS_REVIEW,
        "outcome unknown (" + reason + "); it was not re-sent and waits for an operator: onceport executions resolve " + executionId);
    queue("needs_review", Math.max(1, sends.size()), Map.of("reason", reason));
    while (true) {
      waitUntil(Long.MAX_VALUE, () -> resolution != null);
      Resolution decided = resolution;
      resolution = null;
      Observation seen = consumeResolution(decided);
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
  private Observation consumeResolution(Resolution presented) {
    Presented waiting = presentedResolution;
    presentedResolution = null;
    Resolution decided = presented;
    if (signedDecisions()) {
      DecisionVerdict v = verify(presented.signedDecision(), DecisionBinding.RESOLUTION, executionId, input.fingerprint(),
          List.of(DecisionBinding.COMPLETED, DecisionBinding.FAILED, DecisionBinding.REDISPATCH), presented.by(),
          "onceport executions resolve, or onceport operator sign resolution");
      if (!v.valid()) {
        refuse(DecisionBinding.RESOLUTION, v, presented.signedDecision(), presented.by());
        answer(waiting, v.refusal());
        return null;
      }
      decided = new Resolution(Resolution.Decision.valueOf(v.decision().toUpperCase(java.util.Locale.ROOT)),
          v.reason().isBlank() ? "(no reason given)" : v.reason(), v.operator());
    }
    answer(waiting, null);
    review = new ExecutionRecord.Review(decided.decision().name().toLowerCase(), decided.reason(), decided.by(), now());
    queue("review_resolved", Math.max(1, sends.size()), Map.of("decision", review.decision(), "by", decided.by(), "reason", decided.reason()));
    String text = "resolved by " + decided.by() + " as " + review.decision() + ": " + decided.reason();
    return switch (decided.decision()) {
      case COMPLETED -> new Observation(Fact.RESOLVED_COMPLETED, true, null, text);
      case FAILED -> new Observation(Fact.RESOLVED_FAILED, false, null, text);
      case REDISPATCH -> {
        uncertainSends = 0;
        outcome = Outcome.PENDING;
        transition(ExecutionState.AUTHORIZED, "resolved by " + decided.by() + " for re-dispatch: " + decided.reason());
        yield new Observation(Fact.RESOLVED_REDISPATCH, false, null, text);
      }
    };
  }

  private void settleFrom(Observation seen, boolean succeeded) {
    switch (seen.fact()) {
      case ANSWERED -> {
        result = seen.answer();
        // The send activity journaled this outcome itself (with the result reference).
        settle(succeeded, "the target answered " + answerText(result), false);
      }
      case STATUS_COMPLETED, STATUS_FAILED -> {
        if (seen.answer() != null) {
          result = seen.answer();
          resultReference = Ids.resultReference(Workflow.currentTimeMillis(), random);
          settle(succeeded, "the status query found it: " + answerText(result), true);
        } else {
          settle(succeeded, "status query: " + seen.detail(), true);
        }
      }
      default -> settle(succeeded, seen.detail(), true);
    }
  }

  private static String answerText(DispatchResult r) {
    return r.answer();
  }

  private void settle(boolean succeeded, String why, boolean journalOutcome) {
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
    queue("outcome", Math.max(1, sends.size()), detail);
  }

  private void fail(Outcome why, String text) {
    outcome = why;
    completedAt = now();
    transition(ExecutionState.FAILED, text);
    queue("outcome", Math.max(1, sends.size()), Map.of("outcome", why.wireName(), "reason", text));
  }

  // ---- staying attachable ----

  private void awaitDeliveryOrWindow() {
    Duration window = input.contract().replay().attachWindow();
    long until = Workflow.currentTimeMillis() + window.toMillis();
    attachableUntil = Instant.ofEpochMilli(until).toString();
    version++;
    if (state == ExecutionState.REJECTED || state == ExecutionState.CANCELLED) {
      // A retry within the window gets the same refusal instead of a fresh approval path.
      waitUntil(until, () -> false);
    } else {
      waitUntil(until, () -> delivery == Delivery.DELIVERED);
    }
    if (delivery != Delivery.DELIVERED && (state == ExecutionState.COMPLETED || state == ExecutionState.FAILED)) {
      queue("attach_window_closed", 1, Map.of("delivery", delivery.wireName()));
    }
  }

  // ---- the main method's one way to wait ----

  /**
   * Waits until {@code done} holds or the clock reaches {@code until}; returns whether {@code done}
   * holds. Before every wait it writes what is queued (journal, search attributes, memo); while
   * waiting it wakes for new queued entries and for the deadlines of callers waiting in handlers,
   * with one timer at a time.
   */
  private boolean waitUntil(long until, Functions.Func<Boolean> done) {
    while (true) {
      commit();
      if (done.apply()) {
        return true;
      }
      long now = Workflow.currentTimeMillis();
      if (now >= until) {
        return false;
      }
      long wake = Math.min(until, earliestWaitDeadline(now));
      if (wake != Long.MAX_VALUE && (timer == null || timerAt != wake || timer.isCompleted())) {
        timerAt = wake;
        timer = Workflow.newTimer(Duration.ofMillis(wake - now));
      }
      Promise<Void> armed = wake == Long.MAX_VALUE ? null : timer;
      int deadlines = waitDeadlines.size();
      Workflow.await(() -> done.apply() || !pendingJournal.isEmpty()
          || armed != null && armed.isCompleted()
          || waitDeadlines.size() != deadlines && earliestWaitDeadline(Workflow.currentTimeMillis()) < wake);
    }
  }

  private long earliestWaitDeadline(long now) {
    long earliest = Long.MAX_VALUE;
    for (long d : waitDeadlines) {
      if (d > now && d < earliest) {
        earliest = d;
      }
    }
    return earliest;
  }

  /** Writes the queued journal entries (one local activity) and publishes the view if it changed. */
  private void commit() {
    if (!pendingJournal.isEmpty()) {
      List<JournalEntry> batch = drainJournal();
      try {
        journal.appendAll(batch);
      } catch (ActivityFailure failure) {
        // Also in the workflow history: a journal outage is recorded, not fatal (the dispatched
        // entry, written by the send itself, fails closed).
        journalGap(batch.get(0).transition() + (batch.size() > 1 ? " and " + (batch.size() - 1) + " more" : ""), rootMessage(failure));
      }
    }
    publish();
  }

  private void journalGap(String what, String why) {
    log.warn("{} journal append of {} failed: {}", executionId, what, why);
    transitions.add(new ExecutionRecord.Transition("journal_unavailable", now(), what + ": " + why));
    version++;
  }

  /**
   * Search attributes when the operator's view (the {@code OnceportState} label) changed; the memo
   * summary when the execution settles, waits for a person, or closes. At most once per call.
   */
  private void publish() {
    String label = snapshot().view();
    if (!label.equals(publishedLabel)) {
      if (!publishedIdentity) {
        Workflow.upsertTypedSearchAttributes(
            SA_EXECUTION_ID.valueSet(executionId),
            SA_FINGERPRINT.valueSet(input.fingerprint()),
            SA_TOOL.valueSet(input.tool()),
            SA_ACTOR.valueSet(input.actor()),
            SA_STATE.valueSet(label));
        publishedIdentity = true;
      } else {
        Workflow.upsertTypedSearchAttributes(SA_STATE.valueSet(label));
      }
      publishedLabel = label;
    }
    boolean memoDue = state.isTerminal() || state == ExecutionState.NEEDS_REVIEW
        || state == ExecutionState.AWAITING_APPROVAL || state == ExecutionState.AWAITING_SESSION_AUTHORIZATION;
    if (memoDue) {
      String memo = summary();
      if (!memo.equals(publishedMemo)) {
        Workflow.upsertMemo(Map.of("summary", memo));
        publishedMemo = memo;
      }
    }
  }

  private void queue(String transition, int attempt, Map<String, Object> detail) {
    Map<String, Object> withTool = new LinkedHashMap<>(detail);
    withTool.putIfAbsent("tool", input.tool());
    pendingJournal.add(new JournalEntry(executionId, input.fingerprint(), transition, attempt, now(), withTool));
  }

  private List<JournalEntry> drainJournal() {
    List<JournalEntry> batch = new ArrayList<>(pendingJournal);
    pendingJournal.clear();
    return batch;
  }

  private void requeue(List<JournalEntry> entries) {
    pendingJournal.addAll(0, entries);
  }

  // ---- handlers: state only ----

  @Override
  public ExecutionRecord record() {
    return legacy != null ? legacy.record() : snapshot();
  }

  @Override
  public void validateAttach(AttachRequest request) {
    if (!input.fingerprint().equals(request.fingerprint())) {
      throw ApplicationFailure.newNonRetryableFailure(
          INTENT_KEY_MISMATCH_PREFIX + "intent key " + request.intentKey() + " was already used by execution " + executionId
              + " for a different request; use a new key for a new intent",
          ErrorTypes.INTENT_KEY_MISMATCH);
    }
  }

  /**
   * Records the call and answers as soon as there is something to say: settled, or waiting for an
   * operator (so an agent learns within seconds that its session awaits authorization), or when
   * the caller's wait is over.
   */
  @Override
  public ExecutionRecord attach(AttachRequest request) {
    if (isLegacy()) {
      return legacy.attach(request);
    }
    recordCall(request, !calls.isEmpty() || unrecordedCalls > 0);
    version++;
    if (request.waitMillis() > 0) {
      long deadline = Workflow.currentTimeMillis() + request.waitMillis();
      waitDeadlines.add(deadline);
      Workflow.await(() -> hasAnswer() || Workflow.currentTimeMillis() >= deadline);
      waitDeadlines.remove(Long.valueOf(deadline));
    }
    return snapshot();
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
    queue("call", ++callEntries, evidence);
  }

  /** Settled, or waiting on a person: an answer a caller can be given now. */
  private boolean hasAnswer() {
    return isSettled() || state == ExecutionState.AWAITING_APPROVAL || state == ExecutionState.AWAITING_SESSION_AUTHORIZATION;
  }

  @Override
  public ExecutionRecord awaitChange(long afterVersion, long waitMillis) {
    if (isLegacy()) {
      return legacy.awaitChange(afterVersion, waitMillis);
    }
    if (waitMillis > 0 && version <= afterVersion) {
      long deadline = Workflow.currentTimeMillis() + waitMillis;
      waitDeadlines.add(deadline);
      Workflow.await(() -> version > afterVersion || Workflow.currentTimeMillis() >= deadline);
      waitDeadlines.remove(Long.valueOf(deadline));
    }
    return snapshot();
  }

  @Override
  public void reportDelivery(DeliveryReport report) {
    if (isLegacy()) {
      legacy.reportDelivery(report);
      return;
    }
    applyDelivery(report);
  }

  private void applyDelivery(DeliveryReport report) {
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).callId().equals(report.callId())) {
        calls.set(i, calls.get(i).withDelivery(report.delivered() ? "delivered" : "not_delivered", report.at()));
      }
    }
    if (report.delivered() && isSettled() && state != ExecutionState.NEEDS_REVIEW) {
      if (delivery != Delivery.DELIVERED) {
        delivery = Delivery.DELIVERED;
        deliveredAt = report.at();
        queue("delivered", 1, Map.of("call", report.callId()));
      }
    } else if (!report.delivered() && delivery != Delivery.DELIVERED) {
      delivery = Delivery.NOT_DELIVERED;
      queue("not_delivered", countNotDelivered(), Map.of("call", report.callId(), "detail", report.detail()));
    }
    version++;
  }

  @Override
  public void reportDeliveries(List<DeliveryReport> reports) {
    if (isLegacy()) {
      legacy.reportDeliveries(reports);
      return;
    }
    for (DeliveryReport report : reports) {
      applyDelivery(report);
    }
  }

  @Override
  public void recordCalls(List<AttachRequest> requests) {
    if (isLegacy()) {
      legacy.recordCalls(requests);
      return;
    }
    for (AttachRequest request : requests) {
      recordCall(request, true);
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

  @Override
  public void validateResolve(Resolution resolution) {
    ExecutionState current = legacy != null ? legacy.record().state() : state;
    if (current != ExecutionState.NEEDS_REVIEW) {
      throw ApplicationFailure.newNonRetryableFailure(
          "execution " + executionId + " is " + current.wireName() + ", not needs_review; nothing to resolve",
          ErrorTypes.INVALID_TRANSITION);
    }
    if (legacy == null && this.resolution != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "a resolution of execution " + executionId + " is being decided; try again when it is", ErrorTypes.INVALID_TRANSITION);
    }
  }

  @Override
  public ExecutionRecord resolve(Resolution decided) {
    if (isLegacy()) {
      return legacy.resolve(decided);
    }
    Presented presented = new Presented();
    this.presentedResolution = presented;
    this.resolution = decided;
    // Done when the main method decided on it, or the review ended otherwise.
    Workflow.await(() -> presented.done || state != ExecutionState.NEEDS_REVIEW);
    if (presented.refusal != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "execution " + executionId + ": decision refused: " + presented.refusal, ErrorTypes.DECISION_REFUSED);
    }
    Workflow.await(() -> state != ExecutionState.NEEDS_REVIEW);
    return snapshot();
  }

  @Override
  public void validateDecideApproval(ApprovalDecision decision) {
    if (legacy != null) {
      legacy.validateDecideApproval(decision);
      return;
    }
    // A signed statement's binding is checked when it is verified; the plain fields are the caller's claim.
    boolean signed = decision.signedDecision() != null;
    if (!signed && (!executionId.equals(decision.executionId()) || !input.fingerprint().equals(decision.fingerprint()))) {
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

  @Override
  public ExecutionRecord decideApproval(ApprovalDecision decision) {
    if (isLegacy()) {
      return legacy.decideApproval(decision);
    }
    Presented presented = new Presented();
    this.presentedApproval = presented;
    this.approvalDecision = decision;
    // Done when the main method decided on it, or the wait ended otherwise (timeout, vault locked, cancel).
    Workflow.await(() -> presented.done || state != ExecutionState.AWAITING_APPROVAL);
    if (presented.refusal != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "execution " + executionId + ": decision refused: " + presented.refusal, ErrorTypes.DECISION_REFUSED);
    }
    Workflow.await(() -> state != ExecutionState.AWAITING_APPROVAL);
    return snapshot();
  }

  @Override
  public ExecutionRecord cancel(CancelRequest request) {
    if (isLegacy()) {
      return legacy.cancel(request);
    }
    String who = request.by() + (request.reason().isEmpty() ? "" : ": " + request.reason());
    if (state.isTerminal() || state.mayHaveCrossedDispatch() || uncertainSends > 0) {
      cancellation = "cancellation requested by " + who + " after dispatch; a sent request cannot be unsent, only waiting stopped";
      version++;
      queue("cancel_refused", 1, Map.of("by", request.by(), "state", state.wireName()));
      return snapshot();
    }
    cancellation = "cancelled by " + who;
    cancelRequested = true;
    Workflow.await(() -> state == ExecutionState.CANCELLED || state.mayHaveCrossedDispatch());
    return snapshot();
  }

  @Override
  public void sessionAuthorization(SessionAuthorization decision) {
    if (isLegacy()) {
      legacy.sessionAuthorization(decision);
      return;
    }
    // A decision on another session is not this execution's; without a session id any is accepted.
    boolean ours = input.sessionId() == null || input.sessionId().equals(decision.sessionId());
    if (ours) {
      if (sessionDecision == null) {
        sessionDecision = decision;
      }
      // Signed mode looks at every one presented (a forged first one must not hide the real one).
      if (sessionDecisions.size() < MAX_QUEUED_SESSION_DECISIONS) {
        sessionDecisions.add(decision);
      }
    }
  }

  @Override
  public void recheckAuthorization(String reason) {
    if (isLegacy()) {
      legacy.recheckAuthorization(reason);
      return;
    }
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
    return new ExecutionRecord(
        executionId, Workflow.getInfo().getWorkflowId(), Workflow.getInfo().getRunId(), input.fingerprint(), input.intentKey(), input.tool(),
        input.actor(), input.intentScope(), input.sessionId(), contract.channel().name().toLowerCase(),
        input.target(), input.method(), contract.credentialRef(), contract.replayClass().wireName(),
        input.shownArguments(), state, outcome, delivery, acceptedAt, authorizedAt, dispatchedAt, completedAt,
        deliveredAt, targetStatus, exitStatus, resultReference, result, authorizationRecord, review,
        sends.size(), sends, statusChecks, new ArrayList<>(calls), transitions, attachableUntil, cancellation,
        unrecordedCalls == 0 ? message : message + " (" + unrecordedCalls + " further calls not itemized)", version);
  }
}
