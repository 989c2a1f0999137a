package io.onceport.activity.vault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VaultTest {
  static final char[] PASS = "correct horse battery staple".toCharArray();
  static final String SSH_KEY =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n";

  @TempDir Path dir;

  @Test
  void everyCredentialTypeSurvivesARoundTripThroughTheFile() {
    List<Credential> all =
        List.of(
            new Credential("gh", Credential.Type.BEARER, null, null, "ghp_token-123"),
            new Credential("jira", Credential.Type.BASIC, null, "alice", "p@ss:wörd"),
            new Credential("api", Credential.Type.HEADER, "X-Api-Key", null, "k-456"),
            new Credential("deploy", Credential.Type.SSH_KEY, null, null, SSH_KEY));
    try (Vault v = Vault.create(dir, PASS, KdfParameters.forTests())) {
      for (Credential c : all) {
        assertFalse(v.put(c, c.name().equals("deploy")));
      }
    }
    try (Vault v = Vault.open(dir, PASS)) {
      for (Credential c : all) {
        Credential read = v.credential(c.name()).orElseThrow();
        assertEquals(c.name(), read.name());
        assertEquals(c.type(), read.type());
        assertEquals(c.headerName(), read.headerName());
        assertEquals(c.username(), read.username());
        assertEquals(c.secret(), read.secret());
      }
      assertEquals(
          List.of(
              new VaultEntry("api", Credential.Type.HEADER, false),
              new VaultEntry("deploy", Credential.Type.SSH_KEY, true),
              new VaultEntry("gh", Credential.Type.BEARER, false),
              new VaultEntry("jira", Credential.Type.BASIC, false)),
          v.entries());
      assertEquals(KdfParameters.forTests(), v.kdfParameters());
    }
  }

  @Test
  void theFileHoldsNeitherSecretsNorThePassphraseInClear() throws IOException {
    try (Vault v = Vault.create(dir, PASS, KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, "ghp_SECRETVALUE"), false);
      v.put(new Credential("jira", Credential.Type.BASIC, null, "alice-user", "pw"), false);
    }
    String raw = new String(Files.readAllBytes(Vault.file(dir)), StandardCharsets.ISO_8859_1);
    assertFalse(raw.contains("ghp_SECRETVALUE"));
    assertFalse(raw.contains("alice-user"));
    assertFalse(raw.contains("correct horse"));
    assertTrue(raw.contains("gh"), "names are metadata in clear");
  }

  @Test
  void putReplacesAndRemoveDeletes() {
    try (Vault v = Vault.create(dir, PASS, KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, "one"), false);
      assertTrue(v.put(new Credential("gh", Credential.Type.BEARER, null, null, "two"), true));
      v.put(new Credential("other", Credential.Type.BEARER, null, null, "x"), false);
      v.remove("other");
      VaultException e = assertThrows(VaultException.class, () -> v.remove("other"));
      assertEquals("no credential named 'other' in the vault", e.getMessage());
      assertEquals(VaultException.Kind.UNKNOWN_CREDENTIAL, e.kind());
    }
    try (Vault v = Vault.open(dir, PASS)) {
      assertEquals(List.of(new VaultEntry("gh", Credential.Type.BEARER, true)), v.entries());
      assertEquals("two", v.credential("gh").orElseThrow().secret());
    }
  }

  @Test
  void aWrongPassphraseIsRefused() {
    Vault.create(dir, PASS, KdfParameters.forTests()).close();
    VaultException e = assertThrows(VaultException.class, () -> Vault.open(dir, "wrong".toCharArray()));
    assertEquals("wrong vault passphrase", e.getMessage());
    assertEquals(VaultException.Kind.WRONG_PASSPHRASE, e.kind());
  }

  @Test
  void initRefusesToOverwriteAnExistingVault() {
    Vault.create(dir, PASS, KdfParameters.forTests()).close();
    VaultException e = assertThrows(VaultException.class, () -> Vault.create(dir, PASS, KdfParameters.forTests()));
    assertEquals("vault already exists at " + Vault.file(dir), e.getMessage());
  }

  @Test
  void openingAMissingVaultSaysHowToCreateOne() {
    VaultException e = assertThrows(VaultException.class, () -> Vault.open(dir, PASS));
    assertEquals(
        "vault is not initialized: no " + Vault.file(dir) + " (run `onceport vault init`)", e.getMessage());
    assertEquals(VaultException.Kind.NOT_INITIALIZED, e.kind());
  }

  @Test
  void aFlippedByteInTheHeaderIsRefusedAsCorruption() throws IOException {
    withOneCredential();
    byte[] data = Files.readAllBytes(Vault.file(dir));
    data[25] ^= 0x01; // inside the salt
    Files.write(Vault.file(dir), data);
    assertCorrupted("checksum mismatch (" + Vault.file(dir) + ")");
  }

  @Test
  void aFlippedByteInAnEntryIsRefusedAsCorruption() throws IOException {
    withOneCredential();
    byte[] data = Files.readAllBytes(Vault.file(dir));
    data[data.length - 40] ^= 0x01; // inside the last entry's ciphertext
    Files.write(Vault.file(dir), data);
    assertCorrupted("checksum mismatch (" + Vault.file(dir) + ")");
  }

  @Test
  void aTruncatedVaultIsRefusedAsCorruption() throws IOException {
    withOneCredential();
    byte[] data = Files.readAllBytes(Vault.file(dir));
    Files.write(Vault.file(dir), Arrays.copyOf(data, data.length - 10));
    assertCorrupted(
        "truncated, expected " + data.length + " bytes but found " + (data.length - 10) + " (" + Vault.file(dir) + ")");
    Files.write(Vault.file(dir), Arrays.copyOf(data, 7));
    assertCorrupted("truncated to 7 bytes (" + Vault.file(dir) + ")");
    Files.write(Vault.file(dir), new byte[0]);
    assertCorrupted("truncated to 0 bytes (" + Vault.file(dir) + ")");
  }

  @Test
  void aFileThatIsNotAVaultIsRefused() throws IOException {
    Files.writeString(Vault.file(dir), "this is a text file, long enough to pass the minimum size check");
    assertCorrupted("not a vault file, bad magic (" + Vault.file(dir) + ")");
  }

  @Test
  void anEditedEntryWithARecomputedChecksumFailsAuthentication() throws IOException {
    withOneCredential();
    byte[] data = Files.readAllBytes(Vault.file(dir));
    data[data.length - 40] ^= 0x01;
    Files.write(Vault.file(dir), withChecksum(data));
    assertCorrupted("entry 'gh' failed authentication");
  }

  @Test
  void strippingTheApproveEachUseFlagInTheFileFailsAuthentication() throws IOException {
    withOneCredential();
    byte[] data = Files.readAllBytes(Vault.file(dir));
    // header 37 bytes (16-byte salt) + key check 12+2+43 + entry count 4 + name length 2 = 100
    assertEquals("gh", new String(data, 100, 2, StandardCharsets.UTF_8));
    int flags = 100 + 2 + 1;
    assertEquals(1, data[flags], "the credential was stored with approve-each-use");
    data[flags] = 0;
    Files.write(Vault.file(dir), withChecksum(data));
    assertCorrupted("entry 'gh' failed authentication");
  }

  @Test
  void aCrashBeforeTheRenameLeavesTheOldVaultIntact() throws IOException {
    withOneCredential();
    byte[] before = Files.readAllBytes(Vault.file(dir));
    try (Vault v = Vault.open(dir, PASS)) {
      v.renamer(
          (from, to) -> {
            // What a real crash at this point leaves behind: the written, never renamed temp file.
            Files.copy(from, dir.resolve(Vault.FILE_NAME + ".crashed.tmp"));
            throw new IOException("simulated crash before rename");
          });
      VaultException e =
          assertThrows(
              VaultException.class, () -> v.put(new Credential("new", Credential.Type.BEARER, null, null, "n"), false));
      assertEquals("cannot write vault file " + Vault.file(dir) + ": simulated crash before rename", e.getMessage());
      assertEquals(List.of("gh"), v.entries().stream().map(VaultEntry::name).toList(), "memory matches the file");
    }
    assertArrayEquals(before, Files.readAllBytes(Vault.file(dir)));
    try (Vault v = Vault.open(dir, PASS)) {
      assertEquals(List.of(new VaultEntry("gh", Credential.Type.BEARER, true)), v.entries());
      v.put(new Credential("new", Credential.Type.BEARER, null, null, "n"), false);
    }
    try (Vault v = Vault.open(dir, PASS)) {
      assertEquals(2, v.entries().size());
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(
          List.of("vault.bin", "vault.bin.crashed.tmp"), files.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }

  @Test
  void theVaultFileIsReadableByItsOwnerOnly() throws IOException {
    Vault.create(dir, PASS, KdfParameters.forTests()).close();
    assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"));
    assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(Vault.file(dir)));
  }

  @Test
  void invalidCredentialsAreRefusedBeforeAnythingIsWritten() {
    try (Vault v = Vault.create(dir, PASS, KdfParameters.forTests())) {
      assertInvalid(v, new Credential("bad name", Credential.Type.BEARER, null, null, "s"),
          "invalid credential name 'bad name': use letters, digits, '.', '_' or '-' (at most 128)");
      assertInvalid(v, new Credential("h", Credential.Type.HEADER, null, null, "s"), "a header credential needs a header name");
      assertInvalid(v, new Credential("b", Credential.Type.BASIC, null, null, "s"), "a basic credential needs a username");
      assertInvalid(v, new Credential("t", Credential.Type.BEARER, "X-A", null, "s"), "a header name applies only to type header");
      assertInvalid(v, new Credential("t", Credential.Type.BEARER, null, null, ""), "empty secret for credential 't'");
      assertTrue(v.entries().isEmpty());
    }
  }

  @Test
  void defaultArgon2ParametersAreModerateAndRecordedInTheHeader() throws IOException {
    assertEquals(new KdfParameters(65536, 3, 1), KdfParameters.DEFAULT);
    Vault.create(dir, PASS, new KdfParameters(512, 2, 1)).close();
    assertEquals(new KdfParameters(512, 2, 1), VaultCodec.read(Vault.file(dir)).header().kdf());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new KdfParameters(4, 1, 1));
    assertEquals("Invalid Argon2 memory: 4 KiB", e.getMessage());
  }

  private static void assertInvalid(Vault v, Credential c, String message) {
    VaultException e = assertThrows(VaultException.class, () -> v.put(c, false));
    assertEquals(message, e.getMessage());
    assertEquals(VaultException.Kind.INVALID, e.kind());
  }

  private void withOneCredential() {
    try (Vault v = Vault.create(dir, PASS, KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, "ghp_token-123"), true);
    }
  }

  private void assertCorrupted(String detail) {
    VaultException e = assertThrows(VaultException.class, () -> Vault.open(dir, PASS));
    assertEquals("vault file is corrupted: " + detail, e.getMessage());
    assertEquals(VaultException.Kind.CORRUPTED, e.kind());
  }

  static byte[] withChecksum(byte[] data) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(data, 0, data.length - 32);
      System.arraycopy(md.digest(), 0, data, data.length - 32, 32);
      return data;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
