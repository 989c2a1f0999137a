package io.onceport.app.runtime;

import io.onceport.frontend.ops.Metrics;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.common.converter.DataConverter;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The {@code onceport_reviews_waiting} gauge: open executions waiting for a person (needs review,
 * awaiting approval, awaiting session authorization), counted every {@link #PERIOD}.
 *
 * <p>On a server with visibility, one count query on {@code OnceportState}. On the embedded engine
 * (Temporal's Java test server: no visibility store, and its listing of open runs carries neither
 * search attributes nor a type filter) one listing of the open runs, and a {@code
 * DescribeWorkflowExecution} only of a {@code ToolExecution} run that
 * <ul>
 *   <li>is new to the gauge and was not seen settled for good by this front end ({@link
 *       #remembered}: so a call this front end answered settled costs no describe), or
 *   <li>was last seen in a state that may still change and whose history grew since: a state
 *       change is an upsert, an upsert is an event, so an unchanged history length is an unchanged
 *       state.
 * </ul>
 * Settled for good ({@link #isFinalLabel}): failed, rejected, cancelled, expired, and a plain
 * completion. A completion kept until verified (issue 28) is not: a check or an operator may find its
 * effect absent and send it to review; the record then shows its verification, and the label says so.
 *
 * <p><b>Why.</b> It used to describe every open run at every count; since the late-arrival tail
 * keeps each settled run open for minutes, that cost grew with the open runs — the bench measured
 * 1.25 describes per call (0.09 before the tail), 391 with the directory cache off. Now a count costs
 * one listing plus at most one describe per run that changed in the last period, however many
 * settled runs sit in their tail; a waiting run nobody touches is not described again.
 */
public final class ReviewsGauge implements AutoCloseable {
  /** How often the gauge is counted: a dashboard's scrape interval, not a call's latency. */
  public static final Duration PERIOD = Duration.ofSeconds(15);
  /** At most this many runs learned settled from records are held between two counts. */
  static final int MAX_REMEMBERED = 10_000;

  /**
   * What the gauge last learned of one open run: its {@code OnceportState} label at a history
   * length; {@code settled} when the label is one nothing changes any more ({@link #isFinalLabel}).
   */
  private record SeenRun(long historyLength, String label, boolean settled) {}

  private final TemporalConnection connection;
  /** Open runs on the embedded engine by run id, as last seen: pruned to the open runs at every count. */
  private final Map<String, SeenRun> seenRuns = new ConcurrentHashMap<>();
  private volatile Boolean hasVisibility;
  private ScheduledExecutorService counter;

  public ReviewsGauge(TemporalConnection connection) {
    this.connection = Objects.requireNonNull(connection, "connection == null");
  }

  /**
   * Counts into {@code metrics} every {@link #PERIOD}, the first time after a second.
   *
   * @param visibility whether the server answers visibility queries ({@code ExecutionDirectory::hasVisibility})
   */
  public ReviewsGauge start(Metrics metrics, BooleanSupplier visibility) {
    Objects.requireNonNull(metrics, "metrics == null");
    Objects.requireNonNull(visibility, "visibility == null");
    counter = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "onceport-reviews-gauge");
      t.setDaemon(true);
      return t;
    });
    counter.scheduleWithFixedDelay(() -> {
      try {
        metrics.reviewsWaiting(count(visibility.getAsBoolean()));
      } catch (RuntimeException e) {
        // Temporal unreachable for a moment: keep the last value; /readyz reports reachability.
      }
    }, 1, PERIOD.toSeconds(), TimeUnit.SECONDS);
    return this;
  }

  /**
   * A record this front end holds (every call's answer): one settled for good ({@link
   * #isFinalLabel}) need not be described while its run stays open in its tail.
   */
  public void remembered(ExecutionRecord record) {
    if (record.runId() != null && isFinalLabel(record.view())) {
      settled(record.runId(), record.view());
    }
  }

  /** A run this front end saw settled for good, labelled {@code label}. */
  void settled(String runId, String label) {
    if (Boolean.FALSE.equals(hasVisibility) && seenRuns.size() < MAX_REMEMBERED) {
      seenRuns.putIfAbsent(runId, new SeenRun(-1, label, true));
    }
  }

  /**
   * Open executions waiting for a person now.
   *
   * @param visibility whether the server answers visibility queries (false: the embedded engine)
   */
  public long count(boolean visibility) {
    hasVisibility = visibility;
    if (visibility) {
      // A count, not a listing: listing pages through every waiting execution (seconds of server
      // time each with a thousand waiting on the Temporal CLI's SQLite) for a gauge read every 15 s.
      return connection.client().countWorkflows("WorkflowType = '" + ToolExecutionWorkflow.TYPE
          + "' AND ExecutionStatus = 'Running' AND OnceportState IN ('needs_review_outcome_unknown', 'needs_review', "
          + "'awaiting_approval', 'awaiting_session_authorization')").getCount();
    }
    List<WorkflowExecutionInfo> open = connection.stubs().blockingStub().listOpenWorkflowExecutions(
        ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace(connection.namespace())
            .setTypeFilter(WorkflowTypeFilter.newBuilder().setName(ToolExecutionWorkflow.TYPE))
            .setMaximumPageSize(10_000).build()).getExecutionsList();
    Set<String> openRuns = new HashSet<>();
    long n = 0;
    for (WorkflowExecutionInfo info : open) {
      if (!ToolExecutionWorkflow.TYPE.equals(info.getType().getName())) {
        continue; // the test server ignores the type filter: session runs are listed too
      }
      String runId = info.getExecution().getRunId();
      openRuns.add(runId);
      SeenRun seen = seenRuns.get(runId);
      if (seen == null || !seen.settled() && seen.historyLength() != info.getHistoryLength()) {
        String label = state(info);
        if (label == null) {
          label = state(connection.stubs().blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest
              .newBuilder().setNamespace(connection.namespace()).setExecution(info.getExecution()).build())
              .getWorkflowExecutionInfo());
        }
        seen = new SeenRun(info.getHistoryLength(), label, isFinalLabel(label));
        seenRuns.put(runId, seen);
      }
      if (isWaitingLabel(seen.label())) {
        n++;
      }
    }
    seenRuns.keySet().retainAll(openRuns);
    return n;
  }

  /** The labels of a person's decision pending ({@link ExecutionRecord#view()}). */
  static boolean isWaitingLabel(String label) {
    return label != null && (label.startsWith("needs_review") || label.startsWith("awaiting_"));
  }

  /**
   * True for a label ({@link ExecutionRecord#view()}: the state's name, maybe a suffix) no later
   * event changes: a terminal state other than completed, or a plain completion ({@code completed},
   * {@code completed_result_delivered}, {@code completed_result_not_delivered}). A completion kept
   * until verified is labelled by its verification ({@code completed_verification_pending}, …) and
   * may still go to review.
   */
  static boolean isFinalLabel(String label) {
    if (label == null) {
      return false;
    }
    String completed = ExecutionState.COMPLETED.wireName();
    if (label.equals(completed) || label.equals(completed + "_result_delivered") || label.equals(completed + "_result_not_delivered")) {
      return true;
    }
    for (ExecutionState state : ExecutionState.values()) {
      if (state.isTerminal() && state != ExecutionState.COMPLETED
          && (label.equals(state.wireName()) || label.startsWith(state.wireName() + "_"))) {
        return true;
      }
    }
    return false;
  }

  private static String state(WorkflowExecutionInfo info) {
    Payload payload = info.getSearchAttributes().getIndexedFieldsMap().get(ExecutionSearchAttributes.SA_STATE.getName());
    if (payload == null) {
      return null;
    }
    Object value = DataConverter.getDefaultInstance().fromPayload(payload, Object.class, Object.class);
    if (value instanceof List<?> list) {
      return list.isEmpty() ? null : String.valueOf(list.get(0));
    }
    return value == null ? null : String.valueOf(value);
  }

  @Override
  public void close() {
    if (counter != null) {
      counter.shutdownNow();
    }
  }
}
