package io.onceport.activity.dispatch;

import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.onceport.workflow.dispatch.AnswerPlan;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.HandedOver;
import io.onceport.workflow.execution.AnswerDesk;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.InBandAnswer;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.Sent;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyRequest;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.journal.JournalTransition;
import com.uber.m3.tally.Scope;
import java.util.List;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Routes each dispatch to the channel its contract names.
 *
 * <p>The channel runs on a helper thread while the activity thread heartbeats every
 * {@link #HEARTBEAT_INTERVAL} with the channel's current phase. A blocking network call therefore
 * never silences the heartbeat: if this worker dies mid-dispatch, Temporal notices through the
 * heartbeat timeout (seconds), not the start-to-close timeout, and the workflow's replay rules
 * decide what happens to a dispatch that may have been sent.
 *
 * <p>Long because: every channel's send, status query and verification check runs through this one
 * activity (heartbeats, the journal around a send, the in-band hand-over), so that no channel can
 * send without them.
 */
public final class DispatchActivitiesImpl implements DispatchActivities, AutoCloseable {
  static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  private final Map<ToolContract.Channel, DispatchChannel> channels;
  private final DispatchJournal journal;
  private final CredentialResolver credentials;
  /** How long a send that handed its answer over waits for the caller's delivery report (the grace is at most 30 s). */
  static final Duration HANDOVER_WAIT = Duration.ofSeconds(35);
  /** Heartbeats while waiting for that report: well inside the 15 s heartbeat timeout, and none within the default 1 s grace. */
  static final Duration HANDOVER_HEARTBEAT = Duration.ofSeconds(5);

  private final ExecutorService executor;
  private final AnswerDesk answers;
  private final ReportWaits reportWaits = new ReportWaits(HANDOVER_WAIT, HANDOVER_HEARTBEAT);

  public DispatchActivitiesImpl(
      Map<ToolContract.Channel, DispatchChannel> channels,
      DispatchJournal journal,
      CredentialResolver credentials) {
    this(channels, journal, credentials, AnswerDesk.NONE);
  }

  /** @param answers where a send hands its answer to a caller waiting in this process (a front end here) */
  public DispatchActivitiesImpl(
      Map<ToolContract.Channel, DispatchChannel> channels,
      DispatchJournal journal,
      CredentialResolver credentials,
      AnswerDesk answers) {
    this.answers = Objects.requireNonNull(answers, "answers == null");
    Objects.requireNonNull(channels, "channels == null");
    this.channels = channels.isEmpty() ? Map.of() : new EnumMap<>(channels);
    this.journal = Objects.requireNonNull(journal, "journal == null");
    this.credentials = Objects.requireNonNull(credentials, "credentials == null");
    AtomicInteger threads = new AtomicInteger();
    this.executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "onceport-dispatch-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public DispatchResult dispatch(DispatchRequest request) {
    DispatchChannel channel = channelFor(request);
    ActivityContext context = new ActivityContext(request, "dispatching");
    long started = System.nanoTime();
    String outcome = "failed";
    org.slf4j.MDC.put("execution_id", request.executionId());
    try {
      DispatchResult result = runHeartbeating(() -> channel.dispatch(request, context), context);
      outcome = "answered";
      return result;
    } finally {
      recordLatency(request, outcome, System.nanoTime() - started);
      org.slf4j.MDC.remove("execution_id");
    }
  }

  /**
   * One send for the replay policy: the carried journal entries and {@code dispatched} are made
   * durable together right before the first byte (or, if the channel fails before sending, the
   * carried entries are still written); after an answer the {@code outcome} entry is appended. A
   * journal failure after the answer does not hide the answer: it comes back as {@link
   * Sent#journalProblem()}.
   */
  @Override
  public Sent send(DispatchRequest request) {
    List<String> callers = request.answerPlan() == null ? List.of() : request.answerPlan().callIds();
    answers.sending(callers);
    boolean handed = false;
    try {
      Sent sent = sendOnce(request);
      handed = sent == null || sent.handedOver() != null;
      return sent;
    } finally {
      if (!handed) {
        answers.noAnswer(callers);
      }
    }
  }

  private Sent sendOnce(DispatchRequest request) {
    Scope metrics = metricsScope();
    ActivityContext context = new ActivityContext(request, "dispatching", metrics);
    long started = System.nanoTime();
    String outcome = "failed";
    org.slf4j.MDC.put("execution_id", request.executionId());
    DispatchResult result;
    try {
      DispatchChannel channel = channelFor(request);
      result = runHeartbeating(() -> channel.dispatch(request, context), context);
      outcome = "answered";
    } finally {
      recordLatency(request, outcome, System.nanoTime() - started);
      if (!context.carriedWritten) {
        context.writeCarriedQuietly();
      }
      org.slf4j.MDC.remove("execution_id");
    }
    String problem = null;
    if (request.resultReference() != null) {
      Map<String, Object> detail = new java.util.LinkedHashMap<>();
      detail.put("tool", request.contract().tool());
      detail.put("outcome", result.succeeded() ? "completed" : "failed");
      if (result.status() != null) {
        detail.put("target_status", result.status());
      }
      if (result.exitStatus() != null) {
        detail.put("exit_status", result.exitStatus());
      }
      detail.put("result_reference", request.resultReference());
      JournalEntry entry = new JournalEntry(request.executionId(), request.fingerprint(), JournalTransition.OUTCOME.wireName(), request.attempt(),
          java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString(), detail);
      try {
        journal.append(List.of(entry), metrics);
      } catch (RuntimeException e) {
        problem = "the outcome entry could not be journaled: " + e.getMessage();
      }
    }
    if (problem != null) {
      return new Sent(result, problem, null);
    }
    return handOver(request, result, metrics);
  }

  /**
   * Hands the settled record to a caller of this execution waiting in this process, if there is
   * one, and has the activity's result wait for its front end's delivery report; a delivered
   * result's {@code delivered} entry is journaled then. Inside an activity the wait holds no thread
   * ({@link ReportWaits}): this returns null and the activity completes itself once the report came
   * (or did not come in time: the front end then signals its report, as for any caller).
   */
  private Sent handOver(DispatchRequest request, DispatchResult result, Scope metrics) {
    AnswerPlan plan = request.answerPlan();
    if (plan == null || answers == AnswerDesk.NONE || request.resultReference() == null) {
      return new Sent(result, null, null);
    }
    ExecutionRecord record = InBandAnswer.answered(request, plan, request.resultReference(), result, System::currentTimeMillis);
    AnswerDesk.Handoff handoff = record == null ? null : answers.offer(plan.callIds(), record);
    if (handoff == null) {
      return new Sent(result, null, null);
    }
    ActivityExecutionContext activity = activityContext();
    if (activity == null) {
      return new Sent(result, null, handedOver(request, ReportWaits.awaitHere(handoff, HANDOVER_WAIT, HANDOVER_HEARTBEAT), metrics));
    }
    io.temporal.activity.ManualActivityCompletionClient completion = activity.useLocalManualCompletion();
    reportWaits.await(handoff, new ReportWaits.Ending() {
      @Override
      public void complete(DeliveryReport report) {
        if (report == null) {
          answers.noAnswer(plan.callIds());
        }
        completion.complete(new Sent(result, null, handedOver(request, report, metrics)));
      }

      @Override
      public void heartbeat() {
        completion.recordHeartbeat("awaiting the caller's delivery report");
      }
    });
    return null;
  }

  /** What the caller's front end reported, as the send's result carries it; null without a report. */
  private HandedOver handedOver(DispatchRequest request, DeliveryReport report, Scope metrics) {
    if (report == null) {
      return null;
    }
    boolean journaled = false;
    if (report.delivered()) {
      Map<String, Object> detail = new java.util.LinkedHashMap<>();
      detail.put("call", report.callId());
      detail.put("tool", request.contract().tool());
      try {
        journal.append(List.of(new JournalEntry(request.executionId(), request.fingerprint(), JournalTransition.DELIVERED.wireName(), 1,
            java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString(), detail)), metrics);
        journaled = true;
      } catch (RuntimeException e) {
        // The workflow queues the entry itself then.
      }
    }
    return new HandedOver(report.callId(), report.delivered(), report.at(), report.detail(), journaled);
  }

  private static ActivityExecutionContext activityContext() {
    try {
      return Activity.getExecutionContext();
    } catch (IllegalStateException notInAnActivity) {
      return null; // a router test outside an activity
    }
  }

  private static Scope metricsScope() {
    try {
      return Activity.getExecutionContext().getMetricsScope();
    } catch (IllegalStateException | UnsupportedOperationException notInAnActivity) {
      return null;
    }
  }

  /** Dispatch latency through the worker's metrics scope (Prometheus: onceport_dispatch_seconds). */
  private static void recordLatency(DispatchRequest request, String outcome, long nanos) {
    try {
      io.temporal.activity.Activity.getExecutionContext().getMetricsScope()
          .tagged(java.util.Map.of("tool", request.contract().tool(),
              "channel", request.contract().channel().name().toLowerCase(java.util.Locale.ROOT), "result", outcome))
          .timer("onceport_dispatch").record(com.uber.m3.util.Duration.ofNanos(nanos));
    } catch (IllegalStateException notInAnActivity) {
      // called outside an activity (unit tests of the router): nothing to record
    }
  }

  @Override
  public StatusResult queryStatus(DispatchRequest request) {
    DispatchChannel channel = channelFor(request);
    ActivityContext context = new ActivityContext(request, "querying status");
    org.slf4j.MDC.put("execution_id", request.executionId());
    try {
      return runHeartbeating(() -> channel.queryStatus(request, context), context);
    } finally {
      org.slf4j.MDC.remove("execution_id");
    }
  }

  @Override
  public VerifyAnswer verifyEffect(VerifyRequest request) {
    // A read like a status query: its context never writes a dispatched entry (a check never calls beforeSend).
    DispatchRequest asked = new DispatchRequest(request.executionId(), request.fingerprint(), request.contract(),
        request.arguments(), request.check());
    DispatchChannel channel = channelFor(asked);
    ActivityContext context = new ActivityContext(asked, "verifying");
    org.slf4j.MDC.put("execution_id", request.executionId());
    try {
      return runHeartbeating(() -> channel.verify(request, context), context);
    } finally {
      org.slf4j.MDC.remove("execution_id");
    }
  }

  /**
   * Before the worker stops: waits, at most {@code timeout}, for the delivery reports of answers
   * already handed over (due within the delivery grace), so they still travel in the send's result.
   */
  public void drainHandOvers(Duration timeout) {
    try {
      reportWaits.awaitIdle(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    reportWaits.close();
    executor.shutdownNow();
  }

  private DispatchChannel channelFor(DispatchRequest request) {
    ToolContract.Channel name = request.contract().channel();
    DispatchChannel channel = channels.get(name);
    if (channel == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "No dispatch channel for " + name.name().toLowerCase(java.util.Locale.ROOT)
              + " (tool " + request.contract().tool() + ")",
          ErrorTypes.INVALID_REQUEST);
    }
    return channel;
  }

  private <T> T runHeartbeating(Callable<T> work, ActivityContext context) {
    ActivityExecutionContext activity = Activity.getExecutionContext();
    // No heartbeat before the first interval: a send that answers within it costs no heartbeat RPC,
    // and the heartbeat timeout (seconds) still notices a worker lost after it.
    Future<T> future = executor.submit(io.opentelemetry.context.Context.current().wrap(work)); // with the activity's trace context
    while (true) {
      try {
        return future.get(HEARTBEAT_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        try {
          activity.heartbeat(context.phase);
        } catch (ActivityCompletionException cancelled) {
          future.cancel(true);
          throw cancelled;
        }
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (cause instanceof Error error) {
          throw error;
        }
        throw Activity.wrap((Exception) cause);
      } catch (InterruptedException e) {
        future.cancel(true);
        Thread.currentThread().interrupt();
        throw Activity.wrap(e);
      }
    }
  }

  private final class ActivityContext implements DispatchContext {
    private final DispatchRequest request;
    private final Scope metrics;
    private final AtomicBoolean sent = new AtomicBoolean();
    /** The run that asked for the send, read on the activity's thread (the channel runs on a helper). */
    private final String runId;
    volatile String phase;
    volatile boolean carriedWritten;

    ActivityContext(DispatchRequest request, String phase) {
      this(request, phase, null);
    }

    ActivityContext(DispatchRequest request, String phase, Scope metrics) {
      this.request = request;
      this.phase = phase;
      this.metrics = metrics;
      this.carriedWritten = request.journal().isEmpty();
      ActivityExecutionContext activity = activityContext();
      this.runId = activity == null ? null : activity.getInfo().getRunId();
    }

    @Override
    public void beforeSend() {
      if (!sent.get()) {
        if (!carriedWritten) {
          try {
            journal.append(request.journal(), metrics);
          } catch (RuntimeException e) {
            throw ApplicationFailure.newNonRetryableFailure(
                "dispatch not sent: the journal entries before it could not be made durable: " + e.getMessage(),
                ErrorTypes.JOURNAL_UNAVAILABLE);
          }
          carriedWritten = true;
        }
        journal.dispatched(request, runId);
        sent.set(true);
        phase = "sent";
      }
    }

    /** The channel failed before sending: the carried entries are still evidence worth keeping. */
    void writeCarriedQuietly() {
      try {
        journal.append(request.journal(), metrics);
        carriedWritten = true;
      } catch (RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(DispatchActivitiesImpl.class)
            .warn("{}: journal entries before an unsent dispatch not written: {}", request.executionId(), e.getMessage());
      }
    }

    @Override
    public void heartbeat(String phase) {
      this.phase = Objects.requireNonNull(phase, "phase == null");
    }

    @Override
    public Credential credential(String reference) {
      return credentials.resolve(reference);
    }
  }
}
