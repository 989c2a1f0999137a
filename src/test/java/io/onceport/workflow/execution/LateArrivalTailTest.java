package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.Records;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The closing rule in the workflow: a delivered execution keeps answering identical calls for its
 * late-arrival tail, then refuses new attaches and closes once the repeated attempts of the attaches
 * it took can no longer come; an identical call after that is a new intent. Each test on a fresh
 * embedded engine whose clock it moves on (nothing else runs on it, so the skip is not held back
 * by another test's activity).
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class LateArrivalTailTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ScriptedDispatch dispatch = new ScriptedDispatch();
  private final RecordingJournal journal = new RecordingJournal();
  private EngineHarness harness;

  @BeforeEach
  void start() {
    String base = "http://127.0.0.1:9";
    harness = new EngineHarness("onceport-tail", new SimplePreparation(
        Contracts.http("status_tool", ReplayClass.STATUS_QUERY, base, Duration.ofMinutes(5)),
        Contracts.http("short_window_tool", ReplayClass.STATUS_QUERY, base, Duration.ofSeconds(2))),
        dispatch, journal, new AllowAll());
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  private static ToolCall call(String tool, String intentKey, String jsonRpcId) throws Exception {
    JsonNode args = JSON.readTree("{\"service\":\"catalog\",\"version\":\"tail\"}");
    return new ToolCall("agent:deployer", tool, args, null, intentKey, "session-1", jsonRpcId, "2025-06-18", "test/1",
        "127.0.0.1", 10_000);
  }

  private ExecutionRecord delivered(CallResult result) throws InterruptedException {
    harness.gateway.reportDelivery(result.record().executionId(),
        new DeliveryReport(result.callId(), true, Instant.now().toString(), ""));
    return Records.await(harness.directory, result.record().executionId(), r -> r.delivery() == Delivery.DELIVERED,
        Duration.ofSeconds(10));
  }

  @Test
  void identicalCallAfterTheTailIsANewExecution() throws Exception {
    CallResult first = harness.gateway.call(call("status_tool", null, "1"));
    ExecutionRecord record = delivered(first);
    assertTrue(Instant.parse(record.attachableUntil()).isAfter(Instant.parse(record.deliveredAt()).plusSeconds(299)),
        "attachable for the class's tail after the delivery: " + record.attachableUntil());
    harness.skipTime(ReplayClass.STATUS_QUERY.defaultDedupeAfterDelivery().plusSeconds(40));
    Records.awaitClosed(harness.directory, first.record().executionId(), Duration.ofSeconds(30));
    CallResult second = harness.gateway.call(call("status_tool", null, "2"));
    assertNotEquals(first.record().executionId(), second.record().executionId());
    assertFalse(second.attached());
    assertEquals(2, dispatch.dispatched.size());
  }

  @Test
  void keyedIntentStillAnswersAfterItsExecutionClosed() throws Exception {
    CallResult a = harness.gateway.call(call("status_tool", "closed-key", "1"));
    delivered(a);
    harness.skipTime(ReplayClass.STATUS_QUERY.defaultDedupeAfterDelivery().plusSeconds(40));
    Records.awaitClosed(harness.directory, a.record().executionId(), Duration.ofSeconds(30));
    CallResult b = harness.gateway.call(call("status_tool", "closed-key", "2"));
    assertEquals(a.record().executionId(), b.record().executionId());
    assertEquals(1, dispatch.dispatched.size());
  }

  @Test
  void undeliveredExecutionClosesWhenItsAttachWindowPasses() throws Exception {
    CallResult first = harness.gateway.call(call("short_window_tool", null, "1"));
    // The 2 s window, then the retry grace after the last attach.
    harness.skipTime(ToolExecutionWorkflow.ATTACH_RETRY_GRACE.plusSeconds(5));
    Records.awaitClosed(harness.directory, first.record().executionId(), Duration.ofSeconds(30));
    assertTrue(journal.entries.stream().anyMatch(e -> e.executionId().equals(first.record().executionId())
        && e.transition().equals("attach_window_closed")));
  }
}
