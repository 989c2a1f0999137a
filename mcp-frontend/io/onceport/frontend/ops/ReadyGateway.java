package io.onceport.frontend.ops;

import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.frontend.ops.HealthChecks.Verdict;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An execution gateway that refuses a new call at once while {@link Readiness} knows it cannot
 * succeed — the namespace does not exist, the search attributes are not registered, no worker
 * polls — with the reason and the command that fixes it. Without it such a call was started (or
 * tried to be) and failed after the 20 s attach budget as "could not reach the execution". Only new
 * calls are gated: reading, waiting on, cancelling and reporting existing executions pass through.
 */
public final class ReadyGateway implements ExecutionGateway {
  private final ExecutionGateway delegate;
  private final Readiness readiness;

  public ReadyGateway(ExecutionGateway delegate, Readiness readiness) {
    this.delegate = Objects.requireNonNull(delegate, "delegate == null");
    this.readiness = Objects.requireNonNull(readiness, "readiness == null");
  }

  private void admit() {
    Optional<Verdict> blocking = readiness.blocking();
    if (blocking.isPresent()) {
      Verdict v = blocking.get();
      throw new GatewayException(GatewayException.Kind.UNAVAILABLE, "not ready: " + v.reason()
          + (v.fix() == null ? "" : "; fix: " + v.fix()) + " (nothing was started for this call)");
    }
  }

  @Override
  public List<ToolContract> tools() {
    return delegate.tools();
  }

  @Override
  public CallResult call(ToolCall call) {
    admit();
    return delegate.call(call);
  }

  @Override
  public CallResult attach(ToolCall call) {
    admit();
    return delegate.attach(call);
  }

  @Override
  public Optional<ExecutionRecord> find(String executionId) {
    return delegate.find(executionId);
  }

  @Override
  public ExecutionRecord awaitChange(String executionId, long afterVersion, Duration wait) {
    return delegate.awaitChange(executionId, afterVersion, wait);
  }

  @Override
  public void reportDelivery(String executionId, DeliveryReport report) {
    delegate.reportDelivery(executionId, report);
  }

  @Override
  public void reportDeliveryLater(String executionId, DeliveryReport report) {
    delegate.reportDeliveryLater(executionId, report);
  }

  @Override
  public ExecutionRecord cancel(String executionId, CancelRequest request) {
    return delegate.cancel(executionId, request);
  }

  @Override
  public List<ExecutionRecord> listByActor(String actor, int limit) {
    return delegate.listByActor(actor, limit);
  }

  @Override
  public boolean answersInBand() {
    return delegate.answersInBand();
  }
}
