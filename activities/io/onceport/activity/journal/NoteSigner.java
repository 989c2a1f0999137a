package io.onceport.activity.journal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * An Ed25519 key that signs C2SP signed notes (c2sp.org/signed-note). The private key is written
 * in the Go {@code golang.org/x/mod/sumdb/note} form {@code PRIVATE+KEY+<name>+<id>+<base64(0x01
 * || seed)>} and the public key in the verifier-key form {@code <name>+<id>+<base64(0x01 ||
 * pubkey)>}, with key id = SHA-256(name || 0x0A || 0x01 || pubkey)[:4], so standard note tools and
 * witnesses accept the checkpoints.
 */
public final class NoteSigner {
  static final byte ED25519 = 0x01;
  private static final String PRIVATE_PREFIX = "PRIVATE+KEY+";

  private final String name;
  private final Ed25519PrivateKeyParameters key;
  private final byte[] publicKey;
  private final int keyId;

  private NoteSigner(String name, byte[] seed) {
    this.name = checkName(name);
    this.key = new Ed25519PrivateKeyParameters(seed, 0);
    this.publicKey = key.generatePublicKey().getEncoded();
    this.keyId = keyId(name, publicKey);
  }

  public static NoteSigner generate(String name) {
    byte[] seed = new byte[32];
    new SecureRandom().nextBytes(seed);
    return new NoteSigner(name, seed);
  }

  /** Parses {@code PRIVATE+KEY+<name>+<hex id>+<base64(0x01 || seed)>}. */
  public static NoteSigner parse(String skey) {
    Objects.requireNonNull(skey, "skey == null");
    String s = skey.strip();
    if (!s.startsWith(PRIVATE_PREFIX)) {
      throw new IllegalArgumentException("Invalid signer key: missing PRIVATE+KEY+ prefix");
    }
    String[] parts = s.substring(PRIVATE_PREFIX.length()).split("\\+", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException("Invalid signer key: expected name+id+key");
    }
    byte[] raw = decode(parts[2], "signer key");
    if (raw.length != 33 || raw[0] != ED25519) {
      throw new IllegalArgumentException("Invalid signer key: not an Ed25519 key");
    }
    NoteSigner signer = new NoteSigner(parts[0], Arrays.copyOfRange(raw, 1, 33));
    if (!String.format("%08x", signer.keyId).equals(parts[1])) {
      throw new IllegalArgumentException("Invalid signer key: key id does not match the key");
    }
    return signer;
  }

  public String name() {
    return name;
  }

  /** The private key line; keep it in a 0600 file. */
  public String encode() {
    byte[] raw = new byte[33];
    raw[0] = ED25519;
    System.arraycopy(key.getEncoded(), 0, raw, 1, 32);
    return PRIVATE_PREFIX + name + "+" + String.format("%08x", keyId) + "+"
        + Base64.getEncoder().encodeToString(raw);
  }

  /** The public verifier key in signed-note form. */
  public String verifierKey() {
    byte[] raw = new byte[33];
    raw[0] = ED25519;
    System.arraycopy(publicKey, 0, raw, 1, 32);
    return name + "+" + String.format("%08x", keyId) + "+" + Base64.getEncoder().encodeToString(raw);
  }

  public NoteVerifier verifier() {
    return NoteVerifier.parse(verifierKey());
  }

  /** Signs {@code text} (which must end in a newline) and returns the whole signed note. */
  public String sign(String text) {
    NoteVerifier.checkText(text);
    byte[] msg = text.getBytes(StandardCharsets.UTF_8);
    Ed25519Signer s = new Ed25519Signer();
    s.init(true, key);
    s.update(msg, 0, msg.length);
    byte[] sig = s.generateSignature();
    byte[] blob = ByteBuffer.allocate(4 + sig.length).putInt(keyId).put(sig).array();
    return text + "\n\u2014 " + name + " " + Base64.getEncoder().encodeToString(blob) + "\n";
  }

  static int keyId(String name, byte[] publicKey) {
    MessageDigest d = MerkleTree.sha256();
    d.update(name.getBytes(StandardCharsets.UTF_8));
    d.update((byte) '\n');
    d.update(ED25519);
    d.update(publicKey);
    return ByteBuffer.wrap(d.digest(), 0, 4).getInt();
  }

  static String checkName(String name) {
    Objects.requireNonNull(name, "name == null");
    if (name.isEmpty() || name.chars().anyMatch(c -> c == '+' || Character.isWhitespace(c) || c < 0x20)) {
      throw new IllegalArgumentException("Invalid key name: " + name);
    }
    return name;
  }

  static byte[] decode(String b64, String what) {
    try {
      return Base64.getDecoder().decode(b64);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid " + what + ": bad base64");
    }
  }

  static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
