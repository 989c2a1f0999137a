package io.onceport.activity.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.operator.SignedDecision;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * An operator's Ed25519 key pair (Bouncy Castle). The private key never leaves the operator: it is
 * a file of its own (mode 0600, directory 0700), by default under the operator's configuration
 * directory, and workers only ever see the public key ({@link OperatorRegistry}). Whoever holds the
 * file decides as that operator, so a key file readable by group or others is refused, as ssh does.
 *
 * <p>File format (JSON): {@code {"operator":"carol","algorithm":"Ed25519","key_id":"ed25519:…",
 * "private_key":"<base64 seed>","public_key":"<base64>","created_at":"…"}}.
 *
 * <p>Crash contract: a key file is written to a temp file (0600), fsynced, then renamed into place
 * (a new key: hard-linked, which fails if the name already exists), so a crash leaves the old key,
 * the new key, or none — never a torn file under the final name.
 */
public final class OperatorKey {
  /** Operator names: lowercase, like agent actors, e.g. {@code carol} or {@code ops.carol}. */
  public static final Pattern NAME = Pattern.compile("^[a-z][a-z0-9:._-]{0,63}$");
  public static final String CODEC_TOKEN_PREFIX = "oct_";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String operator;
  private final Ed25519PrivateKeyParameters privateKey;
  private final byte[] publicKey;
  private final Instant createdAt;

  private OperatorKey(String operator, byte[] seed, Instant createdAt) {
    this.operator = checkName(operator);
    this.privateKey = new Ed25519PrivateKeyParameters(seed, 0);
    this.publicKey = privateKey.generatePublicKey().getEncoded();
    this.createdAt = createdAt;
  }

  /** A fresh key pair for {@code operator}. */
  public static OperatorKey generate(String operator) {
    byte[] seed = new byte[Ed25519PrivateKeyParameters.KEY_SIZE];
    RANDOM.nextBytes(seed);
    return new OperatorKey(operator, seed, Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
  }

  /** Throws IllegalArgumentException with advice when {@code name} is not a valid operator name. */
  public static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("invalid operator name '" + name
          + "': use a lowercase name like carol (a-z first, then up to 63 of a-z 0-9 : . _ -)");
    }
    return name;
  }

  public String operator() {
    return operator;
  }

  public byte[] publicKey() {
    return publicKey.clone();
  }

  public Instant createdAt() {
    return createdAt;
  }

  /** {@code ed25519:<first 16 hex of SHA-256(public key)>}. */
  public String keyId() {
    return keyId(publicKey);
  }

  public static String keyId(byte[] publicKey) {
    return "ed25519:" + HexFormat.of().formatHex(sha256(publicKey), 0, 8);
  }

  /** Signs {@code statement} (its canonical JSON) and returns it with the signature. */
  public SignedDecision sign(DecisionStatement statement) {
    if (!statement.operator().equals(operator) || !statement.keyId().equals(keyId())) {
      throw new IllegalArgumentException("statement names " + statement.operator() + " / " + statement.keyId()
          + ", not this key's " + operator + " / " + keyId());
    }
    String json = statement.canonicalJson();
    Ed25519Signer signer = new Ed25519Signer();
    signer.init(true, privateKey);
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    signer.update(bytes, 0, bytes.length);
    return new SignedDecision(json, Base64.getEncoder().encodeToString(signer.generateSignature()));
  }

  /**
   * Signs {@code text} as it is (base64 Ed25519 signature), for statements that are not decisions:
   * the codec server's sign-in links. Callers put a domain prefix in {@code text} so that it can never
   * be taken for a decision statement (canonical JSON).
   */
  public String signText(String text) {
    if (text.startsWith("{")) {
      throw new IllegalArgumentException("a text statement must not look like a decision statement (JSON)");
    }
    Ed25519Signer signer = new Ed25519Signer();
    signer.init(true, privateKey);
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    signer.update(bytes, 0, bytes.length);
    return Base64.getEncoder().encodeToString(signer.generateSignature());
  }

  /** True when {@code signature} (base64) is this public key's Ed25519 signature over {@code statement}. */
  public static boolean verify(byte[] publicKey, String statement, String signature) {
    byte[] sig;
    try {
      sig = Base64.getDecoder().decode(signature.strip());
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (sig.length != Ed25519PrivateKeyParameters.SIGNATURE_SIZE || publicKey.length != Ed25519PublicKeyParameters.KEY_SIZE) {
      return false;
    }
    Ed25519Signer verifier = new Ed25519Signer();
    verifier.init(false, new Ed25519PublicKeyParameters(publicKey, 0));
    byte[] bytes = statement.getBytes(StandardCharsets.UTF_8);
    verifier.update(bytes, 0, bytes.length);
    return verifier.verifySignature(sig);
  }

  /**
   * The bearer token this operator presents to the codec server ({@code oct_…}), derived from the
   * private key so there is no second secret to keep: the registry stores only its SHA-256, and a
   * rotated key has a new token.
   */
  public String codecToken() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(privateKey.getEncoded(), "HmacSHA256"));
      byte[] raw = mac.doFinal("onceport/codec-token/v1".getBytes(StandardCharsets.UTF_8));
      return CODEC_TOKEN_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new AssertionError(e);
    }
  }

  /** SHA-256 hex of a codec token, as the registry keeps it. */
  public static String codecTokenHash(String token) {
    return HexFormat.of().formatHex(sha256(token.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Writes the key to {@code file} (0600; parent directories 0700 when created).
   *
   * @param replace false: refuse when {@code file} exists (a new operator); true: replace it
   *     atomically (a rotation)
   * @throws FileAlreadyExistsException when the file exists and {@code replace} is false
   */
  public void write(Path file, boolean replace) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    createPrivateDirectories(dir);
    ObjectNode node = JSON.createObjectNode();
    node.put("operator", operator);
    node.put("algorithm", "Ed25519");
    node.put("key_id", keyId());
    node.put("private_key", Base64.getEncoder().encodeToString(privateKey.getEncoded()));
    node.put("public_key", Base64.getEncoder().encodeToString(publicKey));
    node.put("created_at", createdAt.toString());
    byte[] bytes = (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n").getBytes(StandardCharsets.UTF_8);
    Path tmp = dir.resolve(file.getFileName() + ".tmp-" + Long.toHexString(RANDOM.nextLong()));
    try {
      if (posix(dir)) {
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } else {
        Files.createFile(tmp);
      }
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      if (replace) {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } else {
        Files.createLink(file, tmp); // the commit: fails if the file exists
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // not every platform can open a directory; the rename or link itself is atomic
    }
  }

  /**
   * Reads a key file.
   *
   * @throws IOException with a one-line reason (missing, readable by group or others, malformed,
   *     public key not matching the private key)
   */
  public static OperatorKey load(Path file) throws IOException {
    refuseIfShared(file);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IOException("operator key " + file + " does not exist", e);
    }
    JsonNode root;
    try {
      root = JSON.readTree(text);
    } catch (IOException e) {
      throw new IOException("operator key " + file + " is not a key file (not JSON)", e);
    }
    String operator = root == null ? null : root.path("operator").asText(null);
    String seed = root == null ? null : root.path("private_key").asText(null);
    if (operator == null || seed == null || !"Ed25519".equals(root.path("algorithm").asText())) {
      throw new IOException("operator key " + file + " is not an Onceport operator key (needs operator, algorithm Ed25519, private_key)");
    }
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(seed);
    } catch (IllegalArgumentException e) {
      throw new IOException("operator key " + file + ": private_key is not base64");
    }
    if (raw.length != Ed25519PrivateKeyParameters.KEY_SIZE) {
      throw new IOException("operator key " + file + ": private_key is " + raw.length + " bytes, expected 32");
    }
    OperatorKey key;
    try {
      Instant created = root.hasNonNull("created_at") ? Instant.parse(root.get("created_at").asText()) : Instant.EPOCH;
      key = new OperatorKey(operator, raw, created);
    } catch (IllegalArgumentException | java.time.DateTimeException e) {
      throw new IOException("operator key " + file + ": " + e.getMessage());
    } finally {
      Arrays.fill(raw, (byte) 0);
    }
    String pub = root.path("public_key").asText(null);
    if (pub != null && !Arrays.equals(decodeOrEmpty(pub), key.publicKey)) {
      throw new IOException("operator key " + file + ": public_key does not belong to private_key (corrupt file)");
    }
    return key;
  }

  /** A key file that group or others can access is refused (on a POSIX file system), with the fix. */
  private static void refuseIfShared(Path file) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
    if (view != null && Files.exists(file)) {
      Set<PosixFilePermission> perms = view.readAttributes().permissions();
      Set<PosixFilePermission> open = EnumSet.of(
          PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
      open.retainAll(perms);
      if (!open.isEmpty()) {
        throw new IOException("operator key " + file + " is accessible by group or others ("
            + PosixFilePermissions.toString(perms) + "); run: chmod 600 " + file);
      }
    }
  }

  private static byte[] decodeOrEmpty(String b64) {
    try {
      return Base64.getDecoder().decode(b64);
    } catch (IllegalArgumentException e) {
      return new byte[0];
    }
  }

  static void createPrivateDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Path parent = dir.getParent();
    if (parent != null) {
      createPrivateDirectories(parent);
    }
    try {
      if (posix(parent == null ? dir : parent)) {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } else {
        Files.createDirectory(dir);
      }
    } catch (FileAlreadyExistsException e) {
      // created concurrently
    }
  }

  private static boolean posix(Path p) {
    return p.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public String toString() {
    return "OperatorKey[" + operator + ", " + keyId() + "]";
  }
}
