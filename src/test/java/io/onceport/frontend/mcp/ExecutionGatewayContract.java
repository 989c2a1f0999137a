package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The attach rule as the MCP layer relies on it, stated once and run against every
 * {@link ExecutionGateway}: the real one on Temporal ({@code TemporalGatewayContractTest}) and the
 * {@link FakeGateway} the MCP tests use ({@code FakeGatewayContractTest}), so the fake cannot drift
 * into semantics the product does not have. Every implementation offers a tool {@code echo}
 * ({@code idempotency_key}) that completes with status 2xx.
 */
abstract class ExecutionGatewayContract {
  static final String ACTOR = "agent:deployer";
  static final String TOOL = "echo";
  private static final AtomicInteger COUNTER = new AtomicInteger();

  abstract ExecutionGateway gateway();

  /** Requests sent to the target so far (by every execution of this gateway). */
  abstract int dispatches();

  /** Waits until an execution whose result was delivered has closed: from then on an identical call is a new intent. */
  abstract void awaitClosed(String executionId) throws Exception;

  /** Arguments no other test of the run used: each test starts its own intents. */
  static JsonNode freshArguments() {
    return Json.object().put("service", "catalog").put("version", "v" + COUNTER.incrementAndGet() + "-" + System.nanoTime());
  }

  static ToolCall call(String actor, JsonNode args, String intentKey, String runId, String jsonRpcId) {
    return new ToolCall(actor, TOOL, args, runId, intentKey, "session-1", jsonRpcId, "2025-06-18", "contract-test/1",
        "127.0.0.1", 20_000);
  }

  private CallResult settled(ToolCall call) {
    CallResult r = gateway().call(call);
    assertEquals(ExecutionState.COMPLETED, r.record().state(), "the echo call completes within its wait: " + r.record().view());
    return r;
  }

  private void report(CallResult r, boolean delivered) {
    gateway().reportDelivery(r.record().executionId(),
        new DeliveryReport(r.callId(), delivered, Instant.now().toString(), delivered ? "" : "client gone"));
  }

  @Test
  void identicalCallBeforeDeliveryAttachesToTheFirstExecutionWithoutSendingAgain() throws Exception {
    JsonNode args = freshArguments();
    int before = dispatches();
    CallResult first = settled(call(ACTOR, args, null, null, "41"));
    assertFalse(first.attached());
    report(first, false);
    CallResult retry = settled(call(ACTOR, args, null, null, "42"));
    assertTrue(retry.attached());
    assertEquals(first.record().executionId(), retry.record().executionId());
    assertNotEquals(first.callId(), retry.callId());
    assertEquals(1, dispatches() - before);
    assertEquals(List.of("41", "42"), retry.record().calls().stream().map(AttachedCall::jsonRpcId).toList());
  }

  @Test
  void identicalCallAfterDeliveryIsANewExecution() throws Exception {
    JsonNode args = freshArguments();
    int before = dispatches();
    CallResult first = settled(call(ACTOR, args, null, null, "1"));
    report(first, true);
    awaitClosed(first.record().executionId());
    CallResult second = settled(call(ACTOR, args, null, null, "2"));
    assertFalse(second.attached());
    assertNotEquals(first.record().executionId(), second.record().executionId());
    assertEquals(2, dispatches() - before);
  }

  @Test
  void anotherActorOrOtherArgumentsNeverAttach() {
    JsonNode args = freshArguments();
    CallResult first = settled(call(ACTOR, args, null, null, "1"));
    CallResult otherActor = settled(call("agent:other", args, null, null, "1"));
    CallResult otherArgs = settled(call(ACTOR, freshArguments(), null, null, "1"));
    assertFalse(otherActor.attached());
    assertFalse(otherArgs.attached());
    assertEquals(3, List.of(first, otherActor, otherArgs).stream().map(r -> r.record().executionId()).distinct().count());
  }

  @Test
  void sameIntentKeyAttachesAndANewKeyIsANewExecution() {
    JsonNode args = freshArguments();
    String key = "key-" + args.path("version").asText();
    CallResult first = settled(call(ACTOR, args, key, "run-a", "1"));
    CallResult sameKey = settled(call(ACTOR, args, key, "run-a", "2"));
    CallResult newKey = settled(call(ACTOR, args, key + "-2", "run-a", "3"));
    assertTrue(sameKey.attached());
    assertEquals(first.record().executionId(), sameKey.record().executionId());
    assertFalse(newKey.attached());
    assertNotEquals(first.record().executionId(), newKey.record().executionId());
    assertEquals(key, first.record().intentKey());
  }

  @Test
  void sameIntentKeyAfterDeliveryStillAnswersWithItsExecution() throws Exception {
    JsonNode args = freshArguments();
    String key = "key-" + args.path("version").asText();
    CallResult first = settled(call(ACTOR, args, key, null, "1"));
    report(first, true);
    awaitClosed(first.record().executionId());
    int before = dispatches();
    CallResult again = settled(call(ACTOR, args, key, null, "2"));
    assertEquals(first.record().executionId(), again.record().executionId());
    assertEquals(before, dispatches());
  }

  /** The key names one request: other arguments, or the same ones in another run (intent scope), are another request. */
  @Test
  void sameIntentKeyForAnotherRequestIsRefusedNamingTheExecution() {
    JsonNode args = freshArguments();
    String key = "key-" + args.path("version").asText();
    CallResult first = settled(call(ACTOR, args, key, "run-a", "1"));
    int before = dispatches();
    for (ToolCall other : List.of(call(ACTOR, freshArguments(), key, "run-a", "2"), call(ACTOR, args, key, "run-b", "3"))) {
      GatewayException e = assertThrows(GatewayException.class, () -> gateway().call(other));
      assertEquals(GatewayException.Kind.INTENT_KEY_MISMATCH, e.kind());
      assertTrue(e.getMessage().contains("intent key " + key + " was already used by execution " + first.record().executionId()),
          e.getMessage());
    }
    assertEquals(before, dispatches());
  }

  @Test
  void unknownToolIsRefusedAndStartsNothing() {
    int before = dispatches();
    ToolCall c = new ToolCall(ACTOR, "no_such_tool", freshArguments(), null, null, "session-1", "1", "2025-06-18",
        "contract-test/1", "127.0.0.1", 1_000);
    GatewayException e = assertThrows(GatewayException.class, () -> gateway().call(c));
    assertEquals(GatewayException.Kind.UNKNOWN_TOOL, e.kind());
    assertEquals(before, dispatches());
    assertTrue(gateway().tools().stream().anyMatch(t -> t.tool().equals(TOOL)));
  }

  @Test
  void findAndListByActorAnswerForTheCallersExecutionsOnly() {
    CallResult r = settled(call(ACTOR, freshArguments(), null, null, "1"));
    String id = r.record().executionId();
    assertEquals(ACTOR, gateway().find(id).orElseThrow().actor());
    assertTrue(gateway().listByActor(ACTOR, 100).stream().anyMatch(x -> x.executionId().equals(id)));
    assertTrue(gateway().listByActor("agent:nobody", 100).isEmpty());
  }

  @Test
  void awaitChangeAnswersAtOnceForAnOlderVersionAndWithTheSameRecordWhenNothingChanged() {
    ExecutionRecord rec = settled(call(ACTOR, freshArguments(), null, null, "1")).record();
    ExecutionRecord older = gateway().awaitChange(rec.executionId(), 0, Duration.ofSeconds(10));
    assertTrue(older.version() >= rec.version(), older.version() + " < " + rec.version());
    long start = System.nanoTime();
    ExecutionRecord same = gateway().awaitChange(rec.executionId(), older.version(), Duration.ofMillis(300));
    assertEquals(older.version(), same.version());
    assertTrue(System.nanoTime() - start >= Duration.ofMillis(250).toNanos(), "waited out the wait");
  }

  @Test
  void cancellingACompletedExecutionChangesNothing() {
    ExecutionRecord rec = settled(call(ACTOR, freshArguments(), null, null, "1")).record();
    ExecutionRecord after = gateway().cancel(rec.executionId(), new CancelRequest(ACTOR, "contract test", null));
    assertEquals(ExecutionState.COMPLETED, after.state());
    assertEquals(ExecutionState.COMPLETED, gateway().find(rec.executionId()).orElseThrow().state());
  }
}
