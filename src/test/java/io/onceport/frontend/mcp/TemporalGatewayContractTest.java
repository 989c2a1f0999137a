package io.onceport.frontend.mcp;

import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Records;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/** The real gateway (embedded engine, a worker, the ToolExecution workflow) against the attach rule the fake copies. */
@Timeout(60)
class TemporalGatewayContractTest extends ExecutionGatewayContract {
  private static final ScriptedDispatch dispatch = new ScriptedDispatch();
  private static EngineHarness harness;

  @BeforeAll
  static void start() {
    harness = new EngineHarness(
        new SimplePreparation(Contracts.http(TOOL, ReplayClass.IDEMPOTENCY_KEY, "http://127.0.0.1:9", Duration.ofMinutes(5))),
        dispatch, new RecordingJournal(), new AllowAll());
  }

  @AfterAll
  static void stop() {
    harness.close();
  }

  @Override
  ExecutionGateway gateway() {
    return harness.gateway;
  }

  @Override
  int dispatches() {
    return dispatch.dispatched.size();
  }

  @Override
  void awaitClosed(String executionId) throws InterruptedException {
    Records.await(harness.directory, executionId, r -> r.delivery() == io.onceport.workflow.execution.Delivery.DELIVERED,
        Duration.ofSeconds(15));
    harness.skipTime(Duration.ofMinutes(11)); // past the late-arrival tail
    Records.awaitClosed(harness.directory, executionId, Duration.ofSeconds(15));
  }
}
