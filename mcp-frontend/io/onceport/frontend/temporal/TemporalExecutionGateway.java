package io.onceport.frontend.temporal;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.frontend.gateway.CallPreparation;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.PreparedCall;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.execution.ToolExecutionWorkflowImpl;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The execution layer on Temporal. Every call is an update-with-start of the intent's workflow id
 * with {@code USE_EXISTING}: the first call starts the execution, any duplicate attaches to it. No
 * state is kept here beyond a cache of where executions live.
 *
 * <p>Fingerprint-matched intents use {@code ALLOW_DUPLICATE}: once an execution delivered its result
 * and closed, an identical call is a new intent. Keyed intents use {@code REJECT_DUPLICATE}: the
 * same key keeps answering with its execution for as long as Temporal retains the closed run.
 */
public final class TemporalExecutionGateway implements ExecutionGateway {
  private static final Logger LOG = LoggerFactory.getLogger(TemporalExecutionGateway.class);
  private static final int START_RACE_RETRIES = 5;

  private final TemporalConnection connection;
  private final ExecutionDirectory directory;
  private final String taskQueue;
  private final CallPreparation preparation;
  private final String frontEnd;
  private final io.onceport.frontend.ops.Metrics metrics;
  /** Refuses, before anything is started, a call whose input Temporal could not take. */
  private final PayloadBudget budget;

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
  }

  @Override
  public List<ToolContract> tools() {
    return preparation.tools();
  }

  @Override
  public CallResult call(ToolCall call) {
    PreparedCall prepared = preparation.prepare(call);
    String callId = "call_" + UUID.randomUUID();
    AttachRequest attach = new AttachRequest(
        callId, prepared.input().fingerprint(), call.jsonRpcId(), call.sessionId(), call.runId(), call.intentKey(),
        call.protocolVersion(), call.clientInfo(), call.remoteAddress(), frontEnd, Instant.now().toString(), call.waitMillis());
    budget.check(prepared.input(), attach);
    WorkflowClient client = connection.client();
    RuntimeException last = null;
    for (int attempt = 0; attempt < START_RACE_RETRIES; attempt++) {
      WorkflowOptions options = WorkflowOptions.newBuilder()
          .setWorkflowId(prepared.workflowId())
          .setTaskQueue(taskQueue)
          .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
          .setWorkflowIdReusePolicy(prepared.keyed()
              ? WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
              : WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
          .build();
      ToolExecutionWorkflow stub = client.newWorkflowStub(ToolExecutionWorkflow.class, options);
      WithStartWorkflowOperation<ExecutionRecord> start = new WithStartWorkflowOperation<>(stub::run, prepared.input());
      try {
        ExecutionRecord record = WorkflowClient.executeUpdateWithStart(
            stub::attach, attach,
            UpdateOptions.<ExecutionRecord>newBuilder().setUpdateId(callId).setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
            start);
        directory.remember(record);
        boolean attached = isRetry(record, callId);
        if (attached && metrics != null) {
          metrics.attached(record.tool());
        }
        return new CallResult(record, callId, attached);
      } catch (WorkflowUpdateException | WorkflowServiceException e) {
        ApplicationFailure failure = applicationFailure(e);
        // Update validators' failure types do not survive the trip (the SDK reports them as
        // WorkflowExecutionException), so the attach validator's one refusal is told by its text.
        if (failure != null && (ErrorTypes.INTENT_KEY_MISMATCH.equals(failure.getType())
            || failure.getOriginalMessage().startsWith(ToolExecutionWorkflowImpl.INTENT_KEY_MISMATCH_PREFIX))) {
          throw new GatewayException(GatewayException.Kind.INTENT_KEY_MISMATCH, failure.getOriginalMessage(), e);
        }
        if (prepared.keyed() && hasStatus(e, Status.Code.ALREADY_EXISTS)) {
          // A keyed intent whose execution already closed: the key keeps naming that execution.
          return closedKeyedExecution(prepared, callId, e);
        }
        last = e;
      }
      // The run closed between routing and handling the update: the next try starts or finds the
      // current run. Only a closed (delivered or expired) run is ever left behind this way.
      LOG.debug("update-with-start on {} raced with the run closing; retrying", prepared.workflowId(), last);
      sleep(50L * (attempt + 1));
    }
    throw new GatewayException(GatewayException.Kind.UNAVAILABLE,
        "could not reach the execution for this call: " + TemporalConnection.shortReason(last), last);
  }

  private CallResult closedKeyedExecution(PreparedCall prepared, String callId, RuntimeException cause) {
    ExecutionRecord record = directory.record(directory.latestRun(prepared.workflowId()));
    if (!record.fingerprint().equals(prepared.input().fingerprint())) {
      throw new GatewayException(GatewayException.Kind.INTENT_KEY_MISMATCH,
          ToolExecutionWorkflowImpl.INTENT_KEY_MISMATCH_PREFIX + "intent key " + prepared.input().intentKey() + " was already used by execution " + record.executionId()
              + " for a different request; use a new key for a new intent", cause);
    }
    directory.remember(record);
    return new CallResult(record, callId, true);
  }

  private static boolean isRetry(ExecutionRecord record, String callId) {
    for (AttachedCall c : record.calls()) {
      if (c.callId().equals(callId)) {
        return c.retry();
      }
    }
    return true;
  }

  private static boolean hasStatus(Throwable e, Status.Code code) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StatusRuntimeException sre && sre.getStatus().getCode() == code) {
        return true;
      }
    }
    return false;
  }

  private static ApplicationFailure applicationFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure app) {
        return app;
      }
    }
    return null;
  }

  @Override
  public Optional<ExecutionRecord> find(String executionId) {
    return directory.locate(executionId).map(directory::record);
  }

  @Override
  public ExecutionRecord awaitChange(String executionId, long afterVersion, Duration wait) {
    ExecutionLocation location = locate(executionId);
    try {
      // No describe first: this runs on every SSE poll; a closed run refuses the update instead.
      return typed(location).awaitChange(afterVersion, wait.toMillis());
    } catch (io.temporal.client.WorkflowException e) {
      LOG.debug("awaitChange on {} refused (the run closed?); reading the record instead", executionId, e);
    }
    return directory.record(location);
  }

  @Override
  public void reportDelivery(String executionId, DeliveryReport report) {
    ExecutionLocation location = locate(executionId);
    try {
      typed(location).reportDelivery(report);
    } catch (io.temporal.client.WorkflowException e) {
      // The run already closed: its delivery was settled (or its window passed) before this report.
      LOG.debug("delivery report for {} not recorded: {}", executionId, TemporalConnection.shortReason(e));
    }
  }

  @Override
  public ExecutionRecord cancel(String executionId, CancelRequest request) {
    ExecutionLocation location = locate(executionId);
    if (!directory.isOpen(location)) {
      return directory.record(location);
    }
    return typed(location).cancel(request);
  }

  @Override
  public List<ExecutionRecord> listByActor(String actor, int limit) {
    List<ExecutionRecord> out = new ArrayList<>();
    for (ExecutionLocation location : directory.list(null, actor, limit)) {
      out.add(directory.record(location));
    }
    return out;
  }

  private ExecutionLocation locate(String executionId) {
    return directory.locate(executionId).orElseThrow(() ->
        new GatewayException(GatewayException.Kind.NOT_FOUND, "no execution " + executionId));
  }

  private ToolExecutionWorkflow typed(ExecutionLocation location) {
    return connection.client().newWorkflowStub(ToolExecutionWorkflow.class, location.workflowId(), Optional.of(location.runId()));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
