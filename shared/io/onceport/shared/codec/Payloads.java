package io.onceport.shared.codec;

import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.file.Path;
import java.util.List;

/**
 * The data converters Onceport uses: encrypted by default, plain when encryption is turned off.
 * Their JSON borrows buffers from one process-wide pool ({@link JsonBuffers}).
 */
public final class Payloads {
  private Payloads() {}

  /** The default converter wrapped in {@link AesGcmPayloadCodec} over {@code keys}. */
  public static DataConverter dataConverter(KeyRing keys) {
    JsonBuffers.shareStandardConverter();
    return new CodecDataConverter(DefaultDataConverter.newDefaultInstance(), List.of(new AesGcmPayloadCodec(keys)));
  }

  /**
   * The converter of a command that shows records to an operator (the CLI): decodes what Onceport
   * encrypted and passes plain payloads through (a run from before encryption was on), encodes
   * like {@link #dataConverter(KeyRing)}. Never for a worker, whose inputs must be refused when plain.
   */
  public static DataConverter displayDataConverter(KeyRing keys) {
    JsonBuffers.shareStandardConverter();
    return new CodecDataConverter(DefaultDataConverter.newDefaultInstance(), List.of(AesGcmPayloadCodec.forDisplay(keys)));
  }

  /**
   * The converter for a process: encrypted with the keys under {@code <dataDir>/keys/payload}
   * (created on first use) when {@code encrypt}, else Temporal's default. Every worker and front
   * end of one deployment must agree, and share the same key files.
   */
  public static DataConverter dataConverter(boolean encrypt, Path dataDir) {
    JsonBuffers.shareStandardConverter();
    return encrypt ? dataConverter(KeyRing.loadOrCreate(dataDir)) : DefaultDataConverter.newDefaultInstance();
  }
}
