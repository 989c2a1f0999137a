package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.onceport.shared.codec.KeyRing;
import io.onceport.shared.codec.Payloads;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CodecsTest {
  @TempDir Path data;

  @Test
  void cliDecodesEncryptedPayloadsWithTheLocalKeys() {
    DataConverter server = Payloads.dataConverter(KeyRing.loadOrCreate(data));
    Payload encrypted = server.toPayload("release v7").orElseThrow();

    DataConverter cli = Codecs.cliDataConverter(data);

    assertEquals("release v7", cli.fromPayload(encrypted, String.class, String.class));
  }

  @Test
  void withoutKeysTheCliUsesTheDefaultConverterAndCreatesNone() {
    assertSame(DataConverter.getDefaultInstance(), Codecs.cliDataConverter(data));
    assertFalse(Files.exists(KeyRing.directory(data)));
    assertEquals(Optional.of("x"), Optional.of(Codecs.cliDataConverter(data)
        .fromPayload(DataConverter.getDefaultInstance().toPayload("x").orElseThrow(), String.class, String.class)));
  }
}
