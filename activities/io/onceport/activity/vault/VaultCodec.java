package io.onceport.activity.vault;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * The vault file format, version 1 (all integers big-endian):
 *
 * <pre>
 * magic "OPVT" | u16 version | u32 total file length
 * u8 kdf (1 = Argon2id v1.3) | u32 memory KiB | u32 iterations | u8 parallelism | u8 salt length | salt
 * key check: nonce[12] | u16 length | AES-256-GCM(constant), AAD = version, kdf parameters, salt
 * u32 entry count, then per entry:
 *   u16 name length | name (UTF-8) | u8 type | u8 flags | nonce[12] | u32 length | AES-256-GCM(fields)
 *   with AAD = "onceport-vault-entry" 0 name 0 type 0 flags, so an entry cannot be renamed, retyped
 *   or have its approve-each-use flag stripped without failing authentication
 * SHA-256 of everything above
 * </pre>
 *
 * Reading checks, in order, size, magic, length, checksum and structure before anything is
 * decrypted; then every entry is authenticated. Any failure refuses the whole file: a vault is
 * never partially read. The checksum catches accidental damage (and tells it apart from a wrong
 * passphrase); GCM catches deliberate edits.
 */
final class VaultCodec {
  static final int FORMAT_VERSION = 1;
  static final int MAX_FILE_BYTES = 16 * 1024 * 1024;
  private static final byte[] MAGIC = {'O', 'P', 'V', 'T'};
  private static final int KDF_ARGON2ID = 1;
  private static final int SALT_BYTES = 16;
  private static final int NONCE_BYTES = 12;
  private static final int KEY_BYTES = 32;
  private static final int DIGEST_BYTES = 32;
  private static final int PREFIX_BYTES = MAGIC.length + 2 + 4;
  private static final int FLAG_APPROVE_EACH_USE = 1;
  private static final byte[] KEY_CHECK = "onceport-vault-key-check-v1".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The decoded header: what the key derivation needs. */
  record Header(KdfParameters kdf, byte[] salt, byte[] keyCheckNonce, byte[] keyCheck) {}

  /** One entry as stored: metadata in clear (authenticated), fields sealed. */
  record SealedEntry(String name, Credential.Type type, boolean approveEachUse, byte[] nonce, byte[] sealed) {}

  record Contents(Header header, List<SealedEntry> entries) {}

  private VaultCodec() {}

  static byte[] newSalt() {
    byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(salt);
    return salt;
  }

  static byte[] deriveKey(char[] passphrase, KdfParameters kdf, byte[] salt) {
    Argon2Parameters params =
        new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
            .withVersion(Argon2Parameters.ARGON2_VERSION_13)
            .withMemoryAsKB(kdf.memoryKib())
            .withIterations(kdf.iterations())
            .withParallelism(kdf.parallelism())
            .withSalt(salt)
            .build();
    Argon2BytesGenerator generator = new Argon2BytesGenerator();
    generator.init(params);
    byte[] key = new byte[KEY_BYTES];
    generator.generateBytes(passphrase, key);
    return key;
  }

  /** A header for a new vault, with its key check sealed under {@code key}. */
  static Header newHeader(KdfParameters kdf, byte[] salt, byte[] key) {
    byte[] nonce = newNonce();
    return new Header(kdf, salt, nonce, seal(key, nonce, keyCheckAad(kdf, salt), KEY_CHECK));
  }

  /** Throws {@code WRONG_PASSPHRASE} unless {@code key} is the key this header was made with. */
  static void verifyKey(Header header, byte[] key) {
    byte[] plain;
    try {
      plain = open(key, header.keyCheckNonce(), keyCheckAad(header.kdf(), header.salt()), header.keyCheck());
    } catch (AEADBadTagException e) {
      throw new VaultException(VaultException.Kind.WRONG_PASSPHRASE, "wrong vault passphrase");
    }
    if (!MessageDigest.isEqual(plain, KEY_CHECK)) {
      throw new VaultException(VaultException.Kind.WRONG_PASSPHRASE, "wrong vault passphrase");
    }
  }

  static SealedEntry sealEntry(byte[] key, Credential credential, boolean approveEachUse) {
    byte[] nonce = newNonce();
    byte[] fields = encodeFields(credential);
    try {
      byte[] sealed = seal(key, nonce, entryAad(credential.name(), credential.type(), approveEachUse), fields);
      return new SealedEntry(credential.name(), credential.type(), approveEachUse, nonce, sealed);
    } finally {
      Arrays.fill(fields, (byte) 0);
    }
  }

  static Credential openEntry(byte[] key, SealedEntry entry) {
    byte[] fields;
    try {
      fields = open(key, entry.nonce(), entryAad(entry.name(), entry.type(), entry.approveEachUse()), entry.sealed());
    } catch (AEADBadTagException e) {
      throw VaultException.corrupted("entry '" + entry.name() + "' failed authentication");
    }
    try {
      return decodeFields(entry.name(), entry.type(), fields);
    } finally {
      Arrays.fill(fields, (byte) 0);
    }
  }

  static byte[] encode(Contents contents) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.write(MAGIC);
      out.writeShort(FORMAT_VERSION);
      out.writeInt(0); // total length, patched below
      Header h = contents.header();
      out.writeByte(KDF_ARGON2ID);
      out.writeInt(h.kdf().memoryKib());
      out.writeInt(h.kdf().iterations());
      out.writeByte(h.kdf().parallelism());
      out.writeByte(h.salt().length);
      out.write(h.salt());
      out.write(h.keyCheckNonce());
      out.writeShort(h.keyCheck().length);
      out.write(h.keyCheck());
      out.writeInt(contents.entries().size());
      for (SealedEntry e : contents.entries()) {
        byte[] name = e.name().getBytes(StandardCharsets.UTF_8);
        out.writeShort(name.length);
        out.write(name);
        out.writeByte(e.type().ordinal());
        out.writeByte(e.approveEachUse() ? FLAG_APPROVE_EACH_USE : 0);
        out.write(e.nonce());
        out.writeInt(e.sealed().length);
        out.write(e.sealed());
      }
      out.flush();
      byte[] body = bytes.toByteArray();
      int total = body.length + DIGEST_BYTES;
      ByteBuffer.wrap(body).putInt(MAGIC.length + 2, total);
      byte[] file = Arrays.copyOf(body, total);
      System.arraycopy(sha256(body, body.length), 0, file, body.length, DIGEST_BYTES);
      return file;
    } catch (IOException e) {
      throw new IllegalStateException(e); // in-memory streams do not fail
    }
  }

  /** Reads and checks the whole file; throws {@code NOT_INITIALIZED}, {@code CORRUPTED} or {@code IO}. */
  static Contents read(Path file) {
    byte[] data;
    try {
      long size = Files.size(file);
      if (size > MAX_FILE_BYTES) {
        throw VaultException.corrupted("file is " + size + " bytes, larger than any vault (" + file + ")");
      }
      data = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new VaultException(
          VaultException.Kind.NOT_INITIALIZED, "vault is not initialized: no " + file + " (run `onceport vault init`)");
    } catch (IOException e) {
      throw new VaultException(VaultException.Kind.IO, "cannot read vault file " + file + ": " + e.getMessage(), e);
    }
    return decode(data, file.toString());
  }

  static Contents decode(byte[] data, String where) {
    ByteBuffer in = checkedBody(data, where);
    try {
      int kdfId = Byte.toUnsignedInt(in.get());
      if (kdfId != KDF_ARGON2ID) {
        throw VaultException.corrupted("unknown key derivation " + kdfId + " (" + where + ")");
      }
      KdfParameters kdf;
      try {
        kdf = new KdfParameters(in.getInt(), in.getInt(), Byte.toUnsignedInt(in.get()));
      } catch (IllegalArgumentException e) {
        throw VaultException.corrupted(e.getMessage() + " (" + where + ")");
      }
      byte[] salt = bytes(in, Byte.toUnsignedInt(in.get()));
      byte[] keyCheckNonce = bytes(in, NONCE_BYTES);
      byte[] keyCheck = bytes(in, Short.toUnsignedInt(in.getShort()));
      int count = in.getInt();
      if (count < 0 || count > in.remaining()) {
        throw VaultException.corrupted("bad entry count " + count + " (" + where + ")");
      }
      List<SealedEntry> entries = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        entries.add(entry(in, where));
      }
      if (in.hasRemaining()) {
        throw VaultException.corrupted(in.remaining() + " unexpected trailing bytes (" + where + ")");
      }
      return new Contents(new Header(kdf, salt, keyCheckNonce, keyCheck), entries);
    } catch (BufferUnderflowException e) {
      throw VaultException.corrupted("malformed structure (" + where + ")");
    }
  }

  /**
   * The body of a vault file after its envelope checks (length, magic, checksum, format version):
   * positioned after the prefix, limited before the digest.
   */
  private static ByteBuffer checkedBody(byte[] data, String where) {
    if (data.length < PREFIX_BYTES + DIGEST_BYTES) {
      throw VaultException.corrupted("truncated to " + data.length + " bytes (" + where + ")");
    }
    if (!Arrays.equals(data, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw VaultException.corrupted("not a vault file, bad magic (" + where + ")");
    }
    ByteBuffer in = ByteBuffer.wrap(data);
    in.position(MAGIC.length);
    int version = Short.toUnsignedInt(in.getShort());
    long expected = Integer.toUnsignedLong(in.getInt());
    if (data.length < expected) {
      throw VaultException.corrupted(
          "truncated, expected " + expected + " bytes but found " + data.length + " (" + where + ")");
    }
    if (data.length > expected) {
      throw VaultException.corrupted(
          "expected " + expected + " bytes but found " + data.length + " (" + where + ")");
    }
    byte[] digest = sha256(data, data.length - DIGEST_BYTES);
    if (!MessageDigest.isEqual(digest, Arrays.copyOfRange(data, data.length - DIGEST_BYTES, data.length))) {
      throw VaultException.corrupted("checksum mismatch (" + where + ")");
    }
    if (version != FORMAT_VERSION) {
      throw VaultException.corrupted("unsupported format version " + version + " (" + where + ")");
    }
    in.limit(data.length - DIGEST_BYTES);
    return in;
  }

  /** One sealed entry: name, credential type, flags, nonce and ciphertext. */
  private static SealedEntry entry(ByteBuffer in, String where) {
    String name = new String(bytes(in, Short.toUnsignedInt(in.getShort())), StandardCharsets.UTF_8);
    int type = Byte.toUnsignedInt(in.get());
    if (type >= Credential.Type.values().length) {
      throw VaultException.corrupted("entry '" + name + "' has unknown type " + type + " (" + where + ")");
    }
    int flags = Byte.toUnsignedInt(in.get());
    byte[] nonce = bytes(in, NONCE_BYTES);
    int length = in.getInt();
    if (length < 0) {
      throw VaultException.corrupted("bad entry length (" + where + ")");
    }
    return new SealedEntry(
        name, Credential.Type.values()[type], (flags & FLAG_APPROVE_EACH_USE) != 0, nonce, bytes(in, length));
  }

  private static byte[] bytes(ByteBuffer in, int length) {
    if (length > in.remaining()) {
      throw new BufferUnderflowException();
    }
    byte[] b = new byte[length];
    in.get(b);
    return b;
  }

  private static byte[] newNonce() {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    return nonce;
  }

  private static byte[] keyCheckAad(KdfParameters kdf, byte[] salt) {
    ByteBuffer aad = ByteBuffer.allocate(32 + salt.length);
    aad.put("OPVT-key".getBytes(StandardCharsets.US_ASCII))
        .putShort((short) FORMAT_VERSION)
        .put((byte) KDF_ARGON2ID)
        .putInt(kdf.memoryKib())
        .putInt(kdf.iterations())
        .put((byte) kdf.parallelism())
        .put(salt);
    return Arrays.copyOf(aad.array(), aad.position());
  }

  private static byte[] entryAad(String name, Credential.Type type, boolean approveEachUse) {
    String aad =
        "onceport-vault-entry\0" + name + "\0" + type.wireName() + "\0" + (approveEachUse ? "approve-each-use" : "");
    return aad.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] encodeFields(Credential c) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    try {
      writeOptional(out, c.headerName());
      writeOptional(out, c.username());
      writeOptional(out, c.secret());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  private static Credential decodeFields(String name, Credential.Type type, byte[] fields) {
    ByteBuffer in = ByteBuffer.wrap(fields);
    try {
      String headerName = readOptional(in);
      String username = readOptional(in);
      String secret = readOptional(in);
      if (secret == null || in.hasRemaining()) {
        throw VaultException.corrupted("entry '" + name + "' is malformed");
      }
      return new Credential(name, type, headerName, username, secret);
    } catch (BufferUnderflowException e) {
      throw VaultException.corrupted("entry '" + name + "' is malformed");
    }
  }

  private static void writeOptional(DataOutputStream out, String value) throws IOException {
    if (value == null) {
      out.writeByte(0);
      return;
    }
    byte[] b = value.getBytes(StandardCharsets.UTF_8);
    out.writeByte(1);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String readOptional(ByteBuffer in) {
    if (in.get() == 0) {
      return null;
    }
    int length = in.getInt();
    if (length < 0) {
      throw new BufferUnderflowException();
    }
    return new String(bytes(in, length), StandardCharsets.UTF_8);
  }

  private static byte[] seal(byte[] key, byte[] nonce, byte[] aad, byte[] plaintext) {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
      cipher.updateAAD(aad);
      return cipher.doFinal(plaintext);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-256-GCM unavailable", e);
    }
  }

  private static byte[] open(byte[] key, byte[] nonce, byte[] aad, byte[] ciphertext) throws AEADBadTagException {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
      cipher.updateAAD(aad);
      return cipher.doFinal(ciphertext);
    } catch (AEADBadTagException e) {
      throw e;
    } catch (GeneralSecurityException e) {
      // A nonce or tag of the wrong size is damage, not a wrong key.
      throw new AEADBadTagException("malformed ciphertext");
    }
  }

  private static byte[] sha256(byte[] data, int length) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(data, 0, length);
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
