package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.Vault;
import io.onceport.activity.vault.VaultLock;
import io.onceport.app.Main;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VaultCommandTest {
  static final String PASS = "cli passphrase";
  static final String SECRET = "ghp_CLI_SECRET_9000";

  @TempDir Path dir;
  Path data;
  Path passFile;
  final InputStream stdin = System.in;
  final PrintStream stdout = System.out;
  final PrintStream stderr = System.err;
  final List<String> everythingPrinted = new ArrayList<>();

  record Run(int exit, String out, String err) {}

  @BeforeEach
  void setUp() throws IOException {
    data = dir.resolve("data");
    passFile = dir.resolve("pass");
    Files.writeString(passFile, PASS + "\n");
  }

  @AfterEach
  void restoreStreamsAndCheckNoSecretWasPrinted() {
    System.setIn(stdin);
    System.setOut(stdout);
    System.setErr(stderr);
    for (String printed : everythingPrinted) {
      assertFalse(printed.contains(SECRET), "a command printed the secret: " + printed);
      assertFalse(printed.contains(PASS), "a command printed the passphrase: " + printed);
    }
  }

  Run run(String input, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setIn(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = Main.run(args);
    } finally {
      System.setIn(stdin);
      System.setOut(stdout);
      System.setErr(stderr);
    }
    Run r = new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    everythingPrinted.add(r.out());
    everythingPrinted.add(r.err());
    return r;
  }

  Run vault(String input, String... args) {
    List<String> all = new ArrayList<>(List.of("vault"));
    all.addAll(List.of(args));
    all.addAll(List.of("--data", data.toString(), "--passphrase-file", passFile.toString()));
    return run(input, all.toArray(String[]::new));
  }

  void init() {
    Run r = vault("", "init", "--argon2-memory", "256", "--argon2-iterations", "1");
    assertEquals(new Run(0, "vault initialized at " + Vault.file(data) + " (argon2id m=256KiB t=1 p=1)\n", ""), r);
  }

  @Test
  void putReadsTheSecretFromStdinAndListNeverShowsIt() {
    init();
    assertEquals(new Run(0, "stored credential gh (bearer)\n", ""), vault(SECRET + "\n", "put", "gh", "--type", "bearer"));
    assertEquals(
        new Run(0, "stored credential jira (basic, approve-each-use)\n", ""),
        vault("pw\n", "put", "jira", "--type", "basic", "--username", "alice", "--approve-each-use"));
    assertEquals(
        new Run(0, "stored credential api (header)\n", ""),
        vault("k\n", "put", "api", "--type", "header", "--header-name", "X-Api-Key"));

    Run list = vault("", "list");
    assertEquals(
        new Run(
            0,
            "NAME  TYPE      FLAGS\n"
                + "api   header    -\n"
                + "gh    bearer    -\n"
                + "jira  basic     approve-each-use\n",
            ""),
        list);

    try (Vault v = Vault.open(data, PASS.toCharArray())) {
      assertEquals(SECRET, v.credential("gh").orElseThrow().secret(), "the trailing newline from echo is stripped");
      assertEquals("alice", v.credential("jira").orElseThrow().username());
      assertEquals("X-Api-Key", v.credential("api").orElseThrow().headerName());
    }
  }

  @Test
  void putReadsAnSshKeyFromAFileAndKeepsItExactly() throws IOException {
    init();
    String key = "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n";
    Path keyFile = dir.resolve("id_ed25519");
    Files.writeString(keyFile, key);
    assertEquals(
        new Run(0, "stored credential deploy (ssh-key)\n", ""),
        vault("", "put", "deploy", "--type", "ssh-key", "--from-file", keyFile.toString()));
    try (Vault v = Vault.open(data, PASS.toCharArray())) {
      assertEquals(new Credential("deploy", Credential.Type.SSH_KEY, null, null, key).secret(), v.credential("deploy").orElseThrow().secret());
    }
  }

  @Test
  void putRefusesMissingSecretsAndMismatchedOptions() {
    init();
    assertEquals(
        new Run(1, "", "onceport: empty secret: pipe it on stdin or use --from-file FILE\n"),
        vault("", "put", "gh", "--type", "bearer"));
    assertEquals(
        new Run(1, "", "onceport: --type header needs --header-name\n"), vault("x", "put", "h", "--type", "header"));
    assertEquals(
        new Run(1, "", "onceport: --username applies only to --type basic\n"),
        vault("x", "put", "h", "--type", "bearer", "--username", "u"));
    Run badType = vault("x", "put", "h", "--type", "oauth");
    assertEquals(2, badType.exit());
    assertTrue(badType.err().contains("unknown credential type 'oauth' (bearer, basic, header, ssh-key)"), badType.err());
  }

  @Test
  void theSecretCannotBeGivenAsAnArgument() {
    init();
    Run r = vault("", "put", "gh", "--type", "bearer", "ghp_on_argv");
    assertEquals(2, r.exit());
    assertTrue(r.err().startsWith("Unmatched argument at index"), r.err());
  }

  @Test
  void aWrongPassphraseIsRefusedWithOneLine() throws IOException {
    init();
    Files.writeString(passFile, "not it");
    assertEquals(new Run(1, "", "onceport: wrong vault passphrase\n"), vault("", "list"));
  }

  @Test
  void aCorruptedVaultIsRefusedWithOneLine() throws IOException {
    init();
    byte[] bytes = Files.readAllBytes(Vault.file(data));
    bytes[30] ^= 1;
    Files.write(Vault.file(data), bytes);
    assertEquals(
        new Run(1, "", "onceport: vault file is corrupted: checksum mismatch (" + Vault.file(data) + ")\n"),
        vault("", "list"));
  }

  @Test
  void withoutAPassphraseSourceTheCommandSaysWhereToPutIt() {
    assumeTrue(System.getenv("ONCEPORT_VAULT_PASSPHRASE") == null, "the environment provides a passphrase");
    assertEquals(
        new Run(1, "", "onceport: no vault passphrase: use --passphrase-file FILE or set ONCEPORT_VAULT_PASSPHRASE (never an argument)\n"),
        run("", "vault", "list", "--data", data.toString()));
  }

  @Test
  void rmRemovesAndReportsUnknownNames() {
    init();
    vault("s\n", "put", "gh", "--type", "bearer");
    assertEquals(new Run(0, "removed credential gh\n", ""), vault("", "rm", "gh"));
    assertEquals(new Run(1, "", "onceport: no credential named 'gh' in the vault\n"), vault("", "rm", "gh"));
    assertEquals(new Run(0, "no credentials\n", ""), vault("", "list"));
  }

  @Test
  void lockNeedsNoPassphraseAndUnlockChecksIt() throws IOException {
    init();
    Run lock = run("", "vault", "lock", "--data", data.toString());
    assertEquals(
        new Run(0, "vault locked: running gateways refuse credential use until `onceport vault unlock`\n", ""), lock);
    assertTrue(VaultLock.isLocked(data));
    assertEquals(new Run(0, "no credentials\n(the vault is locked for running gateways)\n", ""), vault("", "list"));

    Files.writeString(passFile, "not it");
    assertEquals(new Run(1, "", "onceport: wrong vault passphrase\n"), vault("", "unlock"));
    assertTrue(VaultLock.isLocked(data), "a wrong passphrase leaves it locked");

    Files.writeString(passFile, PASS);
    assertEquals(new Run(0, "vault unlocked\n", ""), vault("", "unlock"));
    assertFalse(VaultLock.isLocked(data));
    assertEquals(new Run(0, "vault is not locked\n", ""), vault("", "unlock"));
  }

  @Test
  void initRefusesAnExistingVaultAndLockRefusesAMissingOne() {
    assertEquals(
        new Run(1, "", "onceport: vault is not initialized: no " + Vault.file(data) + " (run `onceport vault init`)\n"),
        run("", "vault", "lock", "--data", data.toString()));
    init();
    assertEquals(new Run(1, "", "onceport: vault already exists at " + Vault.file(data) + "\n"), vault("", "init"));
  }

  @Test
  void everyVaultCommandHasHelp() {
    for (String sub : List.of("init", "put", "list", "rm", "lock", "unlock")) {
      Run r = run("", "vault", sub, "--help");
      assertEquals(0, r.exit(), sub);
      assertTrue(r.out().startsWith("Usage: onceport vault " + sub), r.out());
      assertTrue(r.out().contains("--passphrase-file=FILE"), r.out());
    }
    Run top = run("", "vault", "--help");
    assertEquals(0, top.exit());
    assertTrue(top.out().contains("put"), top.out());
    assertTrue(run("", "--help").out().contains("vault"));
  }
}
