package io.onceport.activity.vault;

import io.onceport.workflow.ErrorTypes;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * The vault as a running gateway (worker) sees it: resolves credential references at dispatch time
 * and answers the authorization ladder's questions.
 *
 * <p><b>Lock design.</b> The server holds the derived key, never the passphrase, and re-reads
 * {@code vault.bin} on every use (so {@code onceport vault put/rm} take effect without a restart;
 * the rename in {@link AtomicFile} means it sees the old or the new file, never a mix). Before every
 * use it checks the marker {@code <data>/vault.locked} ({@link VaultLock}):
 *
 * <ul>
 *   <li>{@code onceport vault lock} creates the marker. The next use sees it, wipes the key and
 *       reports {@link State#LOCKED}; nothing is resolved while it exists, so every running gateway
 *       on that data directory stops using credentials within one call, without any IPC.
 *   <li>{@code onceport vault unlock} checks the passphrase against the vault, then removes the
 *       marker. The next use re-reads the server's own {@link PassphraseSource} (its passphrase file,
 *       or {@value PassphraseSource#ENV} in its environment) and derives the key again. If that
 *       passphrase is wrong the service stays {@link State#UNAVAILABLE} ("wrong vault passphrase");
 *       it remembers a digest of the rejected passphrase so it repeats the costly derivation only
 *       once the passphrase source or the vault file changes.
 *   <li>A vault re-initialized under a new salt is picked up the same way (new key derived).
 * </ul>
 *
 * <p>Every failure message names files and credential names only. Thread-safe.
 */
public final class VaultService implements CredentialResolver {
  public enum State {
    UNLOCKED,
    /** The lock marker is present. */
    LOCKED,
    /** There is no vault file yet. */
    NOT_INITIALIZED,
    /** The vault cannot be used: corrupted, wrong passphrase, unreadable. */
    UNAVAILABLE
  }

  /** The state and a one-line reason (empty when unlocked); never contains a secret. */
  public record Status(State state, String reason) {
    public Status {
      Objects.requireNonNull(state, "state == null");
      reason = reason == null ? "" : reason;
    }
  }

  private final Path dataDir;
  private final PassphraseSource passphrase;
  // guarded by this
  private byte[] key;
  private byte[] keySalt;
  private KdfParameters keyKdf;
  private byte[] rejectedSalt;
  private byte[] rejectedPassphraseDigest;

  /** A service that derives its key lazily, on first use. Prefer {@link #open} to fail fast at startup. */
  public VaultService(Path dataDir, PassphraseSource passphrase) {
    this.dataDir = Objects.requireNonNull(dataDir, "dataDir == null");
    this.passphrase = Objects.requireNonNull(passphrase, "passphrase == null");
  }

  /**
   * Creates the service and, if the vault exists and is not locked, derives and checks the key now,
   * so {@code serve} refuses to start with {@code wrong vault passphrase} or {@code vault file is
   * corrupted: ...} instead of failing at the first call. A missing or locked vault is not an error
   * here: the service reports it per use.
   */
  public static VaultService open(Path dataDir, PassphraseSource passphrase) {
    VaultService service = new VaultService(dataDir, passphrase);
    if (!VaultLock.isLocked(dataDir) && Vault.exists(dataDir)) {
      service.current().close();
    }
    return service;
  }

  /**
   * What {@code serve} and the worker call with their options: the passphrase from {@code
   * passphraseFile} if given, else from {@value PassphraseSource#ENV} in {@code env}. Returns null
   * when there is neither a passphrase nor a vault (no vault configured: credential references are
   * rejected). A vault without a configured passphrase gives a service that reports itself
   * unavailable with a message saying how to provide one. Fails fast like {@link #open}.
   */
  public static VaultService configure(Path dataDir, Path passphraseFile, Map<String, String> env) {
    Objects.requireNonNull(dataDir, "dataDir == null");
    Objects.requireNonNull(env, "env == null");
    PassphraseSource source = PassphraseSource.configured(passphraseFile, env);
    if (source != null) {
      return open(dataDir, source);
    }
    if (!Vault.exists(dataDir)) {
      return null;
    }
    return new VaultService(dataDir, NO_PASSPHRASE);
  }

  private static final PassphraseSource NO_PASSPHRASE =
      new PassphraseSource() {
        @Override
        public char[] read() {
          throw new VaultException(
              VaultException.Kind.INVALID,
              "no vault passphrase configured: start with --passphrase-file FILE or set " + PassphraseSource.ENV);
        }

        @Override
        public String toString() {
          return "no passphrase";
        }
      };

  public Path dataDir() {
    return dataDir;
  }

  public Status status() {
    try (Vault ignored = current()) {
      return new Status(State.UNLOCKED, "");
    } catch (VaultException e) {
      return new Status(stateOf(e), e.getMessage());
    }
  }

  public boolean isLocked() {
    return status().state() != State.UNLOCKED;
  }

  /**
   * The credential named {@code name}; throws {@link VaultException} of kind {@code LOCKED},
   * {@code NOT_INITIALIZED}, {@code UNKNOWN_CREDENTIAL}, {@code CORRUPTED}, {@code WRONG_PASSPHRASE}
   * or {@code IO}.
   */
  public Credential lookup(String name) {
    Objects.requireNonNull(name, "name == null");
    try (Vault vault = current()) {
      return vault.credential(name).orElseThrow(() -> unknown(name));
    }
  }

  /** Whether every use of {@code name} needs an operator's approval; same failures as {@link #lookup}. */
  public boolean requiresApproval(String name) {
    Objects.requireNonNull(name, "name == null");
    try (Vault vault = current()) {
      return vault.entry(name).orElseThrow(() -> unknown(name)).approveEachUse();
    }
  }

  /**
   * For dispatch activities: the credential, or a non-retryable {@code ApplicationFailure} of type
   * {@link ErrorTypes#CREDENTIAL_UNAVAILABLE} whose message names the reference and the reason.
   */
  @Override
  public Credential resolve(String reference) {
    try {
      return lookup(reference);
    } catch (VaultException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "Credential '" + reference + "' is unavailable: " + e.getMessage(), ErrorTypes.CREDENTIAL_UNAVAILABLE);
    }
  }

  /** Wipes the key (server shutdown). The next use derives it again. */
  public synchronized void close() {
    dropKey();
  }

  @Override
  public String toString() {
    return "VaultService[" + dataDir + ", " + passphrase + "]";
  }

  static State stateOf(VaultException e) {
    return switch (e.kind()) {
      case LOCKED -> State.LOCKED;
      case NOT_INITIALIZED -> State.NOT_INITIALIZED;
      default -> State.UNAVAILABLE;
    };
  }

  private static VaultException unknown(String name) {
    return new VaultException(VaultException.Kind.UNKNOWN_CREDENTIAL, "no credential named '" + name + "' in the vault");
  }

  private synchronized Vault current() {
    if (VaultLock.isLocked(dataDir)) {
      dropKey();
      throw new VaultException(VaultException.Kind.LOCKED, "vault is locked (" + VaultLock.describe(dataDir) + ")");
    }
    VaultCodec.Contents contents = VaultCodec.read(Vault.file(dataDir));
    VaultCodec.Header header = contents.header();
    if (key == null || !Arrays.equals(keySalt, header.salt()) || !keyKdf.equals(header.kdf())) {
      dropKey();
      char[] pass = passphrase.read();
      try {
        byte[] digest = digest(pass);
        if (Arrays.equals(rejectedSalt, header.salt()) && Arrays.equals(rejectedPassphraseDigest, digest)) {
          throw new VaultException(VaultException.Kind.WRONG_PASSPHRASE, "wrong vault passphrase");
        }
        key = VaultCodec.deriveKey(pass, header.kdf(), header.salt());
        keySalt = header.salt().clone();
        keyKdf = header.kdf();
        try {
          VaultCodec.verifyKey(header, key);
        } catch (VaultException e) {
          rejectedSalt = keySalt;
          rejectedPassphraseDigest = digest;
          dropKey();
          throw e;
        }
      } finally {
        Arrays.fill(pass, '\0');
      }
    }
    return Vault.open(Vault.file(dataDir), contents, key);
  }

  private static byte[] digest(char[] pass) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (char c : pass) {
        md.update((byte) (c >> 8));
        md.update((byte) c);
      }
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private void dropKey() {
    if (key != null) {
      Arrays.fill(key, (byte) 0);
    }
    key = null;
    keySalt = null;
    keyKdf = null;
  }
}
