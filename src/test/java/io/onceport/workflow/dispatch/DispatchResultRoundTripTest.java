package io.onceport.workflow.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A dispatch result, with its list of redacted credentials, survives the data converters in use. */
class DispatchResultRoundTripTest {
  @TempDir Path data;

  private static <T> T roundTrip(DataConverter converter, T value, Class<T> type) {
    return converter.fromPayload(converter.toPayload(value).orElseThrow(), type, type);
  }

  @Test
  void aResultWithRedactedCredentialsRoundTripsPlainAndEncrypted() {
    DispatchResult result = DispatchResult.http(201, Map.of("location", "/v1/releases/rel_1"),
        "{\"echo\":\"[redacted:deploy-key]\"}", false, 12).withRedacted(List.of("deploy-key"));

    assertEquals(result, roundTrip(DataConverter.getDefaultInstance(), result, DispatchResult.class));
    assertEquals(result, roundTrip(io.onceport.shared.codec.Payloads.dataConverter(true, data), result, DispatchResult.class));
    assertEquals(List.of("deploy-key"), result.redacted());
  }

  @Test
  void aResultRecordedBeforeRedactionExistedReadsAsNothingRedacted() {
    Payload old = DataConverter.getDefaultInstance().toPayload(Map.of(
        "status", 200, "headers", Map.of(), "body", "ok", "truncated", false, "elapsedMillis", 3)).orElseThrow();

    DispatchResult read = DataConverter.getDefaultInstance().fromPayload(old, DispatchResult.class, DispatchResult.class);

    assertEquals(List.of(), read.redacted());
    assertEquals(200, read.status());
    assertEquals("ok", read.body());
  }
}
