package io.onceport.shared.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.history.v1.History;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AesGcmPayloadCodecTest {
  private static final String SECRET = "catalog-release-7f3a9e-secret-marker";
  @TempDir Path data;

  private static Payload plain(String text) {
    return DefaultDataConverter.newDefaultInstance().toPayload(text).orElseThrow();
  }

  @Test
  void encodedPayloadRoundTripsWithItsOriginalMetadata() {
    AesGcmPayloadCodec codec = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data));
    Payload original = plain(SECRET).toBuilder().putMetadata("custom", ByteString.copyFromUtf8("x")).build();

    Payload encoded = codec.encode(List.of(original)).get(0);

    assertEquals(Set.of("encoding", "encryption-key-id"), encoded.getMetadataMap().keySet());
    assertEquals("binary/encrypted", encoded.getMetadataMap().get("encoding").toStringUtf8());
    assertFalse(encoded.getData().toStringUtf8().contains(SECRET));
    assertEquals(original, codec.decode(List.of(encoded)).get(0));
  }

  @Test
  void samePayloadEncryptsDifferentlyEachTime() {
    AesGcmPayloadCodec codec = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data));
    Payload original = plain(SECRET);
    assertNotEquals(codec.encode(List.of(original)).get(0).getData(), codec.encode(List.of(original)).get(0).getData());
  }

  @Test
  void keyFilesAreOwnerOnlyAndActivePointsAtOne() throws Exception {
    KeyRing ring = KeyRing.loadOrCreate(data);
    Path dir = data.resolve("keys/payload");
    assertEquals(ring.activeId(), Files.readString(dir.resolve("active")).trim());
    assertEquals(32, Files.size(dir.resolve(ring.activeId())));
    assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
        Files.getPosixFilePermissions(dir.resolve(ring.activeId())));
    assertEquals(List.of(ring.activeId()), KeyRing.loadOrCreate(data).ids());
  }

  @Test
  void payloadsEncodedBeforeRotationStillDecode() {
    KeyRing ring = KeyRing.loadOrCreate(data);
    String first = ring.activeId();
    Payload before = new AesGcmPayloadCodec(ring).encode(List.of(plain("before"))).get(0);

    String second = ring.rotate();

    assertNotEquals(first, second);
    assertEquals(second, ring.activeId());
    assertEquals(List.of(first, second), ring.ids());
    // A fresh process (new KeyRing from the same files) reads both.
    AesGcmPayloadCodec reloaded = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data));
    Payload after = reloaded.encode(List.of(plain("after"))).get(0);
    assertEquals(second, after.getMetadataMap().get("encryption-key-id").toStringUtf8());
    assertEquals(plain("before"), reloaded.decode(List.of(before)).get(0));
    assertEquals(plain("after"), reloaded.decode(List.of(after)).get(0));
  }

  @Test
  void keyRotatedByAnotherProcessDecodesWithoutRestart() {
    KeyRing mine = KeyRing.loadOrCreate(data);
    KeyRing other = KeyRing.loadOrCreate(data);
    other.rotate();
    Payload fromOther = new AesGcmPayloadCodec(other).encode(List.of(plain("x"))).get(0);
    assertEquals(plain("x"), new AesGcmPayloadCodec(mine).decode(List.of(fromOther)).get(0));
  }

  @Test
  void unknownKeyIdFailsNamingTheKey() {
    Payload encoded = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data.resolve("a"))).encode(List.of(plain("x"))).get(0);
    KeyRing otherRing = KeyRing.loadOrCreate(data.resolve("b"));
    String keyId = encoded.getMetadataMap().get("encryption-key-id").toStringUtf8();

    PayloadRefusedException e = assertThrows(PayloadRefusedException.class,
        () -> new AesGcmPayloadCodec(otherRing).decode(List.of(encoded)));

    assertEquals("payload encrypted with unknown key " + keyId + " (not in " + data.resolve("b/keys/payload")
        + "; keys: " + otherRing.activeId() + ")", e.getMessage());
  }

  @Test
  void tamperedCiphertextFailsAuthentication() {
    AesGcmPayloadCodec codec = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data));
    Payload encoded = codec.encode(List.of(plain(SECRET))).get(0);
    byte[] bytes = encoded.getData().toByteArray();
    bytes[bytes.length / 2] ^= 0x01;
    Payload tampered = encoded.toBuilder().setData(ByteString.copyFrom(bytes)).build();
    String keyId = encoded.getMetadataMap().get("encryption-key-id").toStringUtf8();

    PayloadRefusedException e = assertThrows(PayloadRefusedException.class, () -> codec.decode(List.of(tampered)));

    assertEquals("encrypted payload failed authentication with key " + keyId + " (tampered or corrupted)", e.getMessage());
  }

  @Test
  void payloadMovedToAnotherKeyIdFailsAuthentication() {
    KeyRing ring = KeyRing.loadOrCreate(data);
    AesGcmPayloadCodec codec = new AesGcmPayloadCodec(ring);
    Payload encoded = codec.encode(List.of(plain(SECRET))).get(0);
    String other = ring.rotate();
    Payload relabelled = encoded.toBuilder().putMetadata("encryption-key-id", ByteString.copyFromUtf8(other)).build();
    assertThrows(PayloadRefusedException.class, () -> codec.decode(List.of(relabelled)));
  }

  @Test
  void encryptionOffIsTheDefaultConverterAndCreatesNoKeys() {
    DataConverter plain = Payloads.dataConverter(false, data);
    assertEquals("json/plain", plain.toPayload("x").orElseThrow().getMetadataMap().get("encoding").toStringUtf8());
    assertFalse(Files.exists(data.resolve("keys")));
    DataConverter on = Payloads.dataConverter(true, data);
    assertEquals("binary/encrypted", on.toPayload("x").orElseThrow().getMetadataMap().get("encoding").toStringUtf8());
  }

  @Test
  void aPayloadOnceportDidNotEncryptIsRefusedAsAConverterFailure() {
    AesGcmPayloadCodec codec = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data));
    PayloadRefusedException e = assertThrows(PayloadRefusedException.class, () -> codec.decode(List.of(plain("forged"))));
    assertEquals("refused a payload Onceport did not encrypt (encoding \"json/plain\"): payload encryption is on, so workflow "
        + "inputs, signals and updates must be encrypted with this deployment's keys (an Onceport client, or the codec "
        + "server's /codec/encode)", e.getMessage());
    // A DataConverterException is what the SDK drops a signal for instead of failing the workflow task.
    assertTrue(e instanceof io.temporal.common.converter.DataConverterException);
    DataConverter converter = Payloads.dataConverter(KeyRing.loadOrCreate(data));
    assertThrows(PayloadRefusedException.class, () -> converter.fromPayload(plain("forged"), String.class, String.class));
  }

  @Test
  void theClisDisplayConverterShowsPlainAndEncryptedPayloadsAndEncodesLikeAWorker() {
    KeyRing ring = KeyRing.loadOrCreate(data);
    DataConverter display = Payloads.displayDataConverter(ring);
    assertEquals("legacy", display.fromPayload(plain("legacy"), String.class, String.class));
    Payload encoded = display.toPayload("x").orElseThrow();
    assertEquals("binary/encrypted", encoded.getMetadataMap().get("encoding").toStringUtf8());
    assertEquals("x", Payloads.dataConverter(ring).fromPayload(encoded, String.class, String.class), "a worker accepts what it encodes");
  }

  @Test
  void theDisplayCodecPassesPlainPayloadsThroughForTheUi() {
    KeyRing ring = KeyRing.loadOrCreate(data);
    AesGcmPayloadCodec display = AesGcmPayloadCodec.forDisplay(ring);
    assertEquals(plain("legacy"), display.decode(List.of(plain("legacy"))).get(0));
    Payload encrypted = new AesGcmPayloadCodec(ring).encode(List.of(plain(SECRET))).get(0);
    assertEquals(plain(SECRET), display.decode(List.of(encrypted)).get(0));
  }

  @WorkflowInterface
  public interface Echo {
    @WorkflowMethod
    String echo(String input);
  }

  public static class EchoImpl implements Echo {
    @Override
    public String echo(String input) {
      return input + "|done";
    }
  }

  @Test
  void workflowHistoryHoldsOnlyEncryptedPayloadsWithoutThePlaintext() {
    DataConverter converter = Payloads.dataConverter(KeyRing.loadOrCreate(data));
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(converter).build())
        .build());
    try {
      Worker worker = env.newWorker("codec-test");
      worker.registerWorkflowImplementationTypes(EchoImpl.class);
      env.start();
      Echo echo = env.getWorkflowClient().newWorkflowStub(Echo.class,
          WorkflowOptions.newBuilder().setTaskQueue("codec-test").setWorkflowId("codec-wf").build());

      assertEquals(SECRET + "|done", echo.echo(SECRET));

      History history = env.getWorkflowClient().fetchHistory("codec-wf").getHistory();
      List<Payload> payloads = new ArrayList<>();
      collectPayloads(history, payloads);
      assertTrue(payloads.size() >= 2, "expected input and result payloads, found " + payloads.size());
      for (Payload p : payloads) {
        assertEquals("binary/encrypted", p.getMetadataMap().get("encoding").toStringUtf8());
      }
      byte[] all = history.toByteArray();
      assertEquals(-1, indexOf(all, SECRET.getBytes(StandardCharsets.UTF_8)));
      // The same history read without the codec would show the marker if it were plain.
      assertEquals(Optional.of(SECRET + "|done"),
          Optional.of(converter.fromPayload(payloads.get(payloads.size() - 1), String.class, String.class)));
    } finally {
      env.close();
    }
  }

  private static void collectPayloads(com.google.protobuf.Message message, List<Payload> out) {
    if (message instanceof Payload p) {
      out.add(p);
      return;
    }
    for (var entry : message.getAllFields().entrySet()) {
      Object value = entry.getValue();
      if (value instanceof List<?> list) {
        for (Object item : list) {
          if (item instanceof com.google.protobuf.Message m) {
            collectPayloads(m, out);
          } else if (item instanceof com.google.protobuf.MapEntry<?, ?> me && me.getValue() instanceof com.google.protobuf.Message mv) {
            collectPayloads(mv, out);
          }
        }
      } else if (value instanceof com.google.protobuf.Message m) {
        collectPayloads(m, out);
      }
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
