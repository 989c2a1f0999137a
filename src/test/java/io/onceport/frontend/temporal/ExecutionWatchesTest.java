package io.onceport.frontend.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shared waiters' bounds: a finished execution's watch (its final record, kilobytes) is kept
 * only briefly, an open one as long as before, and a forgotten one is asked of the engine again.
 */
@Timeout(30)
class ExecutionWatchesTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final AtomicInteger polls = new AtomicInteger();
  private final AtomicInteger reads = new AtomicInteger();
  private final ExecutorService executor = Executors.newCachedThreadPool();
  /** The engine: answers an awaitChange at once with this record. */
  private volatile ExecutionRecord engine;
  /** The engine's runs that have closed: an awaitChange on them fails as on a closed run. */
  private final Set<String> closedRuns = ConcurrentHashMap.newKeySet();
  private final ExecutionWatches watches = new ExecutionWatches(
      (location, after, waitMillis) -> {
        polls.incrementAndGet();
        if (closedRuns.contains(location.runId())) {
          throw new StatusRuntimeException(Status.NOT_FOUND.withDescription("workflow execution already completed"));
        }
        return engine;
      },
      location -> {
        reads.incrementAndGet();
        return engine;
      },
      executor, Duration.ofSeconds(1), now::get);

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  private static ExecutionRecord record(String id, ExecutionState state, long version) {
    return new ExecutionRecord(id, "onceport-fp-" + id, "run-" + id, "hmac-sha256:00", null, "create_release",
        "agent:deployer", "agent:deployer", "mcp:Se55ion", "http", "http://127.0.0.1:8766/v1/releases", "POST",
        "deploy-api", "status_query", "{}", state, Outcome.PENDING, Delivery.PENDING, "2026-12-01T10:00:00Z",
        null, null, null, null, null, null, null, null, null,
        null, 0, List.of(), List.of(), List.of(), null, null, "", version);
  }

  private static ExecutionLocation location(ExecutionRecord r) {
    return new ExecutionLocation(r.executionId(), r.workflowId(), r.runId());
  }

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void aFinishedExecutionsWatchIsForgottenTenSecondsAfterItsLastUseAndAWaitingOneIsKeptTenMinutes() {
    ExecutionRecord waiting = record("act_WAIT", ExecutionState.AWAITING_SESSION_AUTHORIZATION, 3);
    ExecutionRecord done = record("act_DONE", ExecutionState.COMPLETED, 7);
    watches.offer(location(waiting), waiting);
    watches.offer(location(done), done);
    assertEquals(2, watches.size());
    assertEquals(1, watches.settledSize());
    advance(Duration.ofSeconds(9));
    assertEquals(2, watches.size(), "9 s after the last use");
    advance(Duration.ofSeconds(2));
    assertEquals(1, watches.size(), "11 s: the finished one is gone");
    assertEquals(0, watches.settledSize());
    advance(Duration.ofMinutes(9));
    assertEquals(1, watches.size(), "the waiting one is kept for its ten minutes");
    advance(Duration.ofMinutes(2));
    assertEquals(0, watches.size());
  }

  @Test
  void aWatchBecomesSettledWhenItsRecordTurnsTerminalOrItsRunIsSeenClosed() {
    ExecutionRecord a = record("act_A", ExecutionState.DISPATCHED, 2);
    ExecutionRecord b = record("act_B", ExecutionState.AWAITING_APPROVAL, 2);
    watches.offer(location(a), a);
    watches.offer(location(b), b);
    assertEquals(0, watches.settledSize());
    watches.offer(location(a), record("act_A", ExecutionState.COMPLETED, 5));
    assertEquals(1, watches.settledSize(), "a's record is terminal");
    // b's run closes with b's record still waiting (its final record as history has it): settled all the same.
    closedRuns.add(b.runId());
    engine = b;
    assertEquals(b, watches.await(location(b), 2, Duration.ofSeconds(5)), "a closed run answers with its final record at once");
    assertEquals(2, watches.settledSize(), "b's run closed");
    advance(Duration.ofSeconds(11));
    assertEquals(0, watches.size());
  }

  @Test
  void aForgottenFinishedExecutionIsAnsweredFromTheEngineAgain() {
    ExecutionRecord done = record("act_DONE", ExecutionState.COMPLETED, 7);
    engine = done;
    watches.offer(location(done), done);
    assertEquals(done, watches.await(location(done), 6, Duration.ofSeconds(5)));
    assertEquals(0, polls.get(), "held: answered from the watch");
    advance(Duration.ofSeconds(11));
    assertEquals(0, watches.size());
    assertEquals(done, watches.await(location(done), 6, Duration.ofSeconds(5)));
    assertEquals(1, polls.get(), "forgotten: the engine was asked");
    assertEquals(1, watches.settledSize(), "and the answer is held again");
  }
}
