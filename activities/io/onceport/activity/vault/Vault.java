package io.onceport.activity.vault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * An open vault: the credentials of {@code <data>/vault.bin}, decrypted in memory, and the key that
 * sealed them. Opening reads and authenticates the whole file (see {@link VaultCodec}) or fails; it
 * is never partially read.
 *
 * <p>Crash contract: {@link #put} and {@link #remove} rewrite the whole file through {@link
 * AtomicFile} — temp file, fsync, rename, fsync of the directory — so after a crash the file holds
 * either the old or the new set of credentials. Each write seals every entry with a fresh random
 * 96-bit nonce. Concurrent writers (two CLI processes) are not coordinated: the last rename wins.
 *
 * <p>Not thread-safe; {@link #close()} wipes the key.
 */
public final class Vault implements AutoCloseable {
  public static final String FILE_NAME = "vault.bin";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private final Path file;
  private final VaultCodec.Header header;
  private final byte[] key;
  private final TreeMap<String, Stored> credentials;
  private AtomicFile.Renamer renamer = AtomicFile.ATOMIC_RENAME;

  private record Stored(Credential credential, boolean approveEachUse) {}

  private Vault(Path file, VaultCodec.Header header, byte[] key, TreeMap<String, Stored> credentials) {
    this.file = file;
    this.header = header;
    this.key = key;
    this.credentials = credentials;
  }

  public static Path file(Path dataDir) {
    return dataDir.resolve(FILE_NAME);
  }

  public static boolean exists(Path dataDir) {
    return Files.exists(file(dataDir));
  }

  /** Creates an empty vault; refuses to overwrite an existing one. */
  public static Vault create(Path dataDir, char[] passphrase, KdfParameters kdf) {
    Objects.requireNonNull(passphrase, "passphrase == null");
    Objects.requireNonNull(kdf, "kdf == null");
    if (passphrase.length == 0) {
      throw new VaultException(VaultException.Kind.INVALID, "empty vault passphrase");
    }
    Path file = file(dataDir);
    if (Files.exists(file)) {
      throw new VaultException(VaultException.Kind.ALREADY_INITIALIZED, "vault already exists at " + file);
    }
    byte[] salt = VaultCodec.newSalt();
    byte[] key = VaultCodec.deriveKey(passphrase, kdf, salt);
    Vault vault = new Vault(file, VaultCodec.newHeader(kdf, salt, key), key, new TreeMap<>());
    vault.save();
    return vault;
  }

  /** Opens and fully authenticates the vault; {@code wrong vault passphrase} or {@code vault file is corrupted: ...}. */
  public static Vault open(Path dataDir, char[] passphrase) {
    Objects.requireNonNull(passphrase, "passphrase == null");
    Path file = file(dataDir);
    VaultCodec.Contents contents = VaultCodec.read(file);
    byte[] key = VaultCodec.deriveKey(passphrase, contents.header().kdf(), contents.header().salt());
    return open(file, contents, key);
  }

  /** Opens already-read contents with a key derived earlier (the server keeps its key, not its passphrase). */
  static Vault open(Path file, VaultCodec.Contents contents, byte[] key) {
    byte[] ownKey = key.clone();
    try {
      VaultCodec.verifyKey(contents.header(), ownKey);
      TreeMap<String, Stored> credentials = new TreeMap<>();
      for (VaultCodec.SealedEntry entry : contents.entries()) {
        Credential c = VaultCodec.openEntry(ownKey, entry);
        if (credentials.put(c.name(), new Stored(c, entry.approveEachUse())) != null) {
          throw VaultException.corrupted("duplicate entry '" + c.name() + "'");
        }
      }
      return new Vault(file, contents.header(), ownKey, credentials);
    } catch (RuntimeException e) {
      Arrays.fill(ownKey, (byte) 0);
      throw e;
    }
  }

  public Path file() {
    return file;
  }

  public KdfParameters kdfParameters() {
    return header.kdf();
  }

  /** Names, types and flags, sorted by name; no secrets. */
  public List<VaultEntry> entries() {
    List<VaultEntry> out = new ArrayList<>();
    credentials.values().forEach(s -> out.add(new VaultEntry(s.credential().name(), s.credential().type(), s.approveEachUse())));
    return Collections.unmodifiableList(out);
  }

  public Optional<VaultEntry> entry(String name) {
    Stored s = credentials.get(name);
    return s == null ? Optional.empty() : Optional.of(new VaultEntry(name, s.credential().type(), s.approveEachUse()));
  }

  public Optional<Credential> credential(String name) {
    Stored s = credentials.get(name);
    return s == null ? Optional.empty() : Optional.of(s.credential());
  }

  /** Adds or replaces a credential and commits the file; returns true if it replaced one. */
  public boolean put(Credential credential, boolean approveEachUse) {
    Objects.requireNonNull(credential, "credential == null");
    validate(credential);
    Stored previous = credentials.put(credential.name(), new Stored(credential, approveEachUse));
    try {
      save();
    } catch (RuntimeException e) {
      restore(credential.name(), previous);
      throw e;
    }
    return previous != null;
  }

  /** Removes a credential and commits the file; {@code UNKNOWN_CREDENTIAL} if there is none. */
  public void remove(String name) {
    Stored previous = credentials.remove(name);
    if (previous == null) {
      throw new VaultException(VaultException.Kind.UNKNOWN_CREDENTIAL, "no credential named '" + name + "' in the vault");
    }
    try {
      save();
    } catch (RuntimeException e) {
      restore(name, previous);
      throw e;
    }
  }

  @Override
  public void close() {
    Arrays.fill(key, (byte) 0);
  }

  @Override
  public String toString() {
    return "Vault[" + file + ", " + credentials.size() + " credentials]";
  }

  /** Test seam: replaces the rename (commit) step of writes. */
  void renamer(AtomicFile.Renamer renamer) {
    this.renamer = renamer;
  }

  private void restore(String name, Stored previous) {
    if (previous == null) {
      credentials.remove(name);
    } else {
      credentials.put(name, previous);
    }
  }

  private void save() {
    List<VaultCodec.SealedEntry> sealed = new ArrayList<>();
    credentials.values().forEach(s -> sealed.add(VaultCodec.sealEntry(key, s.credential(), s.approveEachUse())));
    byte[] bytes = VaultCodec.encode(new VaultCodec.Contents(header, sealed));
    try {
      AtomicFile.write(file, bytes, renamer);
    } catch (IOException e) {
      throw new VaultException(VaultException.Kind.IO, "cannot write vault file " + file + ": " + e.getMessage(), e);
    }
  }

  private static void validate(Credential c) {
    if (!NAME.matcher(c.name()).matches()) {
      throw new VaultException(
          VaultException.Kind.INVALID,
          "invalid credential name '" + c.name() + "': use letters, digits, '.', '_' or '-' (at most 128)");
    }
    if (c.secret().isEmpty()) {
      throw new VaultException(VaultException.Kind.INVALID, "empty secret for credential '" + c.name() + "'");
    }
    boolean header = c.type() == Credential.Type.HEADER;
    boolean basic = c.type() == Credential.Type.BASIC;
    if (header != (c.headerName() != null)) {
      throw new VaultException(
          VaultException.Kind.INVALID,
          header ? "a header credential needs a header name" : "a header name applies only to type header");
    }
    if (basic != (c.username() != null)) {
      throw new VaultException(
          VaultException.Kind.INVALID, basic ? "a basic credential needs a username" : "a username applies only to type basic");
    }
    if (header && !c.headerName().matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
      throw new VaultException(VaultException.Kind.INVALID, "invalid header name '" + c.headerName() + "'");
    }
  }
}
