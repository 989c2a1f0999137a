package io.onceport.activity.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.shared.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The operators whose decisions workers accept: name → Ed25519 public key, kept in {@code
 * <data>/operators.json} where workers read it. It holds no secret (public keys and the SHA-256 of
 * each operator's codec token), but whoever can write it can add an operator, so it lives in the
 * data directory (0700) with mode 0600. Separate from the agents' {@code agents.json}: no agent
 * token is ever an operator credential.
 *
 * <p>Keys retired by {@link #rotate} or {@link #remove} are remembered by id, so a statement signed
 * with one is refused with the reason ("rotated at …") rather than as an unknown key.
 *
 * <p>Crash contract: every change is written to a temp file, fsynced, then atomically renamed over
 * {@code operators.json} (and the directory fsynced); changes are serialized across processes by a
 * lock on {@code operators.json.lock}. Readers re-read the file whenever it changed on disk, so
 * {@code onceport operator add|rotate|remove} takes effect on running workers without a restart.
 */
public final class OperatorRegistry {
  public static final String FILE_NAME = "operators.json";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();
  /** File locks are per process; threads of one process are serialized by this monitor first. */
  private static final Object PROCESS_LOCK = new Object();

  /** One registered operator and its current key. */
  public record Operator(String name, String keyId, byte[] publicKey, String codecTokenSha256, Instant addedAt, Instant keySince) {
    public Operator {
      Objects.requireNonNull(name, "name == null");
      Objects.requireNonNull(keyId, "keyId == null");
      Objects.requireNonNull(publicKey, "publicKey == null");
      Objects.requireNonNull(codecTokenSha256, "codecTokenSha256 == null");
    }
  }

  /**
   * What registering an operator needs, and all it needs: the name, the public key and the SHA-256
   * of the codec token. {@code onceport operator keygen} prints it as one line ({@link #encode}) on
   * the operator's machine, so whoever manages the data directory registers the operator without
   * ever handling the private key.
   */
  public record Registration(String name, byte[] publicKey, String codecTokenSha256) {
    static final String PREFIX = "opk1:";

    public Registration {
      OperatorKey.checkName(name);
      Objects.requireNonNull(publicKey, "publicKey == null");
      Objects.requireNonNull(codecTokenSha256, "codecTokenSha256 == null");
      if (publicKey.length != 32) {
        throw new IllegalArgumentException("Invalid Ed25519 public key: " + publicKey.length + " bytes (expected 32)");
      }
      if (!codecTokenSha256.matches("[0-9a-f]{64}")) {
        throw new IllegalArgumentException("Invalid codec token hash: expected 64 lowercase hex characters");
      }
    }

    public static Registration of(OperatorKey key) {
      return new Registration(key.operator(), key.publicKey(), OperatorKey.codecTokenHash(key.codecToken()));
    }

    public String keyId() {
      return OperatorKey.keyId(publicKey);
    }

    /** {@code opk1:<base64url of {"operator","public_key","codec_token_sha256"}>}. */
    public String encode() {
      ObjectNode n = JSON.createObjectNode();
      n.put("operator", name);
      n.put("public_key", Base64.getEncoder().encodeToString(publicKey));
      n.put("codec_token_sha256", codecTokenSha256);
      return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(n.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** @throws IllegalArgumentException with a one-line reason when {@code text} is not a registration line */
    public static Registration parse(String text) {
      String t = text == null ? "" : text.strip();
      if (!t.startsWith(PREFIX)) {
        throw new IllegalArgumentException("not an operator registration (expected the opk1:… line `onceport operator keygen` prints)");
      }
      try {
        JsonNode n = JSON.readTree(Base64.getUrlDecoder().decode(t.substring(PREFIX.length())));
        return new Registration(n.path("operator").asText(null), Base64.getDecoder().decode(n.path("public_key").asText("")),
            n.path("codec_token_sha256").asText(""));
      } catch (IOException | IllegalArgumentException e) {
        throw new IllegalArgumentException("not a valid operator registration: " + e.getMessage());
      }
    }
  }

  /** A key no longer accepted: {@code why} is {@code rotated} or {@code removed}. */
  public record RetiredKey(String name, String keyId, String why, Instant at) {}

  private record State(Map<String, Operator> operators, List<RetiredKey> retired) {}

  private record Snapshot(Object version, State state) {}

  private final Path dataDir;
  private final Path file;
  private volatile Snapshot snapshot = new Snapshot(null, new State(Map.of(), List.of()));

  public OperatorRegistry(Path dataDir) {
    this.dataDir = Objects.requireNonNull(dataDir, "dataDir == null");
    this.file = dataDir.resolve(FILE_NAME);
  }

  public Path file() {
    return file;
  }

  /**
   * Registers {@code key}'s public half for its operator.
   *
   * @throws IllegalArgumentException when the operator is already registered
   */
  public Operator add(OperatorKey key) throws IOException {
    return add(Registration.of(key));
  }

  /** Registers an operator from its registration (the public half only). */
  public Operator add(Registration key) throws IOException {
    Operator[] added = new Operator[1];
    update(state -> {
      if (state.operators().containsKey(key.name())) {
        throw new IllegalArgumentException("operator " + key.name() + " is already registered (key "
            + state.operators().get(key.name()).keyId() + "); a new key for it: onceport operator rotate " + key.name());
      }
      Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
      added[0] = new Operator(key.name(), key.keyId(), key.publicKey(), key.codecTokenSha256(), now, now);
      state.operators().put(key.name(), added[0]);
    });
    return added[0];
  }

  /**
   * Replaces the operator's key with {@code key}; the old key is retired and statements signed
   * with it are refused from now on.
   *
   * @throws IllegalArgumentException when the operator is not registered
   */
  public Operator rotate(OperatorKey key) throws IOException {
    return rotate(Registration.of(key));
  }

  /** {@link #rotate(OperatorKey)} from a registration (the public half only). */
  public Operator rotate(Registration key) throws IOException {
    Operator[] rotated = new Operator[1];
    update(state -> {
      Operator old = state.operators().get(key.name());
      if (old == null) {
        throw new IllegalArgumentException("no operator " + key.name() + " (add it: onceport operator add " + key.name() + ")");
      }
      if (old.keyId().equals(key.keyId())) {
        throw new IllegalArgumentException("operator " + key.name() + " already has key " + key.keyId() + "; a rotation needs a new key");
      }
      Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
      state.retired().add(new RetiredKey(old.name(), old.keyId(), "rotated", now));
      rotated[0] = new Operator(key.name(), key.keyId(), key.publicKey(), key.codecTokenSha256(), old.addedAt(), now);
      state.operators().put(key.name(), rotated[0]);
    });
    return rotated[0];
  }

  /** Removes the operator; its key is retired. Returns false when there was none. */
  public boolean remove(String name) throws IOException {
    boolean[] removed = {false};
    update(state -> {
      Operator old = state.operators().remove(name);
      if (old != null) {
        state.retired().add(new RetiredKey(old.name(), old.keyId(), "removed", Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)));
        removed[0] = true;
      }
    });
    return removed[0];
  }

  /** Registered operators, in the order they were added. */
  public List<Operator> operators() {
    return List.copyOf(current().operators().values());
  }

  public Optional<Operator> find(String name) {
    return Optional.ofNullable(current().operators().get(name));
  }

  /** The retirement of {@code keyId} of operator {@code name}, if it was rotated away or removed. */
  public Optional<RetiredKey> retired(String name, String keyId) {
    return current().retired().stream().filter(r -> r.name().equals(name) && r.keyId().equals(keyId)).reduce((a, b) -> b);
  }

  /** The newest removal of operator {@code name}, if it was removed and not added again. */
  public Optional<RetiredKey> removal(String name) {
    if (current().operators().containsKey(name)) {
      return Optional.empty();
    }
    return current().retired().stream().filter(r -> r.name().equals(name) && r.why().equals("removed")).reduce((a, b) -> b);
  }

  /**
   * The operator whose codec token ({@link OperatorKey#codecToken}) this is, or empty. Compares
   * hashes in constant time and checks every entry. Agent tokens never match: they live elsewhere.
   */
  public Optional<String> authenticateCodecToken(String token) {
    if (token == null || !token.startsWith(OperatorKey.CODEC_TOKEN_PREFIX)) {
      return Optional.empty();
    }
    byte[] presented = HexFormat.of().parseHex(OperatorKey.codecTokenHash(token));
    String match = null;
    for (Operator o : current().operators().values()) {
      if (MessageDigest.isEqual(presented, HexFormat.of().parseHex(o.codecTokenSha256())) && match == null) {
        match = o.name();
      }
    }
    return Optional.ofNullable(match);
  }

  private State current() {
    Object version;
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      version = List.of(String.valueOf(a.fileKey()), a.lastModifiedTime(), a.size());
    } catch (NoSuchFileException e) {
      version = "absent";
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    Snapshot s = snapshot;
    if (version.equals(s.version())) {
      return s.state();
    }
    State state;
    try {
      state = read();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    snapshot = new Snapshot(version, new State(Map.copyOf(state.operators()), List.copyOf(state.retired())));
    return state;
  }

  private State read() throws IOException {
    Map<String, Operator> operators = new LinkedHashMap<>();
    List<RetiredKey> retired = new ArrayList<>();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return new State(operators, retired);
    }
    JsonNode root = JSON.readTree(text);
    if (root == null || !root.isObject()) {
      throw new IOException(file + " is not a JSON object");
    }
    for (JsonNode o : root.path("operators")) {
      try {
        byte[] pub = Base64.getDecoder().decode(o.path("public_key").asText(""));
        String name = OperatorKey.checkName(o.path("name").asText(null));
        String keyId = o.path("key_id").asText(null);
        if (pub.length != 32 || !OperatorKey.keyId(pub).equals(keyId)) {
          throw new IllegalArgumentException("public_key does not match key_id");
        }
        String token = o.path("codec_token_sha256").asText("");
        if (!token.matches("[0-9a-f]{64}")) {
          throw new IllegalArgumentException("codec_token_sha256 is not a SHA-256");
        }
        operators.put(name, new Operator(name, keyId, pub, token, instant(o, "added_at"), instant(o, "key_since")));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new IOException(file + ": malformed operator entry " + o + ": " + e.getMessage());
      }
    }
    for (JsonNode r : root.path("retired_keys")) {
      retired.add(new RetiredKey(r.path("name").asText(), r.path("key_id").asText(), r.path("why").asText(), instant(r, "at")));
    }
    return new State(operators, retired);
  }

  private static Instant instant(JsonNode node, String field) {
    String s = node.path(field).asText(null);
    try {
      return s == null ? null : Instant.parse(s);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  private interface Change {
    void apply(State state);
  }

  private void update(Change change) throws IOException {
    synchronized (PROCESS_LOCK) {
      createPrivateDirectory(dataDir);
      try (FileChannel lockChannel = PrivateFiles.open(dataDir.resolve(FILE_NAME + ".lock"),
              StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = lockChannel.lock()) {
        State state = read();
        change.apply(state);
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("operators");
        for (Operator o : state.operators().values()) {
          ObjectNode n = list.addObject();
          n.put("name", o.name());
          n.put("key_id", o.keyId());
          n.put("public_key", Base64.getEncoder().encodeToString(o.publicKey()));
          n.put("codec_token_sha256", o.codecTokenSha256());
          n.put("added_at", String.valueOf(o.addedAt()));
          n.put("key_since", String.valueOf(o.keySince()));
        }
        ArrayNode retired = root.putArray("retired_keys");
        for (RetiredKey r : state.retired()) {
          retired.addObject().put("name", r.name()).put("key_id", r.keyId()).put("why", r.why()).put("at", String.valueOf(r.at()));
        }
        root.put("updated_at", Instant.now().toString());
        writeAtomically(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
      }
    }
  }

  private void writeAtomically(byte[] bytes) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = dir.resolve(FILE_NAME + ".tmp-" + Long.toHexString(RANDOM.nextLong()));
    try {
      if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
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
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING); // the commit
    } finally {
      Files.deleteIfExists(tmp);
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // not every platform can open a directory; the rename itself is atomic
    }
  }

  private static void createPrivateDirectory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      OperatorKey.createPrivateDirectories(dir.toAbsolutePath());
    }
  }
}
