package io.onceport.frontend.temporal;

import io.onceport.frontend.gateway.CallPreparation;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.PreparedCall;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.serviceclient.RpcRetryOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The execution layer on Temporal. A call is bound to the run of its intent that is open when it
 * arrives and attached to that run by run id; a call for an intent with no run known open is an
 * update-with-start of the intent's workflow id with {@code USE_EXISTING}: the first call starts the
 * execution, a duplicate attaches to it.
 *
 * <p><b>No internal path starts a second execution.</b> The attach uses the call id as the update id
 * (and as the start's request id) and is sent without the SDK's own RPC retries. When an attempt
 * fails in a way that leaves its effect unknown (a timeout, a lost connection, the run closing under
 * it, the engine turning it away) the gateway finds out before doing anything that could start a
 * run: the intent's latest run — open: attach to it by run id (the same update id, so an attach that
 * did land is not recorded twice); closed after the call arrived: answer from its final record;
 * closed before: nothing of this call exists yet, and only then is update-with-start sent again.
 *
 * <p><b>Admission is not a reason to start again.</b> Callers of one intent on this front end share
 * one attach ({@link IntentFlights}) and one waiter per execution ({@link ExecutionWatches}); an
 * attach the engine turns away is retried on the same run, and after {@link #BUSY_BUDGET} answered
 * as {@link GatewayException.Kind#BUSY} naming the execution. A coalesced attach answers all its
 * callers with one record, never the final result times the number of callers (which exceeded the
 * 4 MiB gRPC limit when every caller had its own attach waiting).
 *
 * <p>Fingerprint-matched intents use {@code ALLOW_DUPLICATE}: once an execution delivered its result
 * and closed, an identical call is a new intent. Keyed intents use {@code REJECT_DUPLICATE}: the
 * same key keeps answering with its execution for as long as Temporal retains the closed run.
 *
 * <p>State kept here is bounded (see README, "Front-end memory and threads"): where executions live
 * and their latest records (caches of what Temporal holds), and which run of each intent this front
 * end knows to be open and when it reported its delivery — what decides whether a late call still
 * belongs to a run. Forgetting it errs toward update-with-start, which attaches while the run is open.
 */
public final class TemporalExecutionGateway implements ExecutionGateway, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TemporalExecutionGateway.class);
  /** How long a call keeps trying to attach when the engine turns it away or does not answer. */
  static final Duration BUSY_BUDGET = Duration.ofSeconds(20);
  /** Clock skew allowed between this front end and the engine when comparing arrival and close times. */
  static final Duration CLOCK_MARGIN = Duration.ofSeconds(1);
  /** How long one shared {@code awaitChange} waits in the workflow. */
  static final Duration WATCH_POLL = Duration.ofSeconds(20);

  private final TemporalConnection connection;
  private final ExecutionDirectory directory;
  private final String taskQueue;
  private final CallPreparation preparation;
  private final String frontEnd;
  private final io.onceport.frontend.ops.Metrics metrics;
  /** Refuses, before anything is started, a call whose input Temporal could not take. */
  private final PayloadBudget budget;
  private final WorkflowServiceStubs onceStubs;
  private final WorkflowClient once;
  private final OpenRuns openRuns = new OpenRuns();
  private final IntentFlights flights = new IntentFlights();
  private final ExecutorService background;
  private final ExecutionWatches watches;
  private final SignalOutbox outbox;

  public TemporalExecutionGateway(
      TemporalConnection connection, ExecutionDirectory directory, String taskQueue, CallPreparation preparation, String frontEnd) {
    this(connection, directory, taskQueue, preparation, frontEnd, null);
  }

  /** @param metrics counts attached calls (duplicates suppressed), or null */
  public TemporalExecutionGateway(TemporalConnection connection, ExecutionDirectory directory, String taskQueue,
      CallPreparation preparation, String frontEnd, io.onceport.frontend.ops.Metrics metrics) {
    this.metrics = metrics;
    this.connection = connection;
    this.directory = directory;
    this.taskQueue = taskQueue;
    this.preparation = preparation;
    this.frontEnd = frontEnd;
    this.budget = PayloadBudget.of(connection);
    // The attach path without the SDK's own RPC retries: a retried update-with-start after the first
    // run closed would start a second one. This gateway retries itself, after finding out.
    WorkflowServiceStubsOptions base = connection.stubs().getOptions();
    this.onceStubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder(base)
        .setTarget(null)
        .setChannel(connection.stubs().getRawChannel())
        .setRpcRetryOptions(RpcRetryOptions.newBuilder().setMaximumAttempts(1).validateBuildWithDefaults())
        .build());
    WorkflowClientOptions clientOptions = connection.client().getOptions();
    this.once = WorkflowClient.newInstance(onceStubs, clientOptions);
    AtomicInteger threads = new AtomicInteger();
    this.background = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "onceport-gateway-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.watches = new ExecutionWatches(
        (location, afterVersion, waitMillis) -> typed(location).awaitChange(afterVersion, waitMillis),
        directory::record, background, WATCH_POLL);
    this.outbox = new SignalOutbox(new SignalOutbox.Sender() {
      @Override
      public void recordCalls(ExecutionLocation location, List<AttachRequest> calls) {
        typed(location).recordCalls(calls);
      }

      @Override
      public void reportDeliveries(ExecutionLocation location, List<DeliveryReport> reports) {
        if (reports.size() == 1) {
          typed(location).reportDelivery(reports.get(0));
        } else {
          typed(location).reportDeliveries(reports);
        }
      }
    }, background);
  }

  @Override
  public List<ToolContract> tools() {
    return preparation.tools();
  }

  /**
   * {@link #attach}, then waits on the shared watch for whatever is left of the caller's wait, until
   * the execution settles or waits for an operator (then the caller is told at once). A
   * caller that shared another's attach gets a record that shows its own call (once its evidence
   * was recorded; bounded, best effort).
   */
  @Override
  public CallResult call(ToolCall call) {
    Attached joined = attachJoined(call);
    CallResult attached = joined.result();
    ExecutionRecord record = attached.record();
    if (!joined.leader() && !hasCall(record, attached.callId()) && record.calls().size() < SHOWN_CALLS) {
      record = withOwnCall(record, attached.callId(), joined.evidence());
    }
    long deadline = call.receivedNanos() + TimeUnit.MILLISECONDS.toNanos(call.waitMillis());
    while (!hasAnswer(record)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      record = awaitChange(record.executionId(), record.version(), Duration.ofNanos(left));
    }
    return new CallResult(record, attached.callId(), attached.attached());
  }

  /** The calls a record itemizes (the workflow counts the rest); beyond it a caller's own call is not shown. */
  private static final int SHOWN_CALLS = 200;

  private record Attached(CallResult result, boolean leader, java.util.concurrent.CompletableFuture<Void> evidence) {}

  private ExecutionRecord withOwnCall(ExecutionRecord record, String callId, java.util.concurrent.CompletableFuture<Void> evidence) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    try {
      evidence.get(2, TimeUnit.SECONDS);
    } catch (Exception e) {
      return record;
    }
    ExecutionRecord current = record;
    while (!hasCall(current, callId) && System.nanoTime() - deadline < 0) {
      current = awaitChange(current.executionId(), current.version(), Duration.ofNanos(deadline - System.nanoTime()));
    }
    return hasCall(current, callId) ? current : record;
  }

  /** Settled, or waiting for an operator: what a caller can be told now (as the workflow's attach answers). */
  static boolean hasAnswer(ExecutionRecord record) {
    return record.isSettled() || record.state() == io.onceport.workflow.execution.ExecutionState.AWAITING_APPROVAL
        || record.state() == io.onceport.workflow.execution.ExecutionState.AWAITING_SESSION_AUTHORIZATION;
  }

  private static boolean hasCall(ExecutionRecord record, String callId) {
    return record.calls().stream().anyMatch(c -> c.callId().equals(callId));
  }

  @Override
  public CallResult attach(ToolCall call) {
    return attachJoined(call).result();
  }

  private Attached attachJoined(ToolCall call) {
    PreparedCall prepared = preparation.prepare(call);
    String callId = "call_" + UUID.randomUUID();
    Instant receivedAt = call.receivedAt();
    // The attach waits in the workflow for as long as the caller does (0 for streams and tasks): one
    // update answers a call that settles in time; callers of one intent with the same wait share it.
    long wait = Math.max(0, call.waitMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - call.receivedNanos()));
    AttachRequest request = new AttachRequest(
        callId, prepared.input().fingerprint(), call.jsonRpcId(), call.sessionId(), call.runId(), call.intentKey(),
        call.protocolVersion(), call.clientInfo(), call.remoteAddress(), frontEnd, receivedAt.toString(), wait);
    budget.check(prepared.input(), request);
    // Calls share an attach only when they belong to the same run (the one open when each arrived).
    String bound = openRuns.boundRun(prepared.workflowId(), call.receivedNanos()).map(OpenRuns.Run::runId).orElse("-");
    String intent = prepared.workflowId() + "|" + prepared.input().fingerprint() + "|" + bound + "|"
        + (call.waitMillis() > 0 ? "wait" : "now");
    IntentFlights.Joined joined = flights.join(intent, request, wait + BUSY_BUDGET.toMillis() + 30_000,
        r -> attachOnce(prepared, r, call.receivedNanos(), receivedAt));
    ExecutionRecord record = joined.record();
    ExecutionLocation location = location(record);
    directory.remember(record);
    watches.offer(location, record);
    if (joined.leader()) {
      if (joined.followers().isEmpty()) {
        joined.evidence().complete(null);
      } else {
        outbox.recordCalls(location, joined.followers()).whenComplete((v, e) -> joined.evidence().complete(null));
      }
    }
    boolean attached = !joined.leader() || isRetry(record, callId);
    if (attached && metrics != null) {
      metrics.attached(record.tool());
    }
    return new Attached(new CallResult(record, callId, attached), joined.leader(), joined.evidence());
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
          throw mismatch(e);
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
          throw giveUp(kind, null, e);
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
          throw giveUp(EngineFailures.classify(e), null, e);
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
          throw giveUp(kind, run.location().executionId(), cause);
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
        ExecutionRecord record = stub.startUpdate(attachOptions(request), request).getResult();
        return Optional.of(record);
      } catch (RuntimeException e) {
        EngineFailures.Kind kind = EngineFailures.classify(e);
        switch (kind) {
          case RUN_CLOSED -> {
            return Optional.empty();
          }
          case INTENT_KEY_MISMATCH -> throw mismatch(e);
          default -> {
            if (kind == EngineFailures.Kind.UNKNOWN_FATE && !isOpen(location)) {
              return Optional.empty();
            }
            if (System.nanoTime() - deadline > 0) {
              throw giveUp(kind, location.executionId() != null ? location.executionId() : executionIdOf(location), e);
            }
            LOG.debug("attach to {} turned away ({}); retrying on the same run", location.workflowId(), EngineFailures.reason(e));
            pause(attempt, deadline);
          }
        }
      }
    }
  }

  private ExecutionRecord updateWithStart(PreparedCall prepared, AttachRequest request) {
    WorkflowOptions options = WorkflowOptions.newBuilder()
        .setWorkflowId(prepared.workflowId())
        .setTaskQueue(taskQueue)
        .setRequestId(request.callId())
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .setWorkflowIdReusePolicy(prepared.keyed()
            ? WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
            : WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .build();
    WorkflowStub stub = once.newUntypedWorkflowStub(ToolExecutionWorkflow.TYPE, options);
    return stub.executeUpdateWithStart(attachOptions(request), new Object[] {request}, new Object[] {prepared.input()});
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

  private static GatewayException giveUp(EngineFailures.Kind kind, String executionId, RuntimeException cause) {
    if (kind == EngineFailures.Kind.BUSY) {
      return new GatewayException(GatewayException.Kind.BUSY, "the execution engine is busy and turned this call away ("
          + EngineFailures.reason(cause) + ")", executionId, cause);
    }
    return new GatewayException(GatewayException.Kind.UNAVAILABLE,
        "could not reach the execution for this call: " + EngineFailures.reason(cause), executionId, cause);
  }

  private static GatewayException mismatch(RuntimeException e) {
    var failure = EngineFailures.applicationFailure(e);
    String message = failure != null ? failure.getOriginalMessage() : e.getMessage();
    return new GatewayException(GatewayException.Kind.INTENT_KEY_MISMATCH, message, e);
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

  private static ExecutionLocation location(ExecutionRecord record) {
    return new ExecutionLocation(record.executionId(), record.workflowId(), record.runId());
  }

  // ---- everything else goes to the run an execution id names ----

  @Override
  public Optional<ExecutionRecord> find(String executionId) {
    return directory.locate(executionId).map(directory::record);
  }

  @Override
  public ExecutionRecord awaitChange(String executionId, long afterVersion, Duration wait) {
    return watches.await(locate(executionId), afterVersion, wait);
  }

  @Override
  public void reportDelivery(String executionId, DeliveryReport report) {
    try {
      send(executionId, report).get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      LOG.debug("delivery report for {} not recorded: {}", executionId, EngineFailures.reason(e.getCause()));
    } catch (java.util.concurrent.TimeoutException e) {
      LOG.warn("delivery report for {} still not sent after 30 s", executionId);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void reportDeliveryLater(String executionId, DeliveryReport report) {
    send(executionId, report);
  }

  private java.util.concurrent.CompletableFuture<Void> send(String executionId, DeliveryReport report) {
    ExecutionLocation location = locate(executionId);
    if (report.delivered()) {
      // From now on an identical call that arrives is a new intent (unless the run is still open).
      openRuns.deliveryReported(location.workflowId(), location.runId(), System.nanoTime());
    }
    return outbox.reportDelivery(location, report);
  }

  @Override
  public ExecutionRecord cancel(String executionId, CancelRequest request) {
    ExecutionLocation location = locate(executionId);
    if (!directory.isOpen(location)) {
      return directory.record(location);
    }
    ExecutionRecord after = typed(location).cancel(request);
    watches.offer(location, after);
    return after;
  }

  @Override
  public List<ExecutionRecord> listByActor(String actor, int limit) {
    List<ExecutionRecord> out = new ArrayList<>();
    for (ExecutionLocation location : directory.list(null, actor, limit)) {
      out.add(directory.record(location));
    }
    return out;
  }

  /** Sizes of the bounded registries (for tests and diagnostics). */
  public String registrySizes() {
    return "openRuns=" + openRuns.size() + " watches=" + watches.size() + " locations=" + directory.cachedLocations()
        + " flights=" + flights.inFlight();
  }

  /** Sends what is still owed to runs (bounded), then stops the background threads. */
  @Override
  public void close() {
    outbox.flush(5_000);
    background.shutdownNow();
    onceStubs.shutdown();
  }

  private ExecutionLocation locate(String executionId) {
    return directory.locate(executionId).orElseThrow(() ->
        new GatewayException(GatewayException.Kind.NOT_FOUND, "no execution " + executionId));
  }

  private ToolExecutionWorkflow typed(ExecutionLocation location) {
    return connection.client().newWorkflowStub(ToolExecutionWorkflow.class, location.workflowId(), Optional.of(location.runId()));
  }
}
