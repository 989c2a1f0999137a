package io.onceport.workflow.session;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.execution.SessionAuthorization;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.activity.ActivityOptions;
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
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The session state machine. Deterministic: handlers change state; the main loop does the waiting
 * work (journal appends, signals to waiting executions). It closes when the session ended and no
 * execution still waits undecided, or after {@link #IDLE_CLOSE} without any event; a later call of
 * the same session starts a new, undecided run.
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

  private final Logger log = Workflow.getLogger(AgentSessionWorkflowImpl.class);
  private final SessionJournalActivities journal = Workflow.newActivityStub(SessionJournalActivities.class, JOURNAL_OPTIONS);

  private final String sessionId;
  private final String actor;
  private String clientInfo;
  private String protocolVersion;
  private String remoteAddress;
  private String startedAt;
  private String endedAt;
  private String endReason;
  private SessionRecord.Authorization authorization;
  private final List<String> waiting = new ArrayList<>();
  private final List<String> executions = new ArrayList<>();
  private final List<String> toNotify = new ArrayList<>();
  private final List<SessionJournalEntry> toJournal = new ArrayList<>();
  private int sequence;
  private long version;

  @WorkflowInit
  public AgentSessionWorkflowImpl(AgentSessionInput input) {
    this.sessionId = input.sessionId();
    this.actor = input.actor();
  }

  @Override
  public SessionRecord run(AgentSessionInput ignored) {
    while (true) {
      boolean active = Workflow.await(IDLE_CLOSE, () -> !toJournal.isEmpty() || !toNotify.isEmpty() || finished());
      drain();
      if (finished()) {
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
    return endedAt != null && (authorization != null || waiting.isEmpty()) && toNotify.isEmpty() && toJournal.isEmpty();
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
          sessionId, authorization.decision().equals("authorized"), authorization.by(), authorization.reason());
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
    version++;
    record("ended", ended.at(), Map.of("reason", ended.reason()));
  }

  @Override
  public void registerWaiting(String executionWorkflowId) {
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
    return decide("authorized", decision);
  }

  @Override
  public void validateDeny(SessionDecision decision) {
    validate("denied");
  }

  @Override
  public SessionRecord deny(SessionDecision decision) {
    return decide("denied", decision);
  }

  private void validate(String decision) {
    if (endedAt != null && authorization == null && waiting.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "session " + sessionId + " ended at " + endedAt + "; nothing waits on it", ErrorTypes.INVALID_TRANSITION);
    }
    if (authorization != null && authorization.decision().equals(decision)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "session " + sessionId + " is already " + decision + " (by " + authorization.by() + " at " + authorization.at() + ")",
          ErrorTypes.INVALID_TRANSITION);
    }
  }

  private SessionRecord decide(String decision, SessionDecision by) {
    String at = now();
    authorization = new SessionRecord.Authorization(decision, by.by(), at, by.reason());
    toNotify.addAll(waiting);
    waiting.clear();
    version++;
    record(decision, at, Map.of("by", by.by(), "reason", by.reason()));
    Workflow.await(() -> toNotify.isEmpty() && toJournal.isEmpty());
    return session();
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
