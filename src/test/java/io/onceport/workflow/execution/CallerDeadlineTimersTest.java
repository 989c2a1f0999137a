package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Records;
import io.onceport.testing.Replayer;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.WorkflowExecutionHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The main method's timers for its callers' deadlines ({@link MainLoop#waitUntil}, {@link
 * DeadlineTimer}): a caller is answered at its own deadline, and a timer whose deadline no longer
 * matters is cancelled instead of waking a workflow task with nothing to do — with callers coming
 * and going, two of them with different deadlines, the later caller's the earlier, and the run's
 * own deadline (the attach window, cancelled at the delivery). On a fresh embedded engine, in real
 * time until the delivery, then its clock moved past the late-arrival tail.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CallerDeadlineTimersTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ScriptedDispatch dispatch = new ScriptedDispatch();
  private final CountDownLatch release = new CountDownLatch(1);
  private EngineHarness harness;

  @BeforeEach
  void start() {
    harness = new EngineHarness("onceport-caller-timers", new SimplePreparation(
        Contracts.http("status_tool", ReplayClass.STATUS_QUERY, "http://127.0.0.1:9", Duration.ofMinutes(5))),
        dispatch, new RecordingJournal(), new AllowAll());
    // The send is held until the test lets it go: callers wait on an execution with no answer yet.
    dispatch.fallback = r -> {
      try {
        if (!release.await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never released the send");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return ScriptedDispatch.ok(201, "{\"id\":\"rel_1\"}");
    };
  }

  @AfterEach
  void stop() {
    release.countDown();
    harness.close();
  }

  @Test
  void callersAreAnsweredAtTheirOwnDeadlinesAndNoTimerWakesATaskForNothing() throws Exception {
    CallResult first = harness.gateway.call(new ToolCall("agent:deployer", "status_tool",
        JSON.readTree("{\"service\":\"catalog\",\"version\":\"timers\"}"), null, null, "session-1", "1", "2025-06-18",
        "test/1", "127.0.0.1", 500));
    ExecutionRecord pending = first.record();
    assertFalse(pending.isSettled(), "the send is held: " + pending.state());
    WorkflowClient client = harness.connection.client();
    ToolExecutionWorkflow run = client.newWorkflowStub(ToolExecutionWorkflow.class, pending.workflowId(),
        Optional.of(pending.runId()));
    UpdateOptions<ExecutionRecord> accepted = UpdateOptions.<ExecutionRecord>newBuilder()
        .setWaitForStage(WorkflowUpdateStage.ACCEPTED).build();

    // A waits 20 s; B arrives after it and waits 2 s: the timer moves to B's deadline, then back to A's.
    WorkflowUpdateHandle<ExecutionRecord> a = WorkflowClient.startUpdate(run::awaitChange, pending.version(), 20_000L, accepted);
    long bStarted = System.nanoTime();
    WorkflowUpdateHandle<ExecutionRecord> b = WorkflowClient.startUpdate(run::awaitChange, pending.version(), 2_000L, accepted);
    ExecutionRecord bAnswer = b.getResultAsync().get(30, TimeUnit.SECONDS);
    long bWaitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - bStarted);
    assertEquals(pending.version(), bAnswer.version(), "nothing changed: B was answered by its deadline");
    assertTrue(bWaitedMillis >= 1_900, "B waited its 2 s: " + bWaitedMillis + " ms");
    assertFalse(a.getResultAsync().isDone(), "A still waits for its own, later deadline");

    // The send completes: A is answered with the change, long before its 20 s, and its timer is not needed any more.
    long released = System.nanoTime();
    release.countDown();
    ExecutionRecord aAnswer = a.getResultAsync().get(30, TimeUnit.SECONDS);
    assertTrue(aAnswer.version() > pending.version(), "A was answered with the change: " + aAnswer.state());
    assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released) < 15_000, "A was answered by the change, not its deadline");
    assertEquals(ExecutionState.COMPLETED, aAnswer.state());

    // Delivered: the attach window's timer is not needed any more either; the tail's is.
    harness.gateway.reportDelivery(pending.executionId(), new DeliveryReport(first.callId(), true, Instant.now().toString(), ""));
    Records.await(harness.directory, pending.executionId(), r -> r.delivery() == Delivery.DELIVERED, Duration.ofSeconds(15));
    harness.skipTime(ReplayClass.STATUS_QUERY.defaultDedupeAfterDelivery().plusSeconds(40));
    Records.awaitClosed(harness.directory, pending.executionId(), Duration.ofSeconds(30));

    WorkflowExecutionHistory history = client.fetchHistory(pending.workflowId(), pending.runId());
    List<HistoryEvent> events = history.getEvents();
    System.out.println("caller timers' events: " + events.stream().map(e -> e.getEventType().name().replace("EVENT_TYPE_", "")).toList());
    long started = count(events, EventType.EVENT_TYPE_TIMER_STARTED);
    long fired = count(events, EventType.EVENT_TYPE_TIMER_FIRED);
    long cancelled = count(events, EventType.EVENT_TYPE_TIMER_CANCELED);
    // Fired: the first caller's 500 ms, B's 2 s, the tail's. Everything else was cancelled — A's
    // twice (B's earlier deadline, then A's answer), the attach window's at the delivery — and no
    // timer was still pending when the run closed.
    assertEquals(3, fired, "fired: the first caller's, B's, the tail's");
    assertEquals(started, fired + cancelled, "every other timer was cancelled: started " + started + ", cancelled " + cancelled);
    assertTrue(cancelled >= 3, "A's (moved for B, then answered) and the window's: " + cancelled);
    assertEquals(List.of(), tasksWokenByATimerForNothing(events), "a fired timer woke a task that did nothing");
    // Cancelled and fired timers both replay.
    try (Replayer replayer = new Replayer()) {
      replayer.replay(history, ToolExecutionWorkflowImpl.class);
    }
  }

  private static long count(List<HistoryEvent> events, EventType type) {
    return events.stream().filter(e -> e.getEventType() == type).count();
  }

  /** Event ids of fired timers whose workflow task completed without a command. */
  private static List<Long> tasksWokenByATimerForNothing(List<HistoryEvent> events) {
    List<Long> idle = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).getEventType() != EventType.EVENT_TYPE_TIMER_FIRED) {
        continue;
      }
      int completed = i + 1;
      while (completed < events.size() && events.get(completed).getEventType() != EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        completed++;
      }
      boolean didWork = completed + 1 < events.size() && switch (events.get(completed + 1).getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EVENT_TYPE_TIMER_FIRED, EVENT_TYPE_ACTIVITY_TASK_STARTED,
            EVENT_TYPE_ACTIVITY_TASK_COMPLETED, EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED -> false;
        default -> true;
      };
      if (!didWork) {
        idle.add(events.get(i).getEventId());
      }
    }
    return idle;
  }
}
