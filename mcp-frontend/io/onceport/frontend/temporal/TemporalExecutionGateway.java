package io.onceport.frontend.temporal;

import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.frontend.gateway.CallPreparation;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.frontend.ops.Metrics;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.RpcRetryOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The execution layer on Temporal. A call becomes one update-with-start of its intent's workflow
 * id ({@link RunAttach}): the first call starts the execution, every call that reaches the run while
 * it is open attaches to it, and the workflow keeps a settled run open for its late-arrival tail, so
 * whether a call is a retry is decided there and by Temporal's deduplication (request id, update id),
 * not here. Everything else is addressed by execution id: find, wait, delivery reports, cancel.
 *
 * <p>Fingerprint-matched intents use {@code ALLOW_DUPLICATE}: once an execution's run closed, an
 * identical call is a new intent. Keyed intents use {@code REJECT_DUPLICATE}: the same key keeps
 * answering with its execution for as long as Temporal retains the closed run.
 *
 * <p>State kept here is bounded caches of what Temporal holds (where executions live, their latest
 * records; docs/reference.md, "Front-end memory and threads"); forgetting any of it costs a look-up,
 * never a second execution.
 */
public final class TemporalExecutionGateway implements ExecutionGateway, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TemporalExecutionGateway.class);
  /** How long one shared {@code awaitChange} waits in the workflow. */
  static final Duration WATCH_POLL = Duration.ofSeconds(20);

  private final TemporalConnection connection;
  private final ExecutionDirectory directory;
  private final CallPreparation preparation;
  private final WorkflowServiceStubs onceStubs;
  private final IntentFlights flights = new IntentFlights();
  private final ExecutorService background;
  private final ExecutionWatches watches;
  private final SignalOutbox outbox;
  /** Delivery reports on their way (one signal each): an orderly close waits for them. */
  private final Set<CompletableFuture<Void>> reporting = ConcurrentHashMap.newKeySet();
  private final InBandAnswers answers;
  private final RunAttach attaches;

  /**
   * @param metrics counts attached calls (duplicates suppressed), or null
   * @param answers where a worker in this process hands answers over, or {@link InBandAnswers#NONE}
   */
  public TemporalExecutionGateway(TemporalConnection connection, ExecutionDirectory directory, String taskQueue,
      CallPreparation preparation, String frontEnd, Metrics metrics, InBandAnswers answers) {
    this.connection = connection;
    this.directory = directory;
    this.preparation = preparation;
    this.answers = Objects.requireNonNull(answers, "answers == null");
    // The attach path without the SDK's own RPC retries: a retried update-with-start after the first
    // run closed would start a second one. This gateway retries itself, after finding out.
    WorkflowServiceStubsOptions base = connection.stubs().getOptions();
    this.onceStubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder(base)
        .setTarget(null)
        .setSslContext(null) // the raw channel below carries the connection's TLS; its API key and metadata are kept
        .setEnableHttps(false)
        .setChannel(connection.stubs().getRawChannel())
        .setRpcRetryOptions(RpcRetryOptions.newBuilder().setMaximumAttempts(1).validateBuildWithDefaults())
        .build());
    WorkflowClient once = WorkflowClient.newInstance(onceStubs, connection.client().getOptions());
    AtomicInteger threads = new AtomicInteger();
    this.background = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "onceport-gateway-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.watches = new ExecutionWatches(
        (location, afterVersion, waitMillis) -> typed(location).awaitChange(afterVersion, waitMillis),
        directory::record, background, WATCH_POLL, System::nanoTime);
    this.outbox = new SignalOutbox((location, calls) -> typed(location).recordCalls(calls), background);
    // PayloadBudget: refuses, before anything is started, a call whose input Temporal could not take.
    this.attaches = new RunAttach(once, directory, taskQueue, preparation, frontEnd, metrics, PayloadBudget.of(connection),
        flights, watches, outbox, answers);
  }

  @Override
  public List<ToolContract> tools() {
    return preparation.tools();
  }

  /**
   * {@link #attach}, then waits on the shared watch for whatever is left of the caller's wait, until
   * the execution settles or waits for an operator (then the caller is told at once). A
   * caller that shared another's attach gets a record that shows its own call (once its evidence
   * was recorded; bounded, best effort) if the record will itemize it: in a storm, the callers
   * beyond the first {@link #SHOWN_CALLS} are counted, not shown, and are answered at once.
   */
  @Override
  public CallResult call(ToolCall call) {
    RunAttach.Attached joined = attaches.attachFor(call);
    CallResult attached = joined.result();
    ExecutionRecord record = attached.record();
    if (!joined.leader() && !hasCall(record, attached.callId()) && record.calls().size() + joined.position() <= SHOWN_CALLS) {
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

  private ExecutionRecord withOwnCall(ExecutionRecord record, String callId, CompletableFuture<Void> evidence) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    try {
      evidence.get(2, TimeUnit.SECONDS);
    } catch (Exception e) {
      return record;
    }
    ExecutionRecord current = record;
    while (!hasCall(current, callId) && current.calls().size() < SHOWN_CALLS && System.nanoTime() - deadline < 0) {
      current = awaitChange(current.executionId(), current.version(), Duration.ofNanos(deadline - System.nanoTime()));
    }
    return hasCall(current, callId) ? current : record;
  }

  /** Settled, or waiting for an operator: what a caller can be told now (as the workflow's attach answers). */
  static boolean hasAnswer(ExecutionRecord record) {
    return record.isSettled() || record.state() == ExecutionState.AWAITING_APPROVAL
        || record.state() == ExecutionState.AWAITING_SESSION_AUTHORIZATION;
  }

  private static boolean hasCall(ExecutionRecord record, String callId) {
    return record.calls().stream().anyMatch(c -> c.callId().equals(callId));
  }

  @Override
  public CallResult attach(ToolCall call) {
    return attaches.attachFor(call).result();
  }

  @Override
  public boolean answersInBand() {
    return answers.answering();
  }

  // ---- everything else goes to the run an execution id names ----

  @Override
  public Optional<ExecutionRecord> find(String executionId) {
    // An answer handed over in band is on this front end before the run records it (within the
    // delivery grace): what this front end tells is never older than what it answered.
    return directory.locate(executionId).map(directory::record).map(r -> {
      ExecutionRecord known = watches.latest(executionId);
      return known != null && known.runId().equals(r.runId()) && known.version() > r.version() ? known : r;
    });
  }

  @Override
  public ExecutionRecord awaitChange(String executionId, long afterVersion, Duration wait) {
    return watches.await(locate(executionId), afterVersion, wait);
  }

  @Override
  public void reportDelivery(String executionId, DeliveryReport report) {
    try {
      send(executionId, report).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      LOG.debug("delivery report for {} not recorded: {}", executionId, EngineFailures.reason(e.getCause()));
    } catch (TimeoutException e) {
      LOG.warn("delivery report for {} still not sent after 30 s", executionId);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void reportDeliveryLater(String executionId, DeliveryReport report) {
    send(executionId, report);
  }

  private CompletableFuture<Void> send(String executionId, DeliveryReport report) {
    ExecutionLocation location = locate(executionId);
    directory.delivered(executionId);
    if (answers.report(report)) {
      return CompletableFuture.completedFuture(null); // the send that handed it over took it
    }
    CompletableFuture<Void> signal = CompletableFuture.runAsync(() -> typed(location).reportDelivery(report), background);
    reporting.add(signal);
    signal.whenComplete((v, e) -> reporting.remove(signal));
    return signal;
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
    for (ExecutionLocation location : directory.list(actor, limit)) {
      out.add(directory.record(location));
    }
    return out;
  }

  /** Sizes of the bounded registries, each with how many of its entries are settled (the bench's memory probe). */
  public String registrySizes() {
    return "watches=" + watches.size()
        + " (settled " + watches.settledSize() + ") locations=" + directory.cachedLocations()
        + " (settled " + directory.settledLocations() + ") flights=" + flights.inFlight();
  }

  /** Sends what is still owed to runs (bounded), then stops the background threads. */
  @Override
  public void close() {
    outbox.flush(5_000);
    try {
      CompletableFuture.allOf(reporting.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      LOG.debug("delivery reports still unsent at close: {}", reporting.size());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
