package io.onceport.workflow.session;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.execution.SessionAuthorization;
import io.onceport.workflow.ids.AgentSessionId;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.operator.OperatorActivities;
import io.onceport.workflow.operator.SignedDecision;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The session state machine. Deterministic: handlers change state; the main loop does the waiting
 * work (verifying operator decisions, journal appends, signals to waiting executions). It closes
 * when the session ended and no execution still waits undecided, or after {@link #IDLE_CLOSE}
 * without any event; a later call of the same session starts a new, undecided run.
 *
 * <p>An {@code authorize}/{@code deny} update only queues what was presented; the main loop
 * verifies it ({@link OperatorActivities}, a local activity, so the verdict is in history), applies
 * it at most once per statement nonce, and the update returns or fails with the refusal. The
 * workflow is {@code PINNED} to the build that started it: no branch for another build's history.
 *
 * <p>A session open on an old build keeps that build from draining until the session ends (its
 * client's DELETE, or {@link #IDLE_CLOSE} without an event).
 *
 * <p>A grant ({@code grant:ACTOR}, {@code sessions authorize --agent ACTOR --for P7D}) is this same
 * workflow: its authorization's statement names the grant's end, and the loop closes it then.
 *
 * <p>Long because: one state machine whose handlers, main loop and decision verification share
 * state; grants reuse its signed-decision path rather than duplicate it in a second workflow type.
 */
public final class AgentSessionWorkflowImpl implements AgentSessionWorkflow {
  /** A session without any event for this long closes; a new call starts it again, undecided. */
  static final Duration IDLE_CLOSE = Duration.ofHours(24);
  static final int MAX_RECORDED_EXECUTIONS = 200;

  private static final ActivityOptions JOURNAL_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setScheduleToCloseTimeout(Duration.ofMinutes(2))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofMillis(200))
              .setDoNotRetry(ErrorTypes.JOURNAL_UNAVAILABLE).build())
          .build();

  /** Verification reads the operator registry on the worker: local, fast, and retried a little. */
  private static final LocalActivityOptions VERIFY_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).setInitialInterval(Duration.ofMillis(200)).build())
          .build();

  /** The statement text kept in a refusal's journal entry, at most. */
  static final int MAX_JOURNALLED_STATEMENT = 2_000;

  private final Logger log = Workflow.getLogger(AgentSessionWorkflowImpl.class);
  private final SessionJournalActivities journal = Workflow.newActivityStub(SessionJournalActivities.class, JOURNAL_OPTIONS);
  private final OperatorActivities operators = Workflow.newLocalActivityStub(OperatorActivities.class, VERIFY_OPTIONS);

  private final String sessionId;
  private final String actor;
  /**
   * The grant this workflow is ({@code sessions authorize --agent}), or null for a session: a grant
   * is authorized until the end its signed statement names, and ends then.
   */
  private final AgentSessionId grant;
  private String clientInfo;
  private String protocolVersion;
  private String remoteAddress;
  private String startedAt;
  private String endedAt;
  private String endReason;
  /** The session ended because its credential was removed: no authorization applies any more (an update validator, no command). */
  private boolean credentialRemoved;
  private SessionRecord.Authorization authorization;
  private final List<String> waiting = new ArrayList<>();
  private final List<String> executions = new ArrayList<>();
  private final List<String> toNotify = new ArrayList<>();
  private final List<SessionJournalEntry> toJournal = new ArrayList<>();
  private int sequence;
  private long version;
  /** Decisions presented by updates, in arrival order, decided by the main loop. */
  private final List<Presented> presented = new ArrayList<>();
  /** Nonces of statements already applied: a statement decides at most once. */
  private final Set<String> appliedNonces = new LinkedHashSet<>();
  /** The statement behind the current decision, forwarded to waiting executions. */
  private SignedDecision decisionStatement;

  /** One authorize/deny update waiting for the main loop's verdict. */
  private static final class Presented {
    final String decision;
    final SessionDecision input;
    boolean done;
    String refusal;

    Presented(String decision, SessionDecision input) {
      this.decision = decision;
      this.input = input;
    }
  }

  @WorkflowInit
  public AgentSessionWorkflowImpl(AgentSessionInput input) {
    this.sessionId = input.sessionId();
    this.actor = input.actor();
    this.grant = AgentSessionId.parse(sessionId).filter(id -> id.kind() == AgentSessionId.Kind.GRANT).orElse(null);
  }

  /** How long the main loop waits for an event: a session closes when idle; a grant when its period ends. */
  private Duration quiet() {
    if (grant != null && authorization != null && authorization.until() != null && "authorized".equals(authorization.decision())) {
      long left = Instant.parse(authorization.until()).toEpochMilli() - Workflow.currentTimeMillis();
      return Duration.ofMillis(Math.max(1, left));
    }
    return IDLE_CLOSE;
  }

  @Override
  public SessionRecord run(AgentSessionInput ignored) {
    while (true) {
      // A grant's authorization journals an entry, so the loop wakes and waits again with the grant's period.
      boolean active = Workflow.await(quiet(),
          () -> pendingDecision() != null || !toJournal.isEmpty() || !toNotify.isEmpty() || finished());
      decidePresented();
      drain();
      if (finished()) {
        break;
      }
      if (!active && grant != null && authorization != null && authorization.until() != null) {
        ended(new SessionEnded("the grant ran out at " + authorization.until(), now()));
        drain();
        break;
      }
      if (!active) {
        // Idle: the session ends here (an authorization does not outlive it); a later call starts a new run.
        ended(new SessionEnded("no session event for " + IDLE_CLOSE, now()));
        drain();
        break;
      }
    }
    Workflow.await(Workflow::isEveryHandlerFinished);
    drain();
    return session();
  }

  private boolean finished() {
    return endedAt != null && (authorization != null || waiting.isEmpty()) && toNotify.isEmpty() && toJournal.isEmpty()
        && pendingDecision() == null;
  }

  private Presented pendingDecision() {
    for (Presented p : presented) {
      if (!p.done) {
        return p;
      }
    }
    return null;
  }

  /** Verifies and applies (or refuses) every presented decision, oldest first. */
  private void decidePresented() {
    for (Presented p = pendingDecision(); p != null; p = pendingDecision()) {
      String word = p.decision.equals("authorized") ? DecisionBinding.AUTHORIZE : DecisionBinding.DENY;
      SignedDecision signed = p.input.signedDecision();
      DecisionVerdict verdict = signed == null
          ? DecisionVerdict.refused(p.input.by(), "unsigned: no signed statement was presented (sign it with onceport sessions "
              + (word.equals(DecisionBinding.AUTHORIZE) ? "authorize" : "deny") + ", or onceport operator sign session)")
          : verify(signed, DecisionBinding.session(signedSubject(p), actor, List.of(word), Workflow.currentTimeMillis()));
      if (verdict.valid() && appliedNonces.contains(verdict.nonce())) {
        verdict = DecisionVerdict.refused(verdict.operator(), "replayed: this statement (nonce " + verdict.nonce()
            + ") was already applied to session " + sessionId);
      }
      if (!verdict.valid()) {
        refuse(p, signed, verdict);
        continue;
      }
      appliedNonces.add(verdict.nonce());
      if (grant != null && p.decision.equals("authorized") && !grantEndsLater(p.input.until())) {
        refuse(p, signed, DecisionVerdict.refused(verdict.operator(), "the grant's end " + p.input.until() + " has passed"));
        continue;
      }
      apply(p.decision, verdict.operator(), verdict.reason(), signed, grant != null && p.decision.equals("authorized")
          ? p.input.until() : null);
      p.done = true;
    }
  }

  /**
   * What the statement must be bound to: the session id; for a grant's authorization, the grant and
   * its end ({@link AgentSessionId#grantUntil}), so the period is signed by the operator.
   */
  private String signedSubject(Presented p) {
    if (grant == null || !p.decision.equals("authorized")) {
      return sessionId;
    }
    String until = p.input.until();
    return until == null || until.isBlank() ? sessionId + "/(no end)"
        : AgentSessionId.grantUntil(grant.actor(), grant.generation(), until).id();
  }

  private boolean grantEndsLater(String until) {
    try {
      return Instant.parse(until).toEpochMilli() > Workflow.currentTimeMillis();
    } catch (RuntimeException e) {
      return false;
    }
  }

  private DecisionVerdict verify(SignedDecision signed, DecisionBinding binding) {
    try {
      return operators.verify(signed, binding);
    } catch (ActivityFailure failure) {
      // Fail closed: a decision that cannot be verified does not apply.
      return DecisionVerdict.refused(null, "the decision could not be verified: " + rootMessage(failure));
    }
  }

  private void refuse(Presented p, SignedDecision signed, DecisionVerdict verdict) {
    Map<String, String> detail = new LinkedHashMap<>();
    detail.put("decision", p.decision.equals("authorized") ? DecisionBinding.AUTHORIZE : DecisionBinding.DENY);
    detail.put("refusal", verdict.refusal());
    detail.put("presented_by", verdict.operator() != null ? verdict.operator() : p.input.by());
    String statement = signed == null ? "(none)" : signed.statement();
    detail.put("statement", statement.length() > MAX_JOURNALLED_STATEMENT
        ? statement.substring(0, MAX_JOURNALLED_STATEMENT) + "… (" + statement.length() + " characters)" : statement);
    record("decision_refused", now(), detail);
    log.warn("session {}: {} refused: {}", sessionId, detail.get("decision"), verdict.refusal());
    p.refusal = verdict.refusal();
    p.done = true;
    version++;
  }

  private void drain() {
    while (!toJournal.isEmpty()) {
      SessionJournalEntry entry = toJournal.get(0);
      try {
        journal.recordSessionEvent(entry);
      } catch (ActivityFailure failure) {
        // The event is in this workflow's history too; a journal outage is logged, not fatal.
        log.warn("session {} journal append of {} failed: {}", sessionId, entry.event(), rootMessage(failure));
      }
      toJournal.remove(0);
    }
    while (!toNotify.isEmpty()) {
      String workflowId = toNotify.get(0);
      SessionAuthorization decision = new SessionAuthorization(
          sessionId, authorization.decision().equals("authorized"), authorization.by(), authorization.reason(),
          decisionStatement == null ? null : decisionStatement.statement(), decisionStatement == null ? null : decisionStatement.signature());
      try {
        Workflow.newExternalWorkflowStub(ToolExecutionWorkflow.class, workflowId).sessionAuthorization(decision);
      } catch (SignalExternalWorkflowException | ApplicationFailure e) {
        // The execution closed meanwhile (timed out, cancelled): nothing waits any more. (A signal
        // to a missing workflow surfaces as an ApplicationFailure; uncaught it would fail the session.)
        log.info("session {}: execution {} no longer waits: {}", sessionId, workflowId, e.getMessage());
      }
      toNotify.remove(0);
      version++;
    }
  }

  @Override
  public SessionRecord session() {
    return new SessionRecord(sessionId, actor, clientInfo, protocolVersion, remoteAddress, startedAt, endedAt, endReason,
        authorization, waiting, executions, version);
  }

  @Override
  public void started(SessionStarted started) {
    if (startedAt != null) {
      return;
    }
    startedAt = started.at();
    clientInfo = started.clientInfo();
    protocolVersion = started.protocolVersion();
    remoteAddress = started.remoteAddress();
    version++;
    Map<String, String> detail = new LinkedHashMap<>();
    putIfPresent(detail, "client", clientInfo);
    putIfPresent(detail, "protocol_version", protocolVersion);
    putIfPresent(detail, "remote", remoteAddress);
    record("started", started.at(), detail);
  }

  @Override
  public void ended(SessionEnded ended) {
    if (endedAt != null) {
      return;
    }
    endedAt = ended.at();
    endReason = ended.reason();
    credentialRemoved = ended.credentialRemoved();
    version++;
    record("ended", ended.at(), Map.of("reason", ended.reason()));
  }

  @Override
  public void registerWaiting(String executionWorkflowId) {
    register(executionWorkflowId);
  }

  /**
   * An execution of this session's actor waits for its decision. One of another actor never gets
   * this session's decision (issue 25): refused, recorded and journalled as
   * {@code registration_refused}; its ladder waits on its own session and times out there.
   */
  @Override
  public void executionWaiting(WaitingExecution waiting) {
    if (!actor.equals(waiting.actor())) {
      Map<String, String> detail = new LinkedHashMap<>();
      detail.put("execution_workflow", waiting.executionWorkflowId());
      detail.put("actor", waiting.actor());
      detail.put("refusal", "the execution's actor " + waiting.actor() + " is not this session's actor " + actor);
      record("registration_refused", now(), detail);
      log.warn("session {}: refused execution {} of another actor ({})", sessionId, waiting.executionWorkflowId(), waiting.actor());
      version++;
      return;
    }
    register(waiting.executionWorkflowId());
  }

  private void register(String executionWorkflowId) {
    if (!executions.contains(executionWorkflowId) && executions.size() < MAX_RECORDED_EXECUTIONS) {
      executions.add(executionWorkflowId);
    }
    if (authorization != null) {
      toNotify.add(executionWorkflowId);
    } else if (!waiting.contains(executionWorkflowId)) {
      waiting.add(executionWorkflowId);
      record("execution_waiting", now(), Map.of("execution_workflow", executionWorkflowId));
    }
    version++;
  }

  @Override
  public void validateAuthorize(SessionDecision decision) {
    validate("authorized");
  }

  @Override
  public SessionRecord authorize(SessionDecision decision) {
    return present("authorized", decision);
  }

  @Override
  public void validateDeny(SessionDecision decision) {
    validate("denied");
  }

  @Override
  public SessionRecord deny(SessionDecision decision) {
    return present("denied", decision);
  }

  private void validate(String decision) {
    if (credentialRemoved && decision.equals("authorized")) {
      throw ApplicationFailure.newNonRetryableFailure("session " + sessionId + " ended at " + endedAt
          + " because its credential was removed (" + endReason + "); nothing waiting on it may be authorized",
          ErrorTypes.INVALID_TRANSITION);
    }
    if (endedAt != null && authorization == null && waiting.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "session " + sessionId + " ended at " + endedAt + "; nothing waits on it", ErrorTypes.INVALID_TRANSITION);
    }
    if (authorization != null && authorization.decision().equals(decision) && !(grant != null && decision.equals("authorized"))) {
      throw ApplicationFailure.newNonRetryableFailure(
          "session " + sessionId + " is already " + decision + " (by " + authorization.by() + " at " + authorization.at() + ")",
          ErrorTypes.INVALID_TRANSITION);
    }
  }

  /** Queues the decision for the main loop and waits for its verdict; fails the update when refused. */
  private SessionRecord present(String decision, SessionDecision input) {
    SessionDecision presentedInput = input == null ? new SessionDecision(null, null) : input;
    Presented p = new Presented(decision, presentedInput);
    presented.add(p);
    Workflow.await(() -> p.done && toNotify.isEmpty() && toJournal.isEmpty());
    presented.remove(p);
    if (p.refusal != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "session " + sessionId + ": decision refused: " + p.refusal, ErrorTypes.DECISION_REFUSED);
    }
    return session();
  }

  private void apply(String decision, String by, String reason, SignedDecision signed, String until) {
    String at = now();
    authorization = new SessionRecord.Authorization(decision, by, at, reason, until);
    decisionStatement = signed;
    toNotify.addAll(waiting);
    waiting.clear();
    version++;
    record(decision, at, until == null ? Map.of("by", by, "reason", reason) : Map.of("by", by, "reason", reason, "until", until));
  }

  private void record(String event, String at, Map<String, String> detail) {
    sequence++;
    toJournal.add(new SessionJournalEntry(sessionId, actor, event, Workflow.getInfo().getRunId(), sequence, at, detail));
  }

  private String now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis()).toString();
  }

  private static void putIfPresent(Map<String, String> map, String key, String value) {
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
}
