package io.onceport.app.codec;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.onceport.shared.codec.AesGcmPayloadCodec;
import io.onceport.shared.codec.KeyRing;
import io.onceport.shared.codec.Payloads;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.frontend.temporal.InBandAnswers;
import io.onceport.frontend.temporal.TemporalExecutionGateway;
import io.onceport.app.engine.WorkerHost;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.execution.ExecutionState;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.SearchAttributes;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real execution with encryption on: the worker and the gateway share one key ring, Temporal's
 * history holds only ciphertext, and the codec server gives operators the plaintext back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EncryptedExecutionTest {
  private static final String MARKER = "catalog-7f3a9e-plaintext-marker";
  @TempDir Path data;

  @Test
  void historyOfAnExecutionIsCiphertextAndTheCodecServerDecodesIt() throws Exception {
    KeyRing keys = KeyRing.loadOrCreate(data);
    ScriptedDispatch dispatch = new ScriptedDispatch();
    dispatch.fallback = r -> ScriptedDispatch.ok(201, "{\"id\":\"rel_1\",\"echo\":\"" + MARKER + "-response\"}");
    SimplePreparation preparation = new SimplePreparation(
        Contracts.http("create_release", ReplayClass.STATUS_QUERY, "http://127.0.0.1:9", Duration.ofMinutes(5)));
    try (EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
        TemporalConnection connection = TemporalConnection.connect(
            engine.target(), "default", true, Payloads.dataConverter(keys), Duration.ofSeconds(10))) {
      connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
      try (WorkerHost worker = WorkerHost.start(connection, "enc-test", dispatch, new RecordingJournal(), new AllowAll())) {
        TemporalExecutionGateway gateway = new TemporalExecutionGateway(
            connection, new ExecutionDirectory(connection), "enc-test", preparation, "test-frontend", null, InBandAnswers.NONE);

        CallResult result = gateway.call(new ToolCall("agent:deployer", "create_release",
            new ObjectMapper().readTree("{\"service\":\"catalog\",\"version\":\"" + MARKER + "\"}"),
            null, null, "session-1", "1", "2025-06-18", "test/1", "127.0.0.1", 10_000));
        assertEquals(ExecutionState.COMPLETED, result.record().state());
        assertTrue(result.record().result().body().contains(MARKER + "-response"));

        History history = connection.client().fetchHistory(result.record().workflowId(), result.record().runId()).getHistory();
        byte[] all = history.toByteArray();
        assertEquals(-1, new String(all, StandardCharsets.ISO_8859_1).indexOf(MARKER), "plaintext found in history");
        List<Payload> payloads = new ArrayList<>();
        for (HistoryEvent event : history.getEventsList()) {
          collect(event, payloads);
        }
        assertTrue(payloads.size() >= 4, "found only " + payloads.size() + " payloads");
        for (HistoryEvent event : history.getEventsList()) {
          List<Payload> inEvent = new ArrayList<>();
          collect(event, inEvent);
          for (Payload p : inEvent) {
            assertEquals(AesGcmPayloadCodec.ENCODING, p.getMetadataMap().get("encoding").toStringUtf8(),
                event.getEventType() + ": " + p);
          }
        }

        Javalin app = new CodecServer(new AesGcmPayloadCodec(KeyRing.loadOrCreate(data)), "op_token"::equals, List.of(),
            CodecServer.DEFAULT_PREFIX).app().start("127.0.0.1", 0);
        try {
          HttpResponse<String> decoded = HttpClient.newHttpClient().send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/codec/decode"))
                  .header("Authorization", "Bearer op_token")
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(CodecServer.render(payloads)))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
          assertEquals(200, decoded.statusCode());
          String plain = new String(CodecServer.parse(decoded.body().getBytes()).stream()
              .map(p -> p.getData().toStringUtf8()).reduce("", String::concat));
          assertTrue(plain.contains(MARKER), "decoded payloads lack the argument");
          assertTrue(plain.contains(MARKER + "-response"), "decoded payloads lack the target response");
        } finally {
          app.stop();
        }
      }
    }
  }

  /** Every payload in an event except search attributes, which Temporal indexes and the codec never sees. */
  private static void collect(com.google.protobuf.Message message, List<Payload> out) {
    if (message instanceof Payload p) {
      out.add(p);
      return;
    }
    if (message instanceof SearchAttributes) {
      return;
    }
    if (message instanceof io.temporal.api.history.v1.MarkerRecordedEventAttributes marker) {
      // The SDK writes its own bookkeeping (activityId, type, time, meta) of local-activity markers
      // with the default converter; the activity's input and result go through the codec.
      for (String key : List.of("input", "result")) {
        if (marker.getDetailsMap().containsKey(key)) {
          out.addAll(marker.getDetailsMap().get(key).getPayloadsList());
        }
      }
      return;
    }
    for (var entry : message.getAllFields().entrySet()) {
      Object value = entry.getValue();
      List<?> values = value instanceof List<?> list ? list : List.of(value);
      for (Object item : values) {
        if (item instanceof com.google.protobuf.MapEntry<?, ?> me && me.getValue() instanceof com.google.protobuf.Message mv) {
          collect(mv, out);
        } else if (item instanceof com.google.protobuf.Message m) {
          collect(m, out);
        }
      }
    }
  }
}
