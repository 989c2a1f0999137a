package io.onceport.frontend.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where executions live is cached: a settled one (finished, its delivery known) for a minute after
 * its last use and only the most recent thousand of those, an open one (or one whose answer awaits
 * its delivery report) for an hour.
 */
@Timeout(30)
class ExecutionDirectoryCacheTest {
  private final AtomicLong now = new AtomicLong(1_000);
  /** No connection: a cache hit never asks the engine (a miss would fail here). */
  private final ExecutionDirectory directory = new ExecutionDirectory(null, now::get, record -> {});

  private static ExecutionRecord record(String id, ExecutionState state) {
    return record(id, state, state.isTerminal() ? Delivery.DELIVERED : Delivery.PENDING);
  }

  private static ExecutionRecord record(String id, ExecutionState state, Delivery delivery) {
    return new ExecutionRecord(id, "onceport-fp-" + id, "run-" + id, "hmac-sha256:00", null, "create_release",
        "agent:deployer", "agent:deployer", "mcp:Se55ion", "http", "http://127.0.0.1:8766/v1/releases", "POST",
        "deploy-api", "status_query", "{}", state, Outcome.PENDING, delivery, "2026-12-01T10:00:00Z",
        null, null, null, null, null, null, null, null, null,
        null, 0, List.of(), List.of(), List.of(), null, null, "", 1);
  }

  @Test
  void aFinishedExecutionsLocationIsForgottenAMinuteAfterItsLastUseAndAnOpenOneAfterAnHour() {
    directory.remember(record("act_OPEN", ExecutionState.AWAITING_APPROVAL));
    directory.remember(record("act_DONE", ExecutionState.COMPLETED));
    now.addAndGet(Duration.ofSeconds(50).toNanos());
    assertEquals(Optional.of(new ExecutionLocation("act_DONE", "onceport-fp-act_DONE", "run-act_DONE")),
        directory.locate("act_DONE"), "a use renews it");
    now.addAndGet(Duration.ofSeconds(50).toNanos());
    assertEquals(2, directory.cachedLocations());
    now.addAndGet(Duration.ofSeconds(15).toNanos());
    assertEquals(1, directory.cachedLocations(), "65 s after its last use the finished one is gone");
    now.addAndGet(Duration.ofMinutes(50).toNanos());
    assertEquals("run-act_OPEN", directory.locate("act_OPEN").orElseThrow().runId());
    now.addAndGet(Duration.ofMinutes(61).toNanos());
    assertEquals(0, directory.cachedLocations());
  }

  @Test
  void anExecutionRememberedAgainOnceFinishedMovesToTheShorterAge() {
    directory.remember(record("act_A", ExecutionState.DISPATCHED));
    directory.remember(record("act_A", ExecutionState.FAILED));
    now.addAndGet(Duration.ofSeconds(61).toNanos());
    assertEquals(0, directory.cachedLocations());
  }

  @Test
  void aFinishedExecutionAwaitingItsDeliveryReportStaysUntilItIsReported() {
    directory.remember(record("act_ANSWERED", ExecutionState.COMPLETED, Delivery.PENDING));
    now.addAndGet(Duration.ofMinutes(5).toNanos());
    assertEquals("run-act_ANSWERED", directory.locate("act_ANSWERED").orElseThrow().runId(),
        "its delivery report finds it without a search, whatever the grace");
    directory.delivered("act_ANSWERED");
    now.addAndGet(Duration.ofSeconds(61).toNanos());
    assertEquals(0, directory.cachedLocations(), "reported: settled, held a minute after its last use");
  }
}
