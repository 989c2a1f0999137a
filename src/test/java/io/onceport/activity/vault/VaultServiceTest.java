package io.onceport.activity.vault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.ErrorTypes;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VaultServiceTest {
  static final String PASS = "server passphrase";
  static final String SECRET = "ghp_TOPSECRET_42";

  @TempDir Path dir;
  Path passFile;

  @BeforeEach
  void createVault() throws IOException {
    passFile = dir.resolve("pass");
    Files.writeString(passFile, PASS + "\n");
    try (Vault v = Vault.create(dir, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, SECRET), false);
      v.put(new Credential("prod-ssh", Credential.Type.SSH_KEY, null, null, "KEY"), true);
    }
  }

  @Test
  void resolvesCredentialsAndFlagsWithThePassphraseFromAFile() {
    VaultService service = VaultService.open(dir, PassphraseSource.fromFile(passFile));
    assertEquals(new VaultService.Status(VaultService.State.UNLOCKED, ""), service.status());
    assertFalse(service.isLocked());
    assertEquals(SECRET, service.resolve("gh").secret());
    assertFalse(service.requiresApproval("gh"));
    assertTrue(service.requiresApproval("prod-ssh"));
  }

  @Test
  void readsThePassphraseFromTheEnvironmentVariable() {
    VaultService service =
        VaultService.open(dir, PassphraseSource.fromEnvironment(Map.of("ONCEPORT_VAULT_PASSPHRASE", PASS)));
    assertEquals(SECRET, service.lookup("gh").secret());
  }

  @Test
  void openingWithAWrongPassphraseFailsAtStartup() throws IOException {
    Files.writeString(passFile, "nope");
    VaultException e =
        assertThrows(VaultException.class, () -> VaultService.open(dir, PassphraseSource.fromFile(passFile)));
    assertEquals("wrong vault passphrase", e.getMessage());
  }

  @Test
  void aWrongPassphraseIsReportedPerUseAndRecoversWhenTheSourceIsFixed() throws IOException {
    Files.writeString(passFile, "nope");
    VaultService service = new VaultService(dir, PassphraseSource.fromFile(passFile));
    assertEquals(new VaultService.Status(VaultService.State.UNAVAILABLE, "wrong vault passphrase"), service.status());
    assertEquals(new VaultService.Status(VaultService.State.UNAVAILABLE, "wrong vault passphrase"), service.status());
    Files.writeString(passFile, PASS);
    assertEquals(VaultService.State.UNLOCKED, service.status().state());
  }

  @Test
  void anUnknownOrUnavailableCredentialIsANonRetryableCredentialUnavailableFailure() {
    VaultService service = VaultService.open(dir, PassphraseSource.fromFile(passFile));
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> service.resolve("missing"));
    assertEquals(ErrorTypes.CREDENTIAL_UNAVAILABLE, f.getType());
    assertTrue(f.isNonRetryable());
    assertEquals("Credential 'missing' is unavailable: no credential named 'missing' in the vault", f.getOriginalMessage());
    VaultException e = assertThrows(VaultException.class, () -> service.lookup("missing"));
    assertEquals(VaultException.Kind.UNKNOWN_CREDENTIAL, e.kind());
  }

  @Test
  void lockingFromOneInstanceLocksAnotherRunningInstanceAndUnlockingRestoresIt() {
    VaultService server = VaultService.open(dir, PassphraseSource.fromFile(passFile));
    assertEquals(SECRET, server.resolve("gh").secret());

    // What `onceport vault lock` does, from another process's point of view.
    VaultLock.lock(dir, "cli:test", Instant.parse("2026-11-30T06:00:00Z"));

    VaultService.Status locked = server.status();
    assertEquals(VaultService.State.LOCKED, locked.state());
    assertEquals("vault is locked (locked at 2026-11-30T06:00:00Z by cli:test)", locked.reason());
    assertTrue(server.isLocked());
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> server.resolve("gh"));
    assertEquals(ErrorTypes.CREDENTIAL_UNAVAILABLE, f.getType());
    assertEquals(
        "Credential 'gh' is unavailable: vault is locked (locked at 2026-11-30T06:00:00Z by cli:test)",
        f.getOriginalMessage());
    VaultException e = assertThrows(VaultException.class, () -> server.requiresApproval("gh"));
    assertEquals(VaultException.Kind.LOCKED, e.kind());

    VaultService second = new VaultService(dir, PassphraseSource.fromFile(passFile));
    assertTrue(second.isLocked(), "a second gateway on the same data dir is locked too");

    assertTrue(VaultLock.unlock(dir));
    assertFalse(VaultLock.unlock(dir));
    assertEquals(SECRET, server.resolve("gh").secret());
    assertEquals(SECRET, second.resolve("gh").secret());
  }

  @Test
  void aRunningServiceSeesCredentialsAddedAndRemovedByTheCli() {
    VaultService server = VaultService.open(dir, PassphraseSource.fromFile(passFile));
    try (Vault cli = Vault.open(dir, PASS.toCharArray())) {
      cli.put(new Credential("late", Credential.Type.HEADER, "X-Key", null, "late-secret"), false);
      cli.remove("gh");
    }
    assertEquals("late-secret", server.resolve("late").secret());
    assertEquals("X-Key", server.resolve("late").headerName());
    assertThrows(ApplicationFailure.class, () -> server.resolve("gh"));
  }

  @Test
  void aMissingVaultIsNotInitializedAndAReinitializedVaultIsPickedUp() throws IOException {
    Path empty = dir.resolve("fresh");
    Files.createDirectories(empty);
    VaultService server = VaultService.open(empty, PassphraseSource.fromFile(passFile));
    VaultService.Status status = server.status();
    assertEquals(VaultService.State.NOT_INITIALIZED, status.state());
    assertEquals("vault is not initialized: no " + Vault.file(empty) + " (run `onceport vault init`)", status.reason());

    try (Vault v = Vault.create(empty, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, "first"), false);
    }
    assertEquals("first", server.resolve("gh").secret());
    Files.delete(Vault.file(empty));
    try (Vault v = Vault.create(empty, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, "second"), false);
    }
    assertEquals("second", server.resolve("gh").secret(), "new salt, key derived again");
  }

  @Test
  void aVaultCorruptedWhileRunningIsUnavailableNotPartiallyRead() throws IOException {
    VaultService server = VaultService.open(dir, PassphraseSource.fromFile(passFile));
    byte[] data = Files.readAllBytes(Vault.file(dir));
    data[data.length - 1] ^= 1;
    Files.write(Vault.file(dir), data);
    assertEquals(
        new VaultService.Status(
            VaultService.State.UNAVAILABLE, "vault file is corrupted: checksum mismatch (" + Vault.file(dir) + ")"),
        server.status());
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> server.resolve("gh"));
    assertEquals(
        "Credential 'gh' is unavailable: vault file is corrupted: checksum mismatch (" + Vault.file(dir) + ")",
        f.getOriginalMessage());
  }

  @Test
  void passphraseSourcesExplainWhatIsMissingWithoutShowingValues() throws IOException {
    assertEquals(null, PassphraseSource.configured(null, Map.of()));
    assertEquals("environment variable ONCEPORT_VAULT_PASSPHRASE",
        PassphraseSource.configured(null, Map.of("ONCEPORT_VAULT_PASSPHRASE", PASS)).toString());
    assertEquals("passphrase file " + passFile,
        PassphraseSource.configured(passFile, Map.of("ONCEPORT_VAULT_PASSPHRASE", "x")).toString());
    Files.writeString(passFile, "\n");
    VaultException e = assertThrows(VaultException.class, () -> PassphraseSource.fromFile(passFile).read());
    assertEquals("passphrase file " + passFile + " is empty", e.getMessage());
    e = assertThrows(VaultException.class, () -> PassphraseSource.fromEnvironment(Map.of()).read());
    assertEquals("environment variable ONCEPORT_VAULT_PASSPHRASE is not set", e.getMessage());
  }

  @Test
  void configureUsesTheFileBeforeTheEnvironmentAndExplainsAMissingPassphrase() throws IOException {
    VaultService fromFile = VaultService.configure(dir, passFile, Map.of(PassphraseSource.ENV, "wrong"));
    assertEquals(SECRET, fromFile.resolve("gh").secret());
    VaultService fromEnv = VaultService.configure(dir, null, Map.of(PassphraseSource.ENV, PASS));
    assertEquals(SECRET, fromEnv.resolve("gh").secret());

    VaultService none = VaultService.configure(dir, null, Map.of());
    assertEquals(
        new VaultService.Status(
            VaultService.State.UNAVAILABLE,
            "no vault passphrase configured: start with --passphrase-file FILE or set ONCEPORT_VAULT_PASSPHRASE"),
        none.status());
    Path empty = Files.createDirectories(dir.resolve("empty"));
    assertEquals(null, VaultService.configure(empty, null, Map.of()), "no vault and no passphrase: none configured");
  }

  @Test
  void theLockWatcherReportsLockAndUnlockWithoutACredentialUse() throws InterruptedException {
    BlockingQueue<Boolean> changes = new LinkedBlockingQueue<>();
    try (VaultLockWatcher watcher = VaultLockWatcher.start(dir, Duration.ofMillis(20), changes::add)) {
      VaultLock.lock(dir, "test", Instant.now());
      assertEquals(Boolean.TRUE, changes.poll(5, TimeUnit.SECONDS));
      VaultLock.unlock(dir);
      assertEquals(Boolean.FALSE, changes.poll(5, TimeUnit.SECONDS));
    }
    assertEquals(null, changes.poll(100, TimeUnit.MILLISECONDS));
  }
}
