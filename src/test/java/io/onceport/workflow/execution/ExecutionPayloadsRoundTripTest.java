package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.Contracts;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.Sent;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.common.converter.DataConverter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The records the replay-policy workflow sends through Temporal survive the data converter, and
 * the payloads of earlier versions (no {@code settle}, three copies of the arguments, no
 * {@code sends}) still decode.
 */
class ExecutionPayloadsRoundTripTest {
  private static final DataConverter CONVERTER = DataConverter.getDefaultInstance();

  private static <T> T roundTrip(T value, Class<T> type) {
    return CONVERTER.fromPayload(CONVERTER.toPayload(value).orElseThrow(), type, type);
  }

  private static <T> T decode(String json, Class<T> type) {
    io.temporal.api.common.v1.Payload payload = io.temporal.api.common.v1.Payload.newBuilder()
        .putMetadata("encoding", com.google.protobuf.ByteString.copyFromUtf8("json/plain"))
        .setData(com.google.protobuf.ByteString.copyFrom(json, StandardCharsets.UTF_8)).build();
    return CONVERTER.fromPayload(payload, type, type);
  }

  @Test
  void theSendRequestWithItsCarriedJournalEntriesRoundTrips() {
    ToolContract contract = Contracts.http("t", ReplayClass.STATUS_QUERY, "http://127.0.0.1:9", Duration.ofMinutes(5));
    DispatchRequest request = new DispatchRequest("act_1", "hmac-sha256:00", contract, "{\"a\":1}", 2,
        List.of(new JournalEntry("act_1", "hmac-sha256:00", "call", 3, "2026-12-01T00:00:00Z", Map.of("retry", true, "jsonrpc_id", "7"))),
        "res_1");
    assertEquals(request, roundTrip(request, DispatchRequest.class));
    Sent sent = new Sent(DispatchResult.http(201, Map.of("location", "/r/1"), "{}", false, 3), "disk full");
    assertEquals(sent, roundTrip(sent, Sent.class));
  }

  @Test
  void aStatusSpecWithSettleRoundTripsAndOneWithoutItDefaultsToTheTimeout() {
    StatusSpec settled = new StatusSpec("GET", "http://h/{{execution_id}}", List.of(200), List.of(404), Duration.ofMinutes(2));
    assertEquals(settled, roundTrip(settled, StatusSpec.class));
    StatusSpec old = decode("{\"method\":\"GET\",\"url\":\"http://h/x\",\"completedWhen\":[200],\"notExecutedWhen\":[404]}", StatusSpec.class);
    assertNull(old.settle());
  }

  @Test
  void anInputCarriesTheArgumentsOnceAndShowsThemMasked() {
    ToolContract plain = Contracts.http("t", ReplayClass.IRREVERSIBLE, "http://127.0.0.1:9", Duration.ofMinutes(5));
    ToolContract contract = new ToolContract(plain.tool(), plain.description(), plain.inputSchema(), null, plain.channel(),
        plain.http(), null, plain.replay(), List.of(), List.of("token"));
    ExecutionInput input = ExecutionInput.of("hmac-sha256:00", "t", "agent:a", "actor:agent:a", null, "s1", "http://h/x", "POST",
        contract, "{\"version\":\"1\",\"token\":\"s3cret\",\"service\":\"a\"}", "auto");
    ExecutionInput back = roundTrip(input, ExecutionInput.class);
    assertEquals(input, back);
    assertNull(back.canonicalRecord());
    assertNull(back.maskedArguments());
    assertEquals("{\"service\":\"a\",\"token\":\"***\",\"version\":\"1\"}", back.shownArguments());
    String payload = CONVERTER.toPayload(input).orElseThrow().getData().toStringUtf8();
    assertEquals(1, payload.split("s3cret", -1).length - 1, "the arguments travel once: " + payload);
  }

  @Test
  void aRecordWithItsSendsRoundTripsAndAnOlderRecordWithoutThemDecodes() {
    ExecutionRecord.Send send = new ExecutionRecord.Send(1, "act_1", "2026-12-01T00:00:00Z", "2026-12-01T00:00:01Z",
        ExecutionRecord.Send.WORKER_LOST, null, "heartbeat timeout", "resend_same_key");
    ExecutionRecord record = new ExecutionRecord("act_1", "wf", "run", "hmac-sha256:00", null, "t", "agent:a", "actor:agent:a", "s1",
        "http", "http://h/x", "POST", null, "idempotency_key", "{}", ExecutionState.COMPLETED, Outcome.COMPLETED, Delivery.PENDING,
        "2026-12-01T00:00:00Z", null, null, null, null, 201, null, "res_1", null, null, null, 1, List.of(send), List.of(), List.of(),
        List.of(), null, null, "completed", 4);
    ExecutionRecord back = roundTrip(record, ExecutionRecord.class);
    assertEquals(record, back);
    assertTrue(back.sends().get(0).mayHaveReachedTarget());
    String json = CONVERTER.toPayload(record).orElseThrow().getData().toStringUtf8().replace(",\"sends\":[" + sendJson(send) + "]", "");
    assertTrue(!json.contains("\"sends\""), json);
    assertEquals(List.of(), decode(json, ExecutionRecord.class).sends());
  }

  private static String sendJson(ExecutionRecord.Send send) {
    return CONVERTER.toPayload(send).orElseThrow().getData().toStringUtf8();
  }
}
