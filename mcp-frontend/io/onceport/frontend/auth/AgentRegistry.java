package io.onceport.frontend.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The agents allowed to call the gateway: actor name → SHA-256 of its bearer token, kept in
 * {@code <data>/agents.json} (mode 0600). The token itself is shown once by {@link #add} and never
 * stored, so a leaked data directory does not leak usable tokens.
 *
 * <p>Crash contract: every change is written to a temp file, fsynced, then atomically renamed over
 * {@code agents.json} (and the directory fsynced), so a reader sees the old or the new file, never
 * a torn one. Changes are serialized across processes by a lock on {@code agents.json.lock}.
 * {@link #authenticate} re-reads the file whenever it changed on disk, so {@code onceport agent
 * add} takes effect on a running server without a restart; {@link #generations()} does the same for
 * the front end's {@link CredentialWatcher}, which ends a removed agent's waits, streams and sessions
 * in every process on the data directory.
 *
 * <p>Each token has a <em>credential generation</em> ({@link #generation}): 8 hex characters derived
 * from the token's stored hash, so a new token (remove, then add) is a new generation without any
 * new state in the file. Sessions are bound to the generation they were opened with
 * ({@link SessionIds}), so a re-added agent starts with no sessions and no authorizations. The
 * generation says nothing usable about the token: it is 32 bits of a hash of a hash of 256 random bits.
 */
public final class AgentRegistry {
  /** Actor names: lowercase, e.g. {@code agent:deployer}. */
  public static final Pattern ACTOR = Pattern.compile("^[a-z][a-z0-9:._-]{0,63}$");

  public static final String TOKEN_PREFIX = "op_";
  static final String FILE_NAME = "agents.json";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path dataDir;
  private final Path file;
  private volatile Snapshot snapshot = new Snapshot(null, Map.of());
  /** See {@link #takeUsed()}: at most one entry per credential in use. */
  private final Set<Generation> used = ConcurrentHashMap.newKeySet();

  private record Snapshot(Object version, Map<String, byte[]> hashes) {}

  private static final String GENERATION_DERIVATION = "onceport/credential-generation\n";

  public AgentRegistry(Path dataDir) {
    this.dataDir = Objects.requireNonNull(dataDir, "dataDir == null");
    this.file = dataDir.resolve(FILE_NAME);
  }

  /** The file the registry lives in. */
  public Path file() {
    return file;
  }

  /**
   * Creates a token for {@code actor} and returns it ({@code op_<base64url of 32 random bytes>});
   * only its hash is stored.
   *
   * @throws IllegalArgumentException if the actor name is invalid (or names an operator: {@code
   *     operator:…}), or already has a token
   */
  public String add(String actor) throws IOException {
    checkActor(actor);
    if (actor.startsWith("operator:")) {
      // Agents and operators are separate registries: an agent token never decides as an operator.
      throw new IllegalArgumentException("agent names starting with 'operator:' are refused: operators are not agents; "
          + "an operator is a key pair made with `onceport operator add NAME`");
    }
    byte[] raw = new byte[32];
    RANDOM.nextBytes(raw);
    String token = TOKEN_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    update(agents -> {
      if (agents.containsKey(actor)) {
        throw new IllegalArgumentException(
            actor + " already has a token (remove it first: onceport agent remove " + actor + ")");
      }
      agents.put(actor, sha256(token));
    });
    return token;
  }

  /** Removes {@code actor}'s token; returns false if there was none. */
  public boolean remove(String actor) throws IOException {
    Objects.requireNonNull(actor, "actor == null");
    boolean[] removed = {false};
    update(agents -> removed[0] = agents.remove(actor) != null);
    return removed[0];
  }

  /** Actor names, in the order they were added. */
  public List<String> actors() throws IOException {
    return new ArrayList<>(read().keySet());
  }

  /**
   * The actor owning {@code bearerToken}, or empty. Compares hashes in constant time and checks
   * every entry, so timing says nothing about which prefix matched.
   *
   * @throws UncheckedIOException if the registry file exists but cannot be read (fail closed)
   */
  public Optional<String> authenticate(String bearerToken) {
    return authenticate(bearerToken, current());
  }

  private static Optional<String> authenticate(String bearerToken, Snapshot snapshot) {
    if (bearerToken == null || !bearerToken.startsWith(TOKEN_PREFIX)) {
      return Optional.empty();
    }
    byte[] presented = sha256Bytes(bearerToken);
    String match = null;
    for (Map.Entry<String, byte[]> e : snapshot.hashes().entrySet()) {
      if (MessageDigest.isEqual(presented, e.getValue()) && match == null) {
        match = e.getKey();
      }
    }
    return Optional.ofNullable(match);
  }

  /**
   * The registry as the front end's {@link Authenticator}: a static token's principal carries its
   * generation, so sessions opened with it end with it.
   */
  public Authenticator authenticator() {
    return new Authenticator() {
      @Override
      public Optional<String> actorFor(String bearerToken) {
        return AgentRegistry.this.authenticate(bearerToken);
      }

      @Override
      public Principal authenticate(String bearerToken) {
        Snapshot s = current();
        Principal p = AgentRegistry.authenticate(bearerToken, s).map(actor -> Principal.unscoped(actor, generation(s.hashes().get(actor))))
            .orElseThrow(() -> AuthenticationException.invalidToken("unknown or revoked token"));
        used.add(new Generation(p.actor(), p.generation()));
        return p;
      }
    };
  }

  /** One credential: an actor and its token's generation. */
  public record Generation(String actor, String generation) {}

  /**
   * The credentials that authenticated a request since the last {@link #takeUsed()}, then none. The
   * {@link CredentialWatcher} looks at the file every quarter second; a token added, used and removed
   * between two looks would otherwise never be seen to go, and its sessions never ended (a full test
   * run once did exactly that in 250 ms).
   */
  public Set<Generation> takeUsed() {
    Set<Generation> taken = new HashSet<>();
    for (Generation g : used) {
      if (used.remove(g)) {
        taken.add(g);
      }
    }
    return taken;
  }

  /**
   * Each registered actor with its token's generation, as the file stands now (re-read when it
   * changed on disk).
   *
   * @throws UncheckedIOException if the registry file exists but cannot be read
   */
  public Map<String, String> generations() {
    Map<String, String> out = new LinkedHashMap<>();
    current().hashes().forEach((actor, hash) -> out.put(actor, generation(hash)));
    return out;
  }

  /** The generation of {@code actor}'s current token, or empty when the actor has none. */
  public Optional<String> generation(String actor) {
    return Optional.ofNullable(current().hashes().get(actor)).map(AgentRegistry::generation);
  }

  /** 8 hex characters of SHA-256 over the derivation label and the token's stored hash. */
  static String generation(byte[] tokenHash) {
    String hex = HexFormat.of().formatHex(tokenHash);
    return HexFormat.of().formatHex(sha256Bytes(GENERATION_DERIVATION + hex), 0, 4);
  }

  /** Throws IllegalArgumentException with advice when {@code actor} is not a valid actor name. */
  public static void checkActor(String actor) {
    if (actor == null || !ACTOR.matcher(actor).matches()) {
      throw new IllegalArgumentException("invalid actor '" + actor
          + "': use a lowercase name like agent:deployer (a-z first, then up to 63 of a-z 0-9 : . _ -)");
    }
  }

  private Snapshot current() {
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
      return s;
    }
    Map<String, byte[]> hashes = new LinkedHashMap<>();
    try {
      read().forEach((actor, hex) -> hashes.put(actor, HexFormat.of().parseHex(hex)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    s = new Snapshot(version, Map.copyOf(hashes));
    snapshot = s;
    return s;
  }

  private Map<String, String> read() throws IOException {
    Map<String, String> agents = new LinkedHashMap<>();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return agents;
    }
    JsonNode root = JSON.readTree(text);
    for (JsonNode a : root.path("agents")) {
      String actor = a.path("actor").asText(null);
      String hash = a.path("token_sha256").asText(null);
      if (actor == null || hash == null || !hash.matches("[0-9a-f]{64}")) {
        throw new IOException(file + ": malformed agent entry " + a);
      }
      agents.put(actor, hash);
    }
    return agents;
  }

  private interface Change {
    void apply(Map<String, String> agents);
  }

  /** File locks are per process; threads of one process are serialized by this monitor first. */
  private static final Object PROCESS_LOCK = new Object();

  private void update(Change change) throws IOException {
    synchronized (PROCESS_LOCK) {
      updateLocked(change);
    }
  }

  private void updateLocked(Change change) throws IOException {
    createPrivateDirectories(dataDir);
    try (FileChannel lockChannel = io.onceport.shared.files.PrivateFiles.open(dataDir.resolve(FILE_NAME + ".lock"),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock ignored = lockChannel.lock()) {
      Map<String, String> agents = read();
      change.apply(agents);
      ObjectNode root = JSON.createObjectNode();
      ArrayNode list = root.putArray("agents");
      agents.forEach((actor, hash) -> list.addObject().put("actor", actor).put("token_sha256", hash));
      root.put("updated_at", Instant.now().toString());
      byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
      writeAtomically(file, bytes);
    }
  }

  /** temp file (0600) → write → fsync → rename over {@code target} → fsync the directory. */
  static void writeAtomically(Path target, byte[] bytes) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = dir.resolve(target.getFileName() + ".tmp-" + Long.toHexString(RANDOM.nextLong()));
    try {
      createPrivateFile(tmp);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(java.nio.ByteBuffer.wrap(bytes));
        ch.force(true);
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
    fsyncDirectory(dir);
  }

  static void createPrivateFile(Path path) throws IOException {
    io.onceport.shared.files.PrivateFiles.createFile(path);
  }

  static void createPrivateDirectories(Path dir) throws IOException {
    io.onceport.shared.files.PrivateFiles.createDirectories(dir);
  }

  static void fsyncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Not every platform can open a directory; the rename itself is still atomic.
    }
  }

  static String sha256(String token) {
    return HexFormat.of().formatHex(sha256Bytes(token));
  }

  private static byte[] sha256Bytes(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
