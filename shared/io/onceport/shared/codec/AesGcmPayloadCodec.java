package io.onceport.shared.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.temporal.api.common.v1.Payload;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts every payload with AES-256-GCM so arguments and target responses are not readable in
 * Temporal history or its database. The whole original {@link Payload} (metadata and data) is
 * serialized and encrypted; the outer payload carries only {@code encoding: binary/encrypted} and
 * {@code encryption-key-id}, so keys can rotate: decoding picks the key named in the payload.
 *
 * <p>Data layout: 12-byte random nonce followed by ciphertext and 16-byte tag. The key id is bound
 * as additional authenticated data, so moving a payload's metadata to another key fails the tag
 * check instead of decrypting garbage.
 *
 * <p><b>It refuses what it did not encrypt.</b> With encryption on, a payload that is not {@code
 * binary/encrypted} is not decoded as plain JSON but refused ({@link PayloadRefusedException}):
 * someone who can reach the Temporal frontend but holds no payload key cannot hand a workflow a
 * signal or update input of their own making. A refused update input fails the update's
 * validation (the caller gets the message, history gets nothing); a refused signal input is
 * dropped by the SDK without failing the workflow task. Only the codec server's display path
 * ({@link #forDisplay}) passes plain payloads through, so the Temporal UI can show a history that
 * also holds plain payloads (search attributes, payloads from before encryption was turned on).
 */
public final class AesGcmPayloadCodec implements PayloadCodec {
  public static final String ENCODING = "binary/encrypted";
  public static final String METADATA_ENCODING = "encoding";
  public static final String METADATA_KEY_ID = "encryption-key-id";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ByteString ENCODING_BYTES = ByteString.copyFromUtf8(ENCODING);

  private final KeyRing keys;
  private final boolean passPlainThrough;

  /** The strict codec workers, front ends and CLI commands use: plain payloads are refused. */
  public AesGcmPayloadCodec(KeyRing keys) {
    this(keys, false);
  }

  private AesGcmPayloadCodec(KeyRing keys, boolean passPlainThrough) {
    this.keys = Objects.requireNonNull(keys, "keys == null");
    this.passPlainThrough = passPlainThrough;
  }

  /**
   * A codec for showing payloads to an operator (the codec server's {@code /decode}): plain
   * payloads come back unchanged instead of being refused. Never use it in a data converter.
   */
  public static AesGcmPayloadCodec forDisplay(KeyRing keys) {
    return new AesGcmPayloadCodec(keys, true);
  }

  @Override
  public List<Payload> encode(List<Payload> payloads) {
    List<Payload> out = new ArrayList<>(payloads.size());
    for (Payload payload : payloads) {
      out.add(encode(payload));
    }
    return out;
  }

  @Override
  public List<Payload> decode(List<Payload> payloads) {
    List<Payload> out = new ArrayList<>(payloads.size());
    for (Payload payload : payloads) {
      out.add(decode(payload));
    }
    return out;
  }

  private Payload encode(Payload payload) {
    String keyId = keys.activeId();
    SecretKey key = keys.activeKey();
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    byte[] data;
    try {
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, key, nonce, keyId);
      byte[] plain = payload.toByteArray();
      data = new byte[NONCE_BYTES + cipher.getOutputSize(plain.length)];
      System.arraycopy(nonce, 0, data, 0, NONCE_BYTES);
      int sealed = cipher.doFinal(plain, 0, plain.length, data, NONCE_BYTES);
      if (NONCE_BYTES + sealed != data.length) {
        data = Arrays.copyOf(data, NONCE_BYTES + sealed);
      }
    } catch (GeneralSecurityException e) {
      throw new PayloadCodecException("cannot encrypt a payload with key " + keyId + ": " + e.getMessage(), e);
    }
    return Payload.newBuilder()
        .putMetadata(METADATA_ENCODING, ENCODING_BYTES)
        .putMetadata(METADATA_KEY_ID, ByteString.copyFromUtf8(keyId))
        .setData(UnsafeByteOperations.unsafeWrap(data)) // ours alone: never written after this
        .build();
  }

  private Payload decode(Payload payload) {
    ByteString encoding = payload.getMetadataMap().get(METADATA_ENCODING);
    if (!ENCODING_BYTES.equals(encoding)) {
      if (passPlainThrough) {
        return payload; // display only: not ours (search attributes, written before encryption was on)
      }
      throw new PayloadRefusedException("refused a payload Onceport did not encrypt (encoding "
          + (encoding == null ? "none" : "\"" + encoding.toStringUtf8() + "\"") + "): payload encryption is on, so workflow "
          + "inputs, signals and updates must be encrypted with this deployment's keys (an Onceport client, or the codec "
          + "server's /codec/encode)");
    }
    ByteString idBytes = payload.getMetadataMap().get(METADATA_KEY_ID);
    if (idBytes == null) {
      throw new PayloadRefusedException("encrypted payload has no " + METADATA_KEY_ID + " metadata");
    }
    String keyId = idBytes.toString(StandardCharsets.UTF_8);
    SecretKey key = keys.key(keyId);
    if (key == null) {
      throw new PayloadRefusedException("payload encrypted with unknown key " + keyId
          + " (not in " + keys.directory() + "; keys: " + String.join(", ", keys.ids()) + ")");
    }
    byte[] data = payload.getData().toByteArray();
    if (data.length < NONCE_BYTES + TAG_BITS / 8) {
      throw new PayloadRefusedException("encrypted payload too short (" + data.length + " bytes) for key " + keyId);
    }
    try {
      Cipher cipher = cipher(Cipher.DECRYPT_MODE, key, Arrays.copyOf(data, NONCE_BYTES), keyId);
      byte[] plain = cipher.doFinal(data, NONCE_BYTES, data.length - NONCE_BYTES);
      return Payload.parseFrom(plain);
    } catch (AEADBadTagException e) {
      throw new PayloadRefusedException("encrypted payload failed authentication with key " + keyId
          + " (tampered or corrupted)", e);
    } catch (GeneralSecurityException | InvalidProtocolBufferException e) {
      throw new PayloadRefusedException("cannot decrypt a payload with key " + keyId + ": " + e.getMessage(), e);
    }
  }

  /**
   * One cipher object per thread, initialized afresh (key, a new nonce) for every payload: {@code
   * Cipher.getInstance} looks the provider up each time and a fresh object expands the key again,
   * together a noticeable part of what encrypting a small payload costs.
   */
  private static final ThreadLocal<Cipher> CIPHERS = ThreadLocal.withInitial(() -> {
    try {
      return Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/GCM/NoPadding is not available: " + e.getMessage(), e);
    }
  });

  private static Cipher cipher(int mode, SecretKey key, byte[] nonce, String keyId) throws GeneralSecurityException {
    Cipher cipher = CIPHERS.get();
    cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
    cipher.updateAAD(keyId.getBytes(StandardCharsets.UTF_8));
    return cipher;
  }
}
