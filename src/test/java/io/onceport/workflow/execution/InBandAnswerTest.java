package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.uber.m3.tally.Scope;
import io.onceport.activity.dispatch.DispatchActivitiesImpl;
import io.onceport.activity.dispatch.DispatchJournal;
import io.onceport.activity.http.HttpChannel;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.app.runtime.InProcessAnswers;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Records;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.api.enums.v1.EventType;
import io.temporal.common.WorkflowExecutionHistory;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker and a front end in one process ({@code onceport serve}): the send hands its settled
 * record to the waiting call in band, the front end's delivery report goes straight back to the
 * send, and the run closes in the workflow task that records the answer — against a real
 * keep-alive HTTP target that counts every request, with the real dispatch activity.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InBandAnswerTest {
  private static final String QUEUE = "onceport-in-band-test";
  /** A delivered in-band call's history, recorded with {@code -Donceport.recordHistories=true}. */
  static final String IN_BAND_HISTORY = "tool-execution-in-band-delivered";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MockWebServer target = new MockWebServer();
  private static final AtomicInteger received = new AtomicInteger();
  private static final RecordingJournal workflowJournal = new RecordingJournal();
  private static final List<JournalEntry> sendJournal = new CopyOnWriteArrayList<>();
  private static final List<DispatchRequest> sends = new CopyOnWriteArrayList<>();
  private static volatile long answerDelayMillis;
  private static EngineHarness harness;
  private static AutoCloseable answering;
  private static DispatchActivitiesImpl dispatch;

  @BeforeAll
  static void start() throws Exception {
    target.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        received.incrementAndGet();
        return new MockResponse.Builder().code(201).body("{\"release\":\"r-" + received.get() + "\"}")
            .headersDelay(answerDelayMillis, TimeUnit.MILLISECONDS).build();
      }
    });
    target.start(InetAddress.getByName("127.0.0.1"), 0);
    String base = "http://127.0.0.1:" + target.getPort();
    DispatchJournal journal = new DispatchJournal() {
      @Override
      public void dispatched(DispatchRequest request) {
        sends.add(request);
        sendJournal.add(new JournalEntry(request.executionId(), request.fingerprint(), "dispatched", request.attempt(),
            Instant.now().toString(), Map.of()));
      }

      @Override
      public void append(List<JournalEntry> entries, Scope metrics) {
        sendJournal.addAll(entries);
      }
    };
    dispatch = new DispatchActivitiesImpl(Map.of(ToolContract.Channel.HTTP, new HttpChannel()), journal, CredentialResolver.NONE,
        InProcessAnswers.of(QUEUE));
    harness = new EngineHarness(QUEUE, new SimplePreparation(
        Contracts.http("release", ReplayClass.STATUS_QUERY, base, Duration.ofMinutes(5))), dispatch, workflowJournal, new AllowAll());
    answering = InProcessAnswers.of(QUEUE).workerStarted();
  }

  @AfterAll
  static void stop() throws Exception {
    answering.close();
    harness.close();
    dispatch.close();
    target.close();
  }

  private static ToolCall call(String version, String rpcId) throws Exception {
    return new ToolCall("agent:deployer", "release", JSON.readTree("{\"service\":\"catalog\",\"version\":\"" + version + "\"}"),
        null, null, "session-1", rpcId, "2025-06-18", "test/1", "127.0.0.1", 20_000);
  }

  /** Delivered, then the engine's clock past the late-arrival tail and the retry grace: the run closes. */
  private static void awaitClosedAfterTheTail(String executionId) throws InterruptedException {
    Records.await(harness.directory, executionId, r -> r.delivery() == Delivery.DELIVERED, Duration.ofSeconds(30));
    harness.skipTime(Duration.ofMinutes(11));
    Records.awaitClosed(harness.directory, executionId, Duration.ofSeconds(30));
  }

  private static long count(WorkflowExecutionHistory history, EventType type) {
    return history.getEvents().stream().filter(e -> e.getEventType() == type).count();
  }

  @Test
  void aDeliveredInBandAnswerIsRecordedInTheSecondWorkflowTaskWithOneRequestAndOneDeliveredEntry() throws Exception {
    int before = received.get();
    assertTrue(harness.gateway.answersInBand());
    CallResult result = harness.gateway.call(call("1", "1"));
    ExecutionRecord answered = result.record();
    assertEquals(ExecutionState.COMPLETED, answered.state());
    assertEquals(201, answered.targetStatus());
    harness.gateway.reportDelivery(answered.executionId(), new DeliveryReport(result.callId(), true, Instant.now().toString(), ""));
    awaitClosedAfterTheTail(answered.executionId());

    ExecutionRecord stored = harness.directory.record(harness.directory.locate(answered.executionId()).orElseThrow());
    assertEquals(Delivery.DELIVERED, stored.delivery());
    // The plan leaves out what the send carries itself (its fingerprint, its execution id) ...
    DispatchRequest send = sends.stream().filter(r -> r.executionId().equals(answered.executionId())).findFirst().orElseThrow();
    assertFalse(send.answerPlan().execution().toString().contains(send.fingerprint()), send.answerPlan().execution().toString());
    assertFalse(send.answerPlan().execution().has("executionId"));
    assertFalse(send.answerPlan().execution().path("input").has("executionId"));
    // ... and the in-band record is the one the workflow built from the same answer.
    assertEquals(stored.executionId(), answered.executionId());
    assertEquals(stored.fingerprint(), answered.fingerprint());
    assertEquals(stored.workflowId(), answered.workflowId());
    assertEquals(stored.runId(), answered.runId());
    assertEquals(stored.tool(), answered.tool());
    assertEquals(stored.actor(), answered.actor());
    assertEquals(stored.target(), answered.target());
    assertEquals(stored.state(), answered.state());
    assertEquals(stored.outcome(), answered.outcome());
    assertEquals(stored.result(), answered.result());
    assertEquals(stored.resultReference(), answered.resultReference());
    assertEquals(stored.sends().size(), answered.sends().size());
    assertEquals(stored.transitions().stream().map(ExecutionRecord.Transition::state).toList(),
        answered.transitions().stream().map(ExecutionRecord.Transition::state).toList());
    assertEquals(stored.version() - 2, answered.version(), "the stored record adds only the delivery and the tail's end");
    assertEquals(1, received.get() - before, "requests the target received");

    WorkflowExecutionHistory history = harness.connection.client().fetchHistory(stored.workflowId(), stored.runId());
    System.out.println("one in-band call's events (" + history.getEvents().size() + "): " + history.getEvents().stream()
        .map(e -> e.getEventType().name().replace("EVENT_TYPE_", "") + " " + e.getSerializedSize()).toList());
    // The in-band path replays as it ran (and, recorded once, keeps replaying: ToolExecutionReplayTest).
    io.temporal.testing.WorkflowReplayer.replayWorkflowExecution(history, ToolExecutionWorkflowImpl.class);
    if (Boolean.getBoolean("onceport.recordHistories")) {
      java.nio.file.Files.writeString(java.nio.file.Path.of("src/test/resources/histories/" + IN_BAND_HISTORY + ".json"),
          history.toJson(true));
    }
    assertEquals(3, io.onceport.testing.Histories.tasksWithCommands(history), "answer and delivery in the second task, the close after the late-arrival tail in "
        + "the third (a task without commands, woken by something else, may come between)");
    assertEquals(0, count(history, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED), "no delivery signal");
    assertEquals(1, count(history, EventType.EVENT_TYPE_TIMER_STARTED), "one timer, the tail's: none for the caller's deadline");
    assertEquals(0, count(history, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES) - 1, "one upsert: the final state");
    assertEquals(0, count(history, EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED),
        "no memo write: the start request carried the request summary, and the state label says completed, delivered");
    assertEquals(ExecutionSearchAttributes.requestSummary(stored.tool(), stored.arguments()),
        harness.connection.client().newUntypedWorkflowStub(stored.workflowId()).describe().getMemo(
            ExecutionSearchAttributes.MEMO_SUMMARY, String.class));
    assertTrue(history.getEvents().size() <= 23, "events (one task without commands may come between): " + history.getEvents().size());
    List<String> delivered = sendJournal.stream().filter(e -> e.executionId().equals(stored.executionId()))
        .map(JournalEntry::transition).filter(t -> t.equals("delivered")).toList();
    assertEquals(List.of("delivered"), delivered, "the send journaled the delivery once");
    assertFalse(workflowJournal.entries.stream().anyMatch(e -> e.executionId().equals(stored.executionId())
        && e.transition().equals("delivered")), "and the workflow did not journal it again");
  }

  @Test
  void aNotDeliveredInBandAnswerKeepsTheRunAttachableAndTheRetryGetsTheStoredResultWithoutASecondRequest() throws Exception {
    int before = received.get();
    CallResult first = harness.gateway.call(call("2", "7"));
    assertEquals(ExecutionState.COMPLETED, first.record().state());
    harness.gateway.reportDelivery(first.record().executionId(),
        new DeliveryReport(first.callId(), false, Instant.now().toString(), "cancelled by the client"));
    ExecutionRecord after = harness.gateway.awaitChange(first.record().executionId(), first.record().version(), Duration.ofSeconds(10));
    assertEquals(Delivery.NOT_DELIVERED, after.delivery());

    CallResult retry = harness.gateway.call(call("2", "8"));
    assertEquals(first.record().executionId(), retry.record().executionId(), "the retry attached to the same execution");
    assertTrue(retry.attached());
    assertEquals(ExecutionState.COMPLETED, retry.record().state());
    assertEquals(1, received.get() - before, "requests the target received");
  }

  @Test
  void aCallerThatStoppedWaitingBeforeTheAnswerIsAnsweredThroughTheEngineAndNothingIsSentTwice() throws Exception {
    int before = received.get();
    answerDelayMillis = 3_000;
    try {
      ToolCall shortWait = new ToolCall("agent:deployer", "release", JSON.readTree("{\"service\":\"catalog\",\"version\":\"3\"}"),
          null, null, "session-1", "9", "2025-06-18", "test/1", "127.0.0.1", 500);
      CallResult early = harness.gateway.call(shortWait);
      assertFalse(early.record().isSettled(), "the wait ended before the slow target answered: " + early.record().state());
      ExecutionRecord settled = early.record();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!settled.isSettled() && System.nanoTime() - deadline < 0) {
        settled = harness.gateway.awaitChange(settled.executionId(), settled.version(), Duration.ofSeconds(5));
      }
      assertEquals(ExecutionState.COMPLETED, settled.state());
      harness.gateway.reportDelivery(settled.executionId(), new DeliveryReport(early.callId(), true, Instant.now().toString(), ""));
      awaitClosedAfterTheTail(settled.executionId());
      ExecutionRecord stored = harness.directory.record(harness.directory.locate(settled.executionId()).orElseThrow());
      assertEquals(Delivery.DELIVERED, stored.delivery(), "the report went by signal");
      assertEquals(1, received.get() - before, "requests the target received");
    } finally {
      answerDelayMillis = 0;
    }
  }
}
