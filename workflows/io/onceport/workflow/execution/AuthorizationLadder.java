package io.onceport.workflow.execution;

import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationDecision.Kind;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.onceport.workflow.journal.JournalTransition;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.ids.AgentSessionId;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who may act, never whether it already happened: the ladder's decision (a local activity) carried
 * out on the {@link Execution}, including the waits for an operator's approval or session
 * authorization. Runs on the main method only; the decisions arrive through the {@link Inbox} and
 * are verified by {@link OperatorDecisions} before they count. A cancellation before dispatch ends
 * it at the next step.
 */
final class AuthorizationLadder {
  /**
   * While waiting for an operator the gate (vault, credential) is re-checked when
   * {@code recheckAuthorization} arrives (the vault-lock watcher sends it) and otherwise only this
   * rarely, as a fallback for a missed signal: a waiting execution costs no workflow task.
   */
  static final Duration FALLBACK_RECHECK = Duration.ofMinutes(30);

  private final Execution execution;
  private final Inbox inbox;
  private final MainLoop loop;
  private final AuthorizationActivities authorization;
  private final OperatorDecisions decisions;

  AuthorizationLadder(Execution execution, Inbox inbox, MainLoop loop, AuthorizationActivities authorization,
      OperatorDecisions decisions) {
    this.execution = execution;
    this.inbox = inbox;
    this.loop = loop;
    this.authorization = authorization;
    this.decisions = decisions;
  }

  /** Climbs the ladder until it allows (true) or rejects, or a cancellation arrives (false). */
  boolean authorize() {
    ExecutionInput input = execution.input();
    AuthorizationRequest request = new AuthorizationRequest(
        execution.executionId(), input.fingerprint(), input.tool(), input.actor(), input.sessionId(),
        input.contract().credentialRef(), input.target(), input.sessionPolicy());
    AuthorizationDecision decision = authorization.decide(request);
    while (true) {
      if (inbox.cancelRequested()) {
        execution.cancelledBeforeDispatch();
        return false;
      }
      switch (decision.kind()) {
        case ALLOW -> {
          authorized(decision);
          return true;
        }
        case REJECT -> {
          rejected(decision.rule(), decision.by(), decision.reason());
          return false;
        }
        case APPROVAL_REQUIRED -> decision = awaitApproval(request, decision);
        case SESSION_AUTHORIZATION_REQUIRED -> decision = awaitSessionAuthorization(request, decision);
      }
    }
  }

  private void authorized(AuthorizationDecision decision) {
    Map<String, Object> detail = new LinkedHashMap<>(Map.of("rule", decision.rule(), "by", decision.by()));
    if (!decision.reason().isEmpty()) {
      detail.put("reason", decision.reason()); // an operator's approval keeps its reason
    }
    execution.authorization(
        new ExecutionRecord.Authorization("authorized", decision.rule(), execution.now(), decision.by(), decision.reason(), null),
        ExecutionState.AUTHORIZED, "authorized (" + decision.rule() + ")", JournalTransition.AUTHORIZED, detail);
  }

  private void rejected(String rule, String by, String reason) {
    if (execution.journalProvesSends()) {
      // A reset run verified again (a statement may have expired since): the sends stay on the record.
      execution.refusedAfterSends(new ExecutionRecord.Authorization("rejected", rule, execution.now(), by, reason, null),
          "authorization refused (" + rule + ")" + (reason.isEmpty() ? "" : ": " + reason)
              + "; nothing is sent now, but the journal proves an earlier run's send: the outcome is unknown",
          Map.of("rule", rule, "by", by, "reason", reason));
      return;
    }
    execution.authorization(new ExecutionRecord.Authorization("rejected", rule, execution.now(), by, reason, null),
        ExecutionState.REJECTED, "rejected (" + rule + ")" + (reason.isEmpty() ? "" : ": " + reason) + "; nothing was dispatched",
        JournalTransition.REJECTED, Map.of("rule", rule, "by", by, "reason", reason));
  }

  /**
   * Waits for an operator's approval until the ladder's timeout; returns the next decision, or
   * {@code waiting} itself when a cancellation arrived. A refused statement changes nothing: it keeps
   * waiting until the same deadline.
   */
  private AuthorizationDecision awaitApproval(AuthorizationRequest request, AuthorizationDecision waiting) {
    long deadline = Workflow.currentTimeMillis() + Math.max(1, waiting.timeoutMillis());
    inbox.approvalDeadline(deadline);
    String expiresAt = Instant.ofEpochMilli(deadline).toString();
    execution.authorization(new ExecutionRecord.Authorization("awaiting_approval", waiting.rule(), execution.now(), waiting.by(),
            waiting.reason(), expiresAt), ExecutionState.AWAITING_APPROVAL,
        "awaiting an operator's approval (" + waiting.rule() + ") until " + expiresAt + ": onceport approve " + execution.executionId(),
        JournalTransition.AWAITING_APPROVAL, Map.of("rule", waiting.rule(), "expires_at", expiresAt));
    String timeoutReason = "no operator approved within " + Duration.ofMillis(waiting.timeoutMillis());
    while (true) {
      AuthorizationDecision closed = awaitOperator(request, deadline, inbox::approvalWaiting, "approval_timeout", timeoutReason);
      if (closed != null) {
        return closed;
      }
      if (!inbox.approvalWaiting()) {
        return waiting; // a cancellation: handled at the top of the ladder
      }
      AuthorizationDecision consumed = consumeApproval(inbox.takeApproval());
      if (consumed != null) {
        return consumed;
      }
    }
  }

  /** Like {@link #awaitApproval}, for the authorization of the execution's agent session. */
  private AuthorizationDecision awaitSessionAuthorization(AuthorizationRequest request, AuthorizationDecision waiting) {
    String session = execution.input().sessionId();
    long deadline = Workflow.currentTimeMillis() + Math.max(1, waiting.timeoutMillis());
    String expiresAt = Instant.ofEpochMilli(deadline).toString();
    execution.authorization(new ExecutionRecord.Authorization("awaiting_session_authorization", waiting.rule(), execution.now(),
            waiting.by(), waiting.reason(), expiresAt), ExecutionState.AWAITING_SESSION_AUTHORIZATION,
        "awaiting an operator's authorization of session " + session + " until " + expiresAt + ": onceport sessions authorize " + session,
        JournalTransition.AWAITING_SESSION_AUTHORIZATION,
        Map.of("rule", waiting.rule(), "session", String.valueOf(session), "expires_at", expiresAt));
    String timeoutReason = "no operator authorized session " + session + " in time";
    while (true) {
      AuthorizationDecision closed = awaitOperator(request, deadline, inbox::sessionDecisionWaiting,
          "session_authorization_timeout", timeoutReason);
      if (closed != null) {
        return closed;
      }
      if (!inbox.sessionDecisionWaiting()) {
        return waiting; // a cancellation: handled at the top of the ladder
      }
      AuthorizationDecision consumed = consumeSessionDecision(request);
      if (consumed != null) {
        return consumed;
      }
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
        return new AuthorizationDecision(Kind.REJECT, timeoutRule, timeoutReason, "policy", 0);
      }
      long until = Math.min(deadline, now + FALLBACK_RECHECK.toMillis());
      loop.waitUntil(until, () -> decided.apply() || inbox.cancelRequested() || inbox.recheckRequested());
      if (decided.apply() || inbox.cancelRequested()) {
        return null;
      }
      if (Workflow.currentTimeMillis() >= deadline) {
        continue;
      }
      inbox.recheckDone();
      AuthorizationDecision again = authorization.recheck(request);
      if (again.kind() == Kind.REJECT) {
        return again;
      }
    }
  }

  /**
   * An operator's approval or denial becomes the ladder's decision (the one place an approval is
   * consumed), or null when the statement is refused (the update fails, nothing changes).
   */
  private AuthorizationDecision consumeApproval(Inbox.Presentation<ApprovalDecision> presented) {
    ApprovalDecision decided = presented.decision();
    DecisionVerdict v = decisions.verify(decided.signedDecision(), DecisionBinding.APPROVAL, execution.executionId(),
        execution.input().fingerprint(), List.of(DecisionBinding.APPROVE, DecisionBinding.DENY), decided.by(),
        "onceport approve|deny, or onceport operator sign approval");
    if (!v.valid()) {
      decisions.refuse(DecisionBinding.APPROVAL, v, decided.signedDecision(), decided.by());
      presented.answer(v.refusal());
      return null;
    }
    presented.answer(null);
    return DecisionBinding.APPROVE.equals(v.decision())
        ? new AuthorizationDecision(Kind.ALLOW, "approved", v.reason(), v.operator(), 0)
        : new AuthorizationDecision(Kind.REJECT, "denied", v.reason(), v.operator(), 0);
  }

  /**
   * An operator's session decision (the one place it is consumed). The session gate is passed; the
   * rest of the ladder (vault, credential) still applies.
   */
  private AuthorizationDecision consumeSessionDecision(AuthorizationRequest request) {
    return consumeSignedSessionDecisions(request);
  }

  /**
   * The session a decision must name: the execution's session id, or for a call without one the
   * actor's own session ({@link AgentSessionId#actor}); the same key the session authority uses.
   */
  static String sessionKey(String sessionId, String actor) {
    return sessionId == null || sessionId.isBlank() ? AgentSessionId.actor(actor, null).id() : sessionId;
  }

  /**
   * The presented session decisions, oldest first, until one verifies: bound to this execution's
   * session and actor (a statement about another actor's session is refused, whatever its
   * subject), signed by a registered operator, current and not applied before. Null when all were
   * refused (each journalled). An authorization passes the session gate only; the rest of the
   * ladder (vault, credential) still applies, and the record names the operator, not "policy".
   */
  private AuthorizationDecision consumeSignedSessionDecisions(AuthorizationRequest request) {
    ExecutionInput input = execution.input();
    String subject = sessionKey(input.sessionId(), input.actor());
    try {
      for (SessionAuthorization presented = inbox.nextSessionDecision(); presented != null; presented = inbox.nextSessionDecision()) {
        DecisionVerdict v = decisions.verifySession(presented.signedDecision(), subject, input.actor(),
            List.of(DecisionBinding.AUTHORIZE, DecisionBinding.DENY), presented.by(), "onceport sessions authorize|deny");
        if (!v.valid()) {
          decisions.refuse(DecisionBinding.SESSION, v, presented.signedDecision(), presented.by());
          continue;
        }
        if (DecisionBinding.DENY.equals(v.decision())) {
          return new AuthorizationDecision(Kind.REJECT, "session_denied", v.reason(), v.operator(), 0);
        }
        AuthorizationDecision again = authorization.decide(request);
        boolean sessionGateOnly = again.kind() == Kind.SESSION_AUTHORIZATION_REQUIRED || again.kind() == Kind.ALLOW;
        return sessionGateOnly ? new AuthorizationDecision(Kind.ALLOW, "session_authorized", v.reason(), v.operator(), 0) : again;
      }
      return null;
    } finally {
      inbox.clearSessionDecisions();
    }
  }
}
