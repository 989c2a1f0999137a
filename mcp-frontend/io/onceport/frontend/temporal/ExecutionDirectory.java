package io.onceport.frontend.temporal;

import io.onceport.shared.temporal.TemporalConnection;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.DataConverter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Finds executions by their {@code act_} id and lists them. Uses visibility queries on the search
 * attribute {@code OnceportExecutionId} where the server has them; the embedded engine has none, so
 * there it scans open and closed {@code ToolExecution} runs (fine for an in-memory development
 * engine, which holds at most a few thousand).
 *
 * <p>Where an execution lives never changes, so locations are cached (Caffeine). Why: without the
 * cache every look-up by id is a search, which on the embedded engine lists and describes every run
 * — measured with it switched off (issue 27): 391 {@code DescribeWorkflowExecution} per call and a
 * thirtieth of the throughput. At most {@value #MAX_CACHED} of them, each forgotten {@link
 * #CACHE_AGE} after its last use (then found again by a search) — a settled one {@link #SETTLED_CACHE_AGE} after its last use: after its answer and
 * delivery report few ask for it again, and holding every execution for an hour made memory grow
 * with the call rate. Settled means finished with its delivery known ({@link #delivered}, a
 * terminal record that says so, or found by a search): a finished execution whose answer is still
 * within its delivery grace stays with the open ones, because its delivery report must find it
 * here — a search would scan every run on the embedded engine, and may not see it yet on a
 * cluster's visibility store.
 *
 * <p>Only what the front end's calls need is here; an operator's visibility query ({@code executions
 * list --query}, {@code investigate}) is {@code app/cli/ExecutionSearch}.
 */
public final class ExecutionDirectory {
  static final int MAX_CACHED = 10_000;
  static final java.time.Duration CACHE_AGE = java.time.Duration.ofHours(1);
  static final java.time.Duration SETTLED_CACHE_AGE = java.time.Duration.ofSeconds(60);
  private final TemporalConnection connection;
  private final Cache<String, Known> known;
  private final Consumer<ExecutionRecord> remembered;

  /** A cached location; settled when it was learned from a terminal record or by a search. */
  private record Known(ExecutionLocation location, boolean settled) {}
  private volatile Boolean visibility;

  public ExecutionDirectory(TemporalConnection connection) {
    this(connection, record -> {});
  }

  /** @param remembered told every record this front end {@linkplain #remember remembers} (the reviews gauge) */
  public ExecutionDirectory(TemporalConnection connection, Consumer<ExecutionRecord> remembered) {
    this(connection, System::nanoTime, remembered);
  }

  /** @param clock monotonic nanoseconds of the cache's ages ({@code System::nanoTime}; tests move it on) */
  ExecutionDirectory(TemporalConnection connection, java.util.function.LongSupplier clock,
      Consumer<ExecutionRecord> remembered) {
    this.connection = connection;
    this.remembered = java.util.Objects.requireNonNull(remembered, "remembered == null");
    this.known = Caffeine.newBuilder()
        .maximumSize(MAX_CACHED)
        .expireAfter(Expiry.<String, Known>accessing((k, v) -> v.settled() ? SETTLED_CACHE_AGE : CACHE_AGE))
        .ticker(clock::getAsLong)
        .executor(Runnable::run)
        .build();
  }

  /** Remembers where an execution lives (every call through this front end does). */
  public void remember(ExecutionRecord record) {
    remembered.accept(record);
    known.put(record.executionId(), new Known(new ExecutionLocation(record.executionId(), record.workflowId(), record.runId()),
        record.state().isTerminal() && record.delivery() != Delivery.PENDING));
  }

  /**
   * This front end reported the delivery (or non-delivery) of a finished execution's answer: its
   * location is settled from now on (no-op when it is not cached).
   */
  public void delivered(String executionId) {
    known.asMap().computeIfPresent(executionId, (k, cached) -> cached.settled() ? cached : new Known(cached.location(), true));
  }

  /** Cached locations (bounded; for tests and diagnostics). */
  public int cachedLocations() {
    known.cleanUp();
    return (int) known.estimatedSize();
  }

  /** Cached locations held as settled (the bench's memory probe). */
  public int settledLocations() {
    known.cleanUp();
    return (int) known.asMap().values().stream().filter(Known::settled).count();
  }

  public Optional<ExecutionLocation> locate(String executionId) {
    Known cached = known.getIfPresent(executionId);
    if (cached != null) {
      return Optional.of(cached.location());
    }
    List<ExecutionLocation> found = search("OnceportExecutionId = '" + executionId.replace("'", "") + "'", executionId, null, 1);
    found.forEach(l -> known.put(l.executionId(), new Known(l, true)));
    return found.stream().filter(l -> executionId.equals(l.executionId())).findFirst();
  }

  /** Executions, newest first; {@code actor} filters when not null ({@code tasks/list}). */
  public List<ExecutionLocation> list(String actor, int limit) {
    return search(actor == null ? null : "OnceportActor = '" + actor.replace("'", "") + "'", null, actor, limit);
  }

  /** True when the server answers visibility queries (a real cluster; not the embedded engine). */
  public boolean hasVisibility() {
    if (visibility == null) {
      try {
        connection.client().listExecutions("WorkflowType = '" + ToolExecutionWorkflow.TYPE + "'").limit(1).count();
        visibility = true;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
          throw e;
        }
        visibility = false;
      }
    }
    return visibility;
  }

  private List<ExecutionLocation> search(String query, String executionId, String actor, int limit) {
    if (hasVisibility()) {
      String q = "WorkflowType = '" + ToolExecutionWorkflow.TYPE + "'" + (query == null ? "" : " AND " + query);
      List<ExecutionLocation> out = new ArrayList<>();
      connection.client().listExecutions(q).limit(limit).forEach(m -> out.add(location(m)));
      return out;
    }
    List<WorkflowExecutionInfo> infos = new ArrayList<>();
    var service = connection.stubs().blockingStub();
    WorkflowTypeFilter type = WorkflowTypeFilter.newBuilder().setName(ToolExecutionWorkflow.TYPE).build();
    infos.addAll(service.listOpenWorkflowExecutions(ListOpenWorkflowExecutionsRequest.newBuilder()
        .setNamespace(connection.namespace()).setTypeFilter(type).setMaximumPageSize(10_000).build()).getExecutionsList());
    infos.addAll(service.listClosedWorkflowExecutions(ListClosedWorkflowExecutionsRequest.newBuilder()
        .setNamespace(connection.namespace()).setTypeFilter(type).setMaximumPageSize(10_000).build()).getExecutionsList());
    infos.sort(Comparator.comparing((WorkflowExecutionInfo i) -> i.getStartTime().getSeconds())
        .thenComparing(i -> i.getStartTime().getNanos()).reversed());
    List<ExecutionLocation> out = new ArrayList<>();
    for (WorkflowExecutionInfo info : infos) {
      String id = keyword(info, ExecutionSearchAttributes.SA_EXECUTION_ID.getName());
      String who = keyword(info, ExecutionSearchAttributes.SA_ACTOR.getName());
      if (id == null) {
        // The list did not carry search attributes: ask the run itself.
        DescribeWorkflowExecutionResponse described = describe(info.getExecution());
        id = keyword(described.getWorkflowExecutionInfo(), ExecutionSearchAttributes.SA_EXECUTION_ID.getName());
        who = keyword(described.getWorkflowExecutionInfo(), ExecutionSearchAttributes.SA_ACTOR.getName());
      }
      if (id == null || executionId != null && !executionId.equals(id) || actor != null && !actor.equals(who)) {
        continue;
      }
      out.add(new ExecutionLocation(id, info.getExecution().getWorkflowId(), info.getExecution().getRunId()));
      if (out.size() >= limit) {
        break;
      }
    }
    return out;
  }

  /** True while the run is open (an execution can still attach calls and change). */
  public boolean isOpen(ExecutionLocation location) {
    return status(location) == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  }

  /** Whether the newest run of a workflow id is open; false when there is none. */
  public boolean latestRunOpen(String workflowId) {
    try {
      return describe(WorkflowExecution.newBuilder().setWorkflowId(workflowId).build()).getWorkflowExecutionInfo().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  /** The newest run of a workflow id (open or closed). */
  public ExecutionLocation latestRun(String workflowId) {
    String runId = describe(WorkflowExecution.newBuilder().setWorkflowId(workflowId).build())
        .getWorkflowExecutionInfo().getExecution().getRunId();
    return new ExecutionLocation(null, workflowId, runId);
  }

  private WorkflowExecutionStatus status(ExecutionLocation location) {
    return describe(WorkflowExecution.newBuilder().setWorkflowId(location.workflowId()).setRunId(location.runId()).build())
        .getWorkflowExecutionInfo().getStatus();
  }

  private DescribeWorkflowExecutionResponse describe(WorkflowExecution execution) {
    return connection.stubs().blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
        .setNamespace(connection.namespace()).setExecution(execution).build());
  }

  private String keyword(WorkflowExecutionInfo info, String name) {
    Payload payload = info.getSearchAttributes().getIndexedFieldsMap().get(name);
    if (payload == null) {
      return null;
    }
    Object value = DataConverter.getDefaultInstance().fromPayload(payload, Object.class, Object.class);
    if (value instanceof List<?> list) {
      return list.isEmpty() ? null : String.valueOf(list.get(0));
    }
    return value == null ? null : String.valueOf(value);
  }

  /** Where the execution a visibility query listed lives. */
  public static ExecutionLocation location(WorkflowExecutionMetadata m) {
    String id = m.getTypedSearchAttributes().get(ExecutionSearchAttributes.SA_EXECUTION_ID);
    return new ExecutionLocation(id, m.getExecution().getWorkflowId(), m.getExecution().getRunId());
  }

  /**
   * The record of an execution: its final result once the run closed (read from history, no worker
   * needed), otherwise the live query.
   */
  public ExecutionRecord record(ExecutionLocation location) {
    WorkflowStub stub = connection.client().newUntypedWorkflowStub(
        location.workflowId(), Optional.of(location.runId()), Optional.empty());
    if (status(location) == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) {
      try {
        return stub.getResult(10, TimeUnit.SECONDS, ExecutionRecord.class);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException("timed out reading the result of " + location.workflowId(), e);
      }
    }
    return stub.query("record", ExecutionRecord.class);
  }
}
