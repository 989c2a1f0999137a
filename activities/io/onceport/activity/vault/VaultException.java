package io.onceport.activity.vault;

import java.util.Objects;

/**
 * Why the vault could not do what was asked. Messages name files and credential names only, never
 * a secret or a passphrase, so they are safe to log, journal and show an agent.
 */
public final class VaultException extends RuntimeException {
  public enum Kind {
    /** The file failed its length, checksum, structure or authentication checks. */
    CORRUPTED,
    WRONG_PASSPHRASE,
    /** The lock marker is present: an operator said running gateways must not use the vault. */
    LOCKED,
    NOT_INITIALIZED,
    ALREADY_INITIALIZED,
    UNKNOWN_CREDENTIAL,
    INVALID,
    /** Reading or writing a file failed. */
    IO
  }

  private final Kind kind;

  public VaultException(Kind kind, String message) {
    super(message);
    this.kind = Objects.requireNonNull(kind, "kind == null");
  }

  public VaultException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind == null");
  }

  public Kind kind() {
    return kind;
  }

  static VaultException corrupted(String detail) {
    return new VaultException(Kind.CORRUPTED, "vault file is corrupted: " + detail);
  }
}
