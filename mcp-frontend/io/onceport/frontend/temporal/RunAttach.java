package io.onceport.frontend.temporal;

import static io.onceport.frontend.temporal.TemporalExecutionGateway.BUSY_BUDGET;
import static io.onceport.frontend.temporal.TemporalExecutionGateway.CLOCK_MARGIN;

import io.onceport.frontend.gateway.CallPreparation;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.PreparedCall;
import io.onceport.frontend.gateway.ToolCall;
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
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.SearchAttributes;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way from one {@code tools/call} to the run it belongs to — the front end's half of "one
 * requested action, one execution": the call is bound to the run of its intent that was open at its
 * arrival, else it takes update-with-start (the call id as update id and start request id, no SDK
 * RPC retries), and after any doubt it finds out what its attempt did before trying again.
 * Identical calls arriving together share one attach ({@link IntentFlights}); a call that may start
 * its run and whose send this process's worker makes is answered in band ({@link InProcessAnswers}).
 * Split from {@link TemporalExecutionGateway}, which keeps everything addressed by execution id.
 */
final class RunAttach {
  private static final Logger LOG = LoggerFactory.getLogger(RunAttach.class);
  private static final java.security.SecureRandom IDS = new java.security.SecureRandom();

  /** A call's attach: its result, whether it led its flight, and when its evidence was recorded. */
  record Attached(CallResult result, boolean leader, java.util.concurrent.CompletableFuture<Void> evidence, int position) {}

  private final WorkflowClient once;
  private final ExecutionDirectory directory;
  private final String taskQueue;
  private final CallPreparation preparation;
  private final String frontEnd;
  private final io.onceport.frontend.ops.Metrics metrics;
  private final PayloadBudget budget;
  private final OpenRuns openRuns;
  private final IntentFlights flights;
  private final ExecutionWatches watches;
  private final SignalOutbox outbox;
  private final InProcessAnswers answers;
  private final InBandAttach inBand;
  /** Attaches in flight to an open run, by run id: their callers are answered through the engine. */
  private final java.util.concurrent.ConcurrentHashMap<String, Integer> attaching = new java.util.concurrent.ConcurrentHashMap<>();

  /** @param once a client whose RPCs are not retried by the SDK (a retried update-with-start could start a second run) */
  RunAttach(WorkflowClient once, ExecutionDirectory directory, String taskQueue, CallPreparation preparation, String frontEnd,
      io.onceport.frontend.ops.Metrics metrics, PayloadBudget budget, OpenRuns openRuns, IntentFlights flights,
      ExecutionWatches watches, SignalOutbox outbox, InProcessAnswers answers) {
    this.once = once;
    this.directory = directory;
    this.taskQueue = taskQueue;
    this.preparation = preparation;
    this.frontEnd = frontEnd;
    this.metrics = metrics;
    this.budget = budget;
    this.openRuns = openRuns;
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
    // In band only for a call that may start its run: a call of an intent whose run this front end
    // knows open (a retry, a storm's later callers) waits in one shared attach, as before.
    boolean mayStart = openRuns.boundRun(prepared.workflowId(), call.receivedNanos()).isEmpty();
    return call.waitMillis() > 0 && mayStart && answers.answering()
        ? inBand.attach(call, prepared, callId) : attachJoined(call, prepared, callId, false);
  }

  /** Whether another call's attach to this run is in flight on this front end (it waits for the answer through the engine). */
  boolean attaching(String runId) {
    return attaching.containsKey(runId);
  }

  Attached attachJoined(ToolCall call, PreparedCall prepared, String callId, boolean untilSent) {
    Instant receivedAt = call.receivedAt();
    // The attach waits in the workflow for as long as the caller does (0 for streams and tasks): one
    // update answers a call that settles in time; callers of one intent with the same wait share it.
    long wait = Math.max(0, call.waitMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - call.receivedNanos()));
    AttachRequest request = new AttachRequest(
        callId, prepared.input().fingerprint(), call.jsonRpcId(), call.sessionId(), call.runId(), call.intentKey(),
        call.protocolVersion(), call.clientInfo(), call.remoteAddress(), frontEnd, receivedAt.toString(), wait, untilSent);
    budget.check(prepared.input(), request);
    // Calls share an attach only when they belong to the same run (the one open when each arrived).
    String bound = openRuns.boundRun(prepared.workflowId(), call.receivedNanos()).map(OpenRuns.Run::runId).orElse("-");
    String intent = prepared.workflowId() + "|" + prepared.input().fingerprint() + "|" + bound + "|"
        + (untilSent ? "sent" : call.waitMillis() > 0 ? "wait" : "now");
    IntentFlights.Joined joined = flights.join(intent, request, wait + BUSY_BUDGET.toMillis() + 30_000,
        r -> attachOnce(prepared, r, call.receivedNanos(), receivedAt));
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

  // ---- the attach: bound run, else update-with-start, and finding out after any doubt ----

  private ExecutionRecord attachOnce(PreparedCall prepared, AttachRequest request, long arrivalNanos, Instant arrival) {
    long deadline = System.nanoTime() + BUSY_BUDGET.toNanos();
    Optional<OpenRuns.Run> bound = openRuns.boundRun(prepared.workflowId(), arrivalNanos);
    if (bound.isPresent()) {
      OpenRuns.Run run = bound.get();
      Optional<ExecutionRecord> attached = attachToRun(run.location(), request, deadline);
      if (attached.isPresent()) {
        return attached.get();
      }
      // Closed by the time this call is processed. It was open when the call arrived if this front
      // end reported its delivery after the arrival, or if the engine says it closed after it.
      Optional<ExecutionRecord> answered = run.deliveredAfter(arrivalNanos)
          ? Optional.of(finalRecord(run.location()))
          : finalRecordIfOpenAt(run.location(), arrival);
      if (answered.isPresent()) {
        return answered.get();
      }
    }
    if (bound.isEmpty() && openRuns.mayHaveForgotten(arrivalNanos)) {
      // This call waited longer than a settled run is remembered: the run it belongs to may have
      // closed and been forgotten meanwhile. Ask the engine before starting a new run of the intent.
      Optional<ExecutionRecord> found = findOut(prepared, request, arrival, deadline, EngineFailures.Kind.UNKNOWN_FATE,
          new IllegalStateException("the run this call arrived during may have been forgotten"));
      if (found.isPresent()) {
        return found.get();
      }
    }
    return startOrAttach(prepared, request, arrivalNanos, arrival, deadline);
  }

  private ExecutionRecord startOrAttach(PreparedCall prepared, AttachRequest request, long arrivalNanos, Instant arrival,
      long deadline) {
    for (int attempt = 0; ; attempt++) {
      try {
        ExecutionRecord record = updateWithStart(prepared, request);
        openRuns.open(record.workflowId(), record.runId(), record.executionId(), System.nanoTime());
        return record;
      } catch (RuntimeException e) {
        EngineFailures.Kind kind = EngineFailures.classify(e);
        if (kind == EngineFailures.Kind.INTENT_KEY_MISMATCH) {
          throw EngineFailures.mismatch(e);
        }
        if (prepared.keyed() && kind == EngineFailures.Kind.ALREADY_STARTED) {
          return closedKeyedExecution(prepared, e);
        }
        LOG.debug("update-with-start of {} failed ({}): finding out what it did", prepared.workflowId(), EngineFailures.reason(e));
        Optional<ExecutionRecord> found = findOut(prepared, request, arrival, deadline, kind, e);
        if (found.isPresent()) {
          return found.get();
        }
        // Nothing of this call exists and no run of its intent was open when it arrived: sending
        // update-with-start again is still this call's first start.
        if (System.nanoTime() - deadline > 0) {
          throw EngineFailures.giveUp(kind, null, e);
        }
        pause(attempt, deadline);
      }
    }
  }

  /**
   * After an attempt whose effect is unknown: the run this call belongs to, if any. Empty only when
   * the intent has no run that was open when the call arrived or started after it.
   */
  private Optional<ExecutionRecord> findOut(PreparedCall prepared, AttachRequest request, Instant arrival, long deadline,
      EngineFailures.Kind kind, RuntimeException cause) {
    for (int attempt = 0; ; attempt++) {
      Optional<ExecutionDirectory.RunInfo> latest;
      try {
        latest = directory.describeRun(prepared.workflowId(), null);
      } catch (RuntimeException e) {
        if (System.nanoTime() - deadline > 0) {
          throw EngineFailures.giveUp(EngineFailures.classify(e), null, e);
        }
        pause(attempt, deadline);
        continue;
      }
      if (latest.isEmpty()) {
        return Optional.empty();
      }
      ExecutionDirectory.RunInfo run = latest.get();
      if (run.startedAt() != null && run.startedAt().isAfter(arrival.plus(CLOCK_MARGIN))) {
        // The latest run started after this call arrived: an older run may have been open then.
        Optional<ExecutionRecord> older = olderRunOpenAt(prepared.workflowId(), run.location().runId(), arrival);
        if (older.isPresent()) {
          return older;
        }
      }
      if (run.open()) {
        Optional<ExecutionRecord> attached = attachToRun(run.location(), request, deadline);
        if (attached.isPresent()) {
          openRuns.open(run.location().workflowId(), run.location().runId(), attached.get().executionId(), System.nanoTime());
          return attached;
        }
        if (System.nanoTime() - deadline > 0) {
          throw EngineFailures.giveUp(kind, run.location().executionId(), cause);
        }
        pause(attempt, deadline);
        continue; // it closed meanwhile: look again
      }
      ExecutionRecord last = finalRecord(run.location());
      boolean ours = last.calls().stream().anyMatch(c -> c.callId().equals(request.callId()));
      if (ours || run.closedAt() == null || !run.closedAt().isBefore(arrival.minus(CLOCK_MARGIN))) {
        return Optional.of(last); // open when the call arrived (or started after it): its answer is this call's
      }
      return Optional.empty(); // closed before the call arrived: a previous intent
    }
  }

  private Optional<ExecutionRecord> olderRunOpenAt(String workflowId, String newerRunId, Instant arrival) {
    try {
      for (ExecutionDirectory.RunInfo r : directory.runs(workflowId, 10)) {
        if (r.open() || r.location().runId().equals(newerRunId) || r.startedAt() == null || r.closedAt() == null) {
          continue;
        }
        if (!r.startedAt().isAfter(arrival.plus(CLOCK_MARGIN)) && !r.closedAt().isBefore(arrival.minus(CLOCK_MARGIN))) {
          return Optional.of(finalRecord(r.location()));
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("could not list the runs of {}: {}", workflowId, EngineFailures.reason(e));
    }
    return Optional.empty();
  }

  /** The final record of a closed run, if it closed after {@code arrival} (the run was open when the call arrived). */
  private Optional<ExecutionRecord> finalRecordIfOpenAt(ExecutionLocation location, Instant arrival) {
    Optional<ExecutionDirectory.RunInfo> info = directory.describeRun(location.workflowId(), location.runId());
    if (info.isEmpty() || info.get().open()) {
      return Optional.empty();
    }
    Instant closedAt = info.get().closedAt();
    if (closedAt != null && closedAt.isBefore(arrival.minus(CLOCK_MARGIN))) {
      return Optional.empty();
    }
    return Optional.of(finalRecord(location));
  }

  private ExecutionRecord finalRecord(ExecutionLocation location) {
    ExecutionRecord record = directory.record(location);
    watches.closed(location(record), record);
    openRuns.closed(location.workflowId(), location.runId(), System.nanoTime());
    return record;
  }

  /**
   * Attaches to one run by run id, the call id as the update id. Empty when the run is closed.
   * Retries on the same run when the engine turns the attach away or does not answer.
   */
  private Optional<ExecutionRecord> attachToRun(ExecutionLocation location, AttachRequest request, long deadline) {
    for (int attempt = 0; ; attempt++) {
      try {
        WorkflowStub stub = once.newUntypedWorkflowStub(location.workflowId(), Optional.of(location.runId()), Optional.of(ToolExecutionWorkflow.TYPE));
        attaching.merge(location.runId(), 1, Integer::sum);
        try {
          return Optional.of(stub.startUpdate(attachOptions(request), request).getResult());
        } finally {
          attaching.computeIfPresent(location.runId(), (k, n) -> n > 1 ? n - 1 : null);
        }
      } catch (RuntimeException e) {
        EngineFailures.Kind kind = EngineFailures.classify(e);
        switch (kind) {
          case RUN_CLOSED -> {
            return Optional.empty();
          }
          case INTENT_KEY_MISMATCH -> throw EngineFailures.mismatch(e);
          default -> {
            if (kind == EngineFailures.Kind.UNKNOWN_FATE && !isOpen(location)) {
              return Optional.empty();
            }
            if (System.nanoTime() - deadline > 0) {
              throw EngineFailures.giveUp(kind, location.executionId() != null ? location.executionId() : executionIdOf(location), e);
            }
            LOG.debug("attach to {} turned away ({}); retrying on the same run", location.workflowId(), EngineFailures.reason(e));
            pause(attempt, deadline);
          }
        }
      }
    }
  }

  private ExecutionRecord updateWithStart(PreparedCall prepared, AttachRequest request) {
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
        .setMemo(java.util.Map.of(ExecutionSearchAttributes.MEMO_SUMMARY,
            ExecutionSearchAttributes.requestSummary(prepared.input().tool(), prepared.input().shownArguments())))
        .setWorkflowId(prepared.workflowId())
        .setTaskQueue(taskQueue)
        .setRequestId(request.callId())
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .setWorkflowIdReusePolicy(prepared.keyed()
            ? WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
            : WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .build();
    WorkflowStub stub = once.newUntypedWorkflowStub(ToolExecutionWorkflow.TYPE, options);
    return stub.executeUpdateWithStart(attachOptions(request), new Object[] {request},
        new Object[] {prepared.input().withExecutionId(executionId)});
  }

  private static UpdateOptions<ExecutionRecord> attachOptions(AttachRequest request) {
    return UpdateOptions.newBuilder(ExecutionRecord.class)
        .setUpdateName("attach")
        .setUpdateId(request.callId())
        .setWaitForStage(WorkflowUpdateStage.COMPLETED)
        .build();
  }

  private boolean isOpen(ExecutionLocation location) {
    try {
      return directory.describeRun(location.workflowId(), location.runId()).map(ExecutionDirectory.RunInfo::open).orElse(false);
    } catch (RuntimeException e) {
      return true; // cannot tell: keep trying the same run
    }
  }

  private String executionIdOf(ExecutionLocation location) {
    try {
      return directory.describeRun(location.workflowId(), location.runId()).map(r -> r.location().executionId()).orElse(null);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private ExecutionRecord closedKeyedExecution(PreparedCall prepared, RuntimeException cause) {
    ExecutionRecord record = directory.record(directory.latestRun(prepared.workflowId()));
    if (!record.fingerprint().equals(prepared.input().fingerprint())) {
      throw new GatewayException(GatewayException.Kind.INTENT_KEY_MISMATCH,
          ExecutionSearchAttributes.INTENT_KEY_MISMATCH_PREFIX + "intent key " + prepared.input().intentKey() + " was already used by execution " + record.executionId()
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
