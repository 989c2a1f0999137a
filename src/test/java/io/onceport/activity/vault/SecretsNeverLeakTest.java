package io.onceport.activity.vault;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthority;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every message, stack trace and toString the vault can produce, searched for secrets. */
class SecretsNeverLeakTest {
  static final String SECRET = "S3CRET-token-value-7f3a";
  static final String USER = "alice-basic-user";
  static final String PASS = "P4SSPHRASE-never-shown";

  @TempDir Path dir;
  final List<String> texts = new ArrayList<>();

  void capture(Throwable t) {
    texts.add(String.valueOf(t.getMessage()));
    texts.add(t.toString());
    StringWriter trace = new StringWriter();
    t.printStackTrace(new PrintWriter(trace));
    texts.add(trace.toString());
  }

  void expectFailure(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      capture(e);
      return;
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void noMessageStackTraceOrToStringContainsASecretOrThePassphrase() throws IOException {
    Path passFile = dir.resolve("pass");
    Files.writeString(passFile, PASS);
    Credential bearer = new Credential("gh", Credential.Type.BEARER, null, null, SECRET);
    Credential basic = new Credential("jira", Credential.Type.BASIC, null, USER, SECRET);
    try (Vault v = Vault.create(dir, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(bearer, false);
      v.put(basic, true);
      texts.add(v.toString());
      texts.add(v.entries().toString());
      texts.add(v.credential("gh").orElseThrow().toString());
      texts.add(v.credential("jira").orElseThrow().toString());
      expectFailure(() -> v.put(new Credential("bad name", Credential.Type.BEARER, null, null, SECRET), false));
      expectFailure(() -> v.put(new Credential("x", Credential.Type.BEARER, "H", null, SECRET), false));
      v.renamer((a, b) -> {
        throw new IOException("disk gone");
      });
      expectFailure(() -> v.put(bearer, false));
    }
    VaultService service = VaultService.open(dir, PassphraseSource.fromFile(passFile));
    texts.add(service.toString());
    texts.add(PassphraseSource.fromFile(passFile).toString());
    texts.add(service.resolve("gh").toString());
    expectFailure(() -> service.resolve("unknown"));
    expectFailure(() -> Vault.open(dir, "wrong".toCharArray()));

    AuthorizationActivitiesImpl ladder = new AuthorizationActivitiesImpl(service, SessionAuthority.auto(), Duration.ofMinutes(1));
    for (String ref : new String[] {"gh", "jira", "unknown"}) {
      texts.add(ladder.decide(new AuthorizationRequest("act_1", "fp", "t", "a", "s", ref, "x")).toString());
    }

    VaultLock.lock(dir, "test", Instant.now());
    texts.add(service.status().toString());
    expectFailure(() -> service.resolve("gh"));
    texts.add(ladder.decide(new AuthorizationRequest("act_1", "fp", "t", "a", "s", "gh", "x")).toString());
    VaultLock.unlock(dir);

    byte[] data = Files.readAllBytes(Vault.file(dir));
    data[40] ^= 1;
    Files.write(Vault.file(dir), data);
    expectFailure(() -> Vault.open(dir, PASS.toCharArray()));
    expectFailure(() -> service.resolve("gh"));

    ApplicationFailure f;
    try {
      service.resolve("gh");
      throw new AssertionError("expected a failure");
    } catch (ApplicationFailure e) {
      f = e;
    }
    texts.add(f.getOriginalMessage());

    assertTrue(texts.size() > 20, "the search covered the failure paths");
    for (String text : texts) {
      assertFalse(text.contains(SECRET), "secret in: " + text);
      assertFalse(text.contains(USER), "basic username in: " + text);
      assertFalse(text.contains(PASS), "passphrase in: " + text);
    }
  }

  @Test
  void theDataDirectoryHoldsNoSecretInClearAfterWritesAndACrash() throws IOException {
    try (Vault v = Vault.create(dir, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, SECRET), false);
      v.renamer((a, b) -> {
        throw new IOException("crash");
      });
      try {
        v.put(new Credential("jira", Credential.Type.BASIC, null, USER, SECRET), true);
      } catch (VaultException expected) {
        // the temp file stays behind; it is sealed too
      }
    }
    VaultLock.lock(dir, "test", Instant.now());
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        String raw = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
        assertFalse(raw.contains(SECRET), "secret in " + p);
        assertFalse(raw.contains(USER), "username in " + p);
        assertFalse(raw.contains(PASS), "passphrase in " + p);
      }
    }
  }
}
