package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The journal signing key under {@code <data>/keys/}: {@code journal-ed25519.key} (the private key
 * line, mode 0600) and {@code journal-ed25519.pub} (the verifier key, for {@code audit verify} and
 * for bundles). Created once; concurrent first starts race safely because the key file is
 * published with a hard link, which fails if another process published first.
 */
public final class JournalKeys {
  public static final String PRIVATE_FILE = "journal-ed25519.key";
  public static final String PUBLIC_FILE = "journal-ed25519.pub";

  private JournalKeys() {}

  public static Path privateKeyFile(Path dataDir) {
    return dataDir.resolve("keys").resolve(PRIVATE_FILE);
  }

  public static Path publicKeyFile(Path dataDir) {
    return dataDir.resolve("keys").resolve(PUBLIC_FILE);
  }

  /** Loads the signing key, generating it (named {@code keyName}) on first use. */
  public static NoteSigner loadOrCreate(Path dataDir, String keyName) throws IOException {
    Path key = privateKeyFile(dataDir);
    if (!Files.exists(key)) {
      io.onceport.shared.files.PrivateFiles.createDirectories(key.getParent());
      NoteSigner fresh = NoteSigner.generate(keyName);
      Path tmp = io.onceport.shared.files.PrivateFiles.createTempFile(key.getParent(), "journal-key", ".tmp");
      try {
        Files.writeString(tmp, fresh.encode() + "\n", StandardCharsets.UTF_8);
        try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
          ch.force(true);
        }
        Files.createLink(key, tmp);
      } catch (FileAlreadyExistsException raced) {
        // another process published its key first; use that one
      } finally {
        Files.deleteIfExists(tmp);
      }
      CheckpointStore.fsyncDir(key.getParent());
    }
    NoteSigner signer = NoteSigner.parse(Files.readString(key, StandardCharsets.UTF_8));
    Path pub = publicKeyFile(dataDir);
    if (!Files.exists(pub) || !Files.readString(pub).strip().equals(signer.verifierKey())) {
      io.onceport.shared.files.PrivateFiles.writeString(pub, signer.verifierKey() + "\n");
    }
    return signer;
  }

  /**
   * Reads a verifier key: from {@code <data>/keys/journal-ed25519.pub}, else derived from the
   * private key file.
   */
  public static NoteVerifier loadVerifier(Path dataDir) throws IOException {
    Path pub = publicKeyFile(dataDir);
    if (Files.exists(pub)) {
      return NoteVerifier.parse(Files.readString(pub, StandardCharsets.UTF_8));
    }
    Path key = privateKeyFile(dataDir);
    if (Files.exists(key)) {
      return NoteSigner.parse(Files.readString(key, StandardCharsets.UTF_8)).verifier();
    }
    throw new IOException("no journal key in " + dataDir.resolve("keys"));
  }
}
