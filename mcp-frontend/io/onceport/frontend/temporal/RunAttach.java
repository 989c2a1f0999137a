package io.onceport.frontend.temporal;

import io.onceport.frontend.gateway.CallPreparation;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.PreparedCall;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.frontend.ops.Metrics;
import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.workflow.execution.Ids;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.SearchAttributes;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way from one {@code tools/call} to its execution: <b>one update-with-start</b> of the intent's
 * workflow id with {@code USE_EXISTING}, the call id as the start's request id and as the update id.
 * The first call of an intent starts the run; every other call that reaches the run while it is open
 * attaches to it. Whether a call is a retry of an execution is decided there, by the workflow and
 * Temporal's own deduplication, not by bookkeeping in this process:
 *
 * <ul>
 *   <li>A settled run stays open for its tool's late-arrival tail ({@code replay.dedupe_after_delivery},
 *       never shorter than {@link #ATTACH_BUDGET}), so a retry of a call — also one whose first
 *       attempt reached a front end that then died — meets the run of its intent.
 *   <li>After a failure whose effect is unknown (a timeout, a lost connection, the engine turning the
 *       request away) the same update-with-start is sent again, with the same request id and update
 *       id: an attempt that did land is answered by Temporal's deduplication, not recorded twice.
 *       This is safe only while the run an earlier attempt reached is still open, so no attempt is
 *       sent later than {@link #ATTACH_BUDGET} after the call arrived, and the workflow keeps a run
 *       open at least that long after it accepted an attach.
 *   <li>A run past its tail refuses new attaches (not admitted, so nothing is recorded) and closes
 *       once the retries of the attaches it took can no longer come; a call it refused waits for the
 *       close and starts the intent's next run: after the tail an identical call is a new intent.
 * </ul>
 *
 * <p>The update is started with {@link WorkflowUpdateStage#ACCEPTED}: the budget covers only getting
 * the call onto its run; waiting for its answer ({@link WorkflowUpdateHandle#getResult} polls the update
 * by id) can never start anything.
 *
 * <p><b>Storm coalescing.</b> Temporal admits at most 10 in-flight updates per workflow execution:
 * a storm of identical calls must not each send an update. Identical calls arriving together on
 * this front end share one ({@link IntentFlights}); the followers' calls are recorded on the run in
 * one signal afterwards. A call in a flight whose front end dies before that signal is on no record;
 * its client's retry meets the run within the tail.
 */
final class RunAttach {
  private static final Logger LOG = LoggerFactory.getLogger(RunAttach.class);
  private static final SecureRandom IDS = new SecureRandom();

  /**
   * How long after a call arrived this front end may still send an attempt of its update-with-start:
   * the workflow keeps a run open {@link ToolExecutionWorkflow#ATTACH_RETRY_GRACE} after it accepted
   * an attach, and this leaves 10 s of it for an attempt in transit, so a repeated attempt always
   * finds the run the first one reached.
   */
  static final Duration ATTACH_BUDGET = ToolExecutionWorkflow.ATTACH_RETRY_GRACE.minusSeconds(10);

  /** A call's attach: its result, whether it led its flight, and when its evidence was recorded. */
  record Attached(CallResult result, boolean leader, CompletableFuture<Void> evidence, int position) {}

  private final WorkflowClient once;
  private final ExecutionDirectory directory;
  private final String taskQueue;
  private final CallPreparation preparation;
  private final String frontEnd;
  private final Metrics metrics;
  private final PayloadBudget budget;
  private final IntentFlights flights;
  private final ExecutionWatches watches;
  private final SignalOutbox outbox;
  private final InBandAttach inBand;
  private final InBandAnswers answers;
  /** Attaches in flight to a run, by run id: their callers are answered through the engine. */
  private final ConcurrentHashMap<String, Integer> attaching = new ConcurrentHashMap<>();

  /** @param once a client whose RPCs are not retried by the SDK: this class decides every repeated attempt */
  RunAttach(WorkflowClient once, ExecutionDirectory directory, String taskQueue, CallPreparation preparation, String frontEnd,
      Metrics metrics, PayloadBudget budget, IntentFlights flights, ExecutionWatches watches, SignalOutbox outbox,
      InBandAnswers answers) {
    this.once = once;
    this.directory = directory;
    this.taskQueue = taskQueue;
    this.preparation = preparation;
    this.frontEnd = frontEnd;
    this.metrics = metrics;
    this.budget = budget;
    this.flights = flights;
    this.watches = watches;
    this.outbox = outbox;
    this.answers = answers;
    this.inBand = new InBandAttach(this, answers, directory, watches);
  }

  /** In band when a worker of this task queue runs in this process and the caller waits; through the engine otherwise. */
  Attached attachFor(ToolCall call) {
    String callId = "call_" + UUID.randomUUID();
    PreparedCall prepared = preparation.prepare(call);
    return call.waitMillis() > 0 && answers.answering()
        ? inBand.attach(call, prepared, callId) : attachJoined(call, prepared, callId, false);
  }

  /** Whether another call's attach to this run is in flight on this front end (it waits for the answer through the engine). */
  boolean attaching(String runId) {
    return attaching.containsKey(runId);
  }

  Attached attachJoined(ToolCall call, PreparedCall prepared, String callId, boolean untilSent) {
    // The attach waits in the workflow for as long as the caller does (0 for streams and tasks): one
    // update answers a call that settles in time; callers of one intent with the same wait share it.
    long wait = Math.max(0, call.waitMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - call.receivedNanos()));
    AttachRequest request = new AttachRequest(
        callId, prepared.input().fingerprint(), call.jsonRpcId(), call.sessionId(), call.runId(), call.intentKey(),
        call.protocolVersion(), call.clientInfo(), call.remoteAddress(), frontEnd, call.receivedAt().toString(), wait, untilSent);
    budget.check(prepared.input(), request);
    String intent = prepared.workflowId() + "|" + prepared.input().fingerprint() + "|"
        + (untilSent ? "sent" : call.waitMillis() > 0 ? "wait" : "now");
    IntentFlights.Joined joined = flights.join(intent, request, wait + ATTACH_BUDGET.toMillis() + 30_000,
        r -> attach(prepared, r, call.receivedNanos()));
    ExecutionRecord record = joined.record();
    ExecutionLocation location = location(record);
    directory.remember(record);
    watches.offer(location, record);
    if (joined.leader()) {
      joined.evidenceSent(joined.followers().isEmpty() ? List.of() : outbox.recordEach(location, joined.followers()));
    }
    boolean attached = !joined.leader() || isRetry(record, callId);
    if (attached && metrics != null) {
      metrics.attached(record.tool());
    }
    return new Attached(new CallResult(record, callId, attached), joined.leader(), joined.evidence(), joined.position());
  }

  /**
   * Gets the call onto the run of its intent and waits for the update's answer. Every attempt is the
   * same update-with-start (same request id, same update id); a run past its tail makes the call wait
   * for the run's close and start the next run.
   */
  private ExecutionRecord attach(PreparedCall prepared, AttachRequest request, long arrivalNanos) {
    long deadline = arrivalNanos + ATTACH_BUDGET.toNanos();
    EngineFailures.Kind last = EngineFailures.Kind.UNKNOWN_FATE;
    RuntimeException cause = null;
    for (int attempt = 0; ; attempt++) {
      if (attempt > 0 && System.nanoTime() - deadline > 0) {
        throw EngineFailures.giveUp(last, null, cause);
      }
      WorkflowUpdateHandle<ExecutionRecord> handle;
      try {
        handle = startUpdateWithStart(prepared, request);
      } catch (RuntimeException e) {
        last = EngineFailures.classify(e);
        cause = e;
        switch (last) {
          case INTENT_KEY_MISMATCH -> throw EngineFailures.mismatch(e);
          case ALREADY_STARTED -> {
            if (prepared.keyed()) {
              return closedKeyedExecution(prepared, e);
            }
          }
          case RUN_CLOSING -> {
            // Refused, so no attempt of this call is on any run (an attempt that had landed would have
            // been answered by its update id instead): once the run closed, this call starts the next.
            awaitClosed(prepared.workflowId(), System.nanoTime() + ATTACH_BUDGET.toNanos());
            deadline = System.nanoTime() + ATTACH_BUDGET.toNanos();
            continue;
          }
          default -> {
            if (attempt > 0) {
              // The same request failed again: an earlier attempt may have landed and the engine turn
              // the repeat away with an error (the embedded test server does); ask for the update by id.
              ExecutionRecord landed = landed(prepared.workflowId(), request.callId(), deadline);
              if (landed != null) {
                return landed;
              }
            }
            LOG.debug("attach of {} to {} not confirmed ({}); sending it again", request.callId(),
                prepared.workflowId(), EngineFailures.reason(e));
          }
        }
        pause(attempt, deadline);
        continue;
      }
      return result(handle, prepared.workflowId());
    }
  }

  /**
   * The answer of an accepted attach: polls the update by its id, which never starts anything. A poll
   * that fails is repeated; after a few failures the run's record is read instead.
   */
  private ExecutionRecord result(WorkflowUpdateHandle<ExecutionRecord> handle, String workflowId) {
    String runId = handle.getExecution().getRunId();
    attaching.merge(runId, 1, Integer::sum);
    try {
      for (int attempt = 0; ; attempt++) {
        try {
          return handle.getResult();
        } catch (RuntimeException e) {
          EngineFailures.Kind kind = EngineFailures.classify(e);
          if (kind == EngineFailures.Kind.INTENT_KEY_MISMATCH) {
            throw EngineFailures.mismatch(e);
          }
          if (attempt >= RESULT_POLLS) {
            LOG.debug("the answer of {} could not be polled ({}); reading its run", handle.getId(), EngineFailures.reason(e));
            return directory.record(new ExecutionLocation(null, workflowId, runId));
          }
          pause(attempt, System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
        }
      }
    } finally {
      attaching.computeIfPresent(runId, (k, n) -> n > 1 ? n - 1 : null);
    }
  }

  /**
   * The answer of this call's update if an earlier attempt landed on the intent's latest run, or
   * null when it did not (or that cannot be told before {@code deadline}): polling an update by its
   * id never starts or records anything.
   */
  private ExecutionRecord landed(String workflowId, String updateId, long deadline) {
    try {
      String runId = directory.latestRun(workflowId).runId();
      WorkflowUpdateHandle<ExecutionRecord> handle = once.newUntypedWorkflowStub(workflowId, java.util.Optional.of(runId),
          java.util.Optional.empty()).getUpdateHandle(updateId, ExecutionRecord.class);
      long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
      return handle.getResultAsync().get(left, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      return null;
    }
  }

  /** Polls of an accepted attach's answer before its run's record is read instead. */
  private static final int RESULT_POLLS = 3;

  private WorkflowUpdateHandle<ExecutionRecord> startUpdateWithStart(PreparedCall prepared, AttachRequest request) {
    // This front end chooses the id of a run it may start and publishes it with the start request,
    // with the memo's request summary, so the run writes no search attributes or memo of its own
    // until its state changes; ignored when the call attaches to a run already open.
    String executionId = Ids.executionId(System.currentTimeMillis(), IDS);
    WorkflowOptions options = WorkflowOptions.newBuilder()
        .setTypedSearchAttributes(SearchAttributes.newBuilder()
            .set(ExecutionSearchAttributes.SA_EXECUTION_ID, executionId)
            .set(ExecutionSearchAttributes.SA_FINGERPRINT, prepared.input().fingerprint())
            .set(ExecutionSearchAttributes.SA_TOOL, prepared.input().tool())
            .set(ExecutionSearchAttributes.SA_ACTOR, prepared.input().actor())
            .set(ExecutionSearchAttributes.SA_STATE, ExecutionSearchAttributes.STATE_AT_START)
            .build())
        .setMemo(Map.of(ExecutionSearchAttributes.MEMO_SUMMARY,
            ExecutionSearchAttributes.requestSummary(prepared.input().tool(), prepared.input().shownArguments())))
        .setStaticSummary(ExecutionSearchAttributes.startSummary(prepared.input()))
        .setWorkflowId(prepared.workflowId())
        .setTaskQueue(taskQueue)
        .setRequestId(request.callId())
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .setWorkflowIdReusePolicy(prepared.keyed()
            ? WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
            : WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .build();
    WorkflowStub stub = once.newUntypedWorkflowStub(ToolExecutionWorkflow.TYPE, options);
    UpdateOptions<ExecutionRecord> update = UpdateOptions.newBuilder(ExecutionRecord.class)
        .setUpdateName("attach")
        .setUpdateId(request.callId())
        .setWaitForStage(WorkflowUpdateStage.ACCEPTED)
        .build();
    return stub.startUpdateWithStart(update, new Object[] {request}, new Object[] {prepared.input().withExecutionId(executionId)});
  }

  /** Waits (within the call's budget) until the run that refused the call as past its tail has closed. */
  private void awaitClosed(String workflowId, long deadline) {
    for (int attempt = 0; System.nanoTime() - deadline < 0; attempt++) {
      try {
        if (!directory.latestRunOpen(workflowId)) {
          return;
        }
      } catch (RuntimeException e) {
        LOG.debug("could not describe {}: {}", workflowId, EngineFailures.reason(e));
      }
      pause(attempt, deadline);
    }
  }

  private ExecutionRecord closedKeyedExecution(PreparedCall prepared, RuntimeException cause) {
    ExecutionRecord record = directory.record(directory.latestRun(prepared.workflowId()));
    if (!record.fingerprint().equals(prepared.input().fingerprint())) {
      throw new GatewayException(GatewayException.Kind.INTENT_KEY_MISMATCH,
          ExecutionSearchAttributes.INTENT_KEY_MISMATCH_PREFIX + "intent key " + prepared.input().intentKey()
              + " was already used by execution " + record.executionId()
              + " for a different request; use a new key for a new intent", cause);
    }
    return record;
  }

  private static void pause(int attempt, long deadline) {
    long millis = Math.min(2000, 50L << Math.min(attempt, 5));
    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    try {
      Thread.sleep(Math.max(10, Math.min(millis, left)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GatewayException(GatewayException.Kind.UNAVAILABLE, "interrupted while attaching", e);
    }
  }

  private static boolean isRetry(ExecutionRecord record, String callId) {
    for (AttachedCall c : record.calls()) {
      if (c.callId().equals(callId)) {
        return c.retry();
      }
    }
    return true;
  }

  static ExecutionLocation location(ExecutionRecord record) {
    return new ExecutionLocation(record.executionId(), record.workflowId(), record.runId());
  }
}
