package io.onceport.activity.journal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * Verifies C2SP signed notes against one Ed25519 verifier key ({@code <name>+<hex id>+<base64(0x01
 * || pubkey)>}). Signatures by other keys are ignored, as the spec requires, so a checkpoint that
 * witnesses have cosigned still verifies; a note with no valid signature by this key is rejected.
 */
public final class NoteVerifier {
  private final String name;
  private final int keyId;
  private final Ed25519PublicKeyParameters key;
  private final String encoded;

  private NoteVerifier(String name, int keyId, byte[] publicKey, String encoded) {
    this.name = name;
    this.keyId = keyId;
    this.key = new Ed25519PublicKeyParameters(publicKey, 0);
    this.encoded = encoded;
  }

  public static NoteVerifier parse(String vkey) {
    Objects.requireNonNull(vkey, "vkey == null");
    String s = vkey.strip();
    String[] parts = s.split("\\+", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException("Invalid verifier key: expected <name>+<id>+<key>");
    }
    String name = NoteSigner.checkName(parts[0]);
    if (!parts[1].matches("[0-9a-f]{8}")) {
      throw new IllegalArgumentException("Invalid verifier key: key id is not 8 hex digits");
    }
    byte[] raw = NoteSigner.decode(parts[2], "verifier key");
    if (raw.length != 33 || raw[0] != NoteSigner.ED25519) {
      throw new IllegalArgumentException("Invalid verifier key: not an Ed25519 key");
    }
    byte[] pub = Arrays.copyOfRange(raw, 1, 33);
    int id = NoteSigner.keyId(name, pub);
    if (!String.format("%08x", id).equals(parts[1])) {
      throw new IllegalArgumentException("Invalid verifier key: key id does not match the key");
    }
    return new NoteVerifier(name, id, pub, s);
  }

  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return encoded;
  }

  /**
   * Returns the note text (with its final newline) if the note carries a valid signature by this
   * key; throws {@link NoteException} naming the problem otherwise.
   */
  public String open(String note) {
    Objects.requireNonNull(note, "note == null");
    if (!note.endsWith("\n")) {
      throw new NoteException("malformed note: does not end in a newline");
    }
    if (note.chars().anyMatch(c -> c < 0x20 && c != '\n')) {
      throw new NoteException("malformed note: contains control characters");
    }
    int split = note.lastIndexOf("\n\n");
    if (split < 0) {
      throw new NoteException("malformed note: no signature block");
    }
    String text = note.substring(0, split + 1);
    String[] lines = note.substring(split + 2).split("\n");
    boolean verified = false;
    for (String line : lines) {
      if (!line.startsWith("\u2014 ")) {
        throw new NoteException("malformed note: bad signature line");
      }
      String[] f = line.substring(2).split(" ");
      if (f.length != 2) {
        throw new NoteException("malformed note: bad signature line");
      }
      byte[] blob;
      try {
        blob = Base64.getDecoder().decode(f[1]);
      } catch (IllegalArgumentException e) {
        throw new NoteException("malformed note: signature is not base64");
      }
      if (blob.length < 4) {
        throw new NoteException("malformed note: signature too short");
      }
      if (!f[0].equals(name) || ByteBuffer.wrap(blob, 0, 4).getInt() != keyId) {
        continue;
      }
      if (!verify(text, Arrays.copyOfRange(blob, 4, blob.length))) {
        throw new NoteException("signature by " + name + " does not verify");
      }
      verified = true;
    }
    if (!verified) {
      throw new NoteException("no signature by key " + name + "+" + String.format("%08x", keyId));
    }
    return text;
  }

  private boolean verify(String text, byte[] sig) {
    if (sig.length != 64) {
      return false;
    }
    byte[] msg = text.getBytes(StandardCharsets.UTF_8);
    Ed25519Signer v = new Ed25519Signer();
    v.init(false, key);
    v.update(msg, 0, msg.length);
    return v.verifySignature(sig);
  }

  static void checkText(String text) {
    Objects.requireNonNull(text, "text == null");
    if (!text.endsWith("\n") || text.chars().anyMatch(c -> c < 0x20 && c != '\n')) {
      throw new IllegalArgumentException("Invalid note text: must end in a newline, no control characters");
    }
  }

  /** A note that is malformed or not signed by the expected key. */
  public static final class NoteException extends RuntimeException {
    public NoteException(String message) {
      super(message);
    }
  }
}
