package io.onceport.activity.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.KdfParameters;
import io.onceport.activity.vault.PassphraseSource;
import io.onceport.activity.vault.Vault;
import io.onceport.activity.vault.VaultLock;
import io.onceport.activity.vault.VaultService;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationDecision.Kind;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.temporal.activity.ActivityOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthorizationActivitiesImplTest {
  static final String PASS = "ladder passphrase";
  static final Duration TIMEOUT = Duration.ofMinutes(15);

  @TempDir Path dir;
  VaultService vault;
  final SessionAuthority operatorSessions = (session, actor) -> Set.of("s-ok").contains(session);

  @BeforeEach
  void createVault() {
    try (Vault v = Vault.create(dir, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(new Credential("gh", Credential.Type.BEARER, null, null, "ghp_secret"), false);
      v.put(new Credential("prod-ssh", Credential.Type.SSH_KEY, null, null, "KEY"), true);
    }
    vault = VaultService.open(dir, PassphraseSource.fromEnvironment(Map.of(PassphraseSource.ENV, PASS)));
  }

  static AuthorizationRequest request(String credential, String session) {
    return new AuthorizationRequest("act_01", "hmac-sha256:ab", "deploy", "alice", session, credential, "https://api.example/x");
  }

  AuthorizationActivitiesImpl ladder(SessionAuthority sessions) {
    return new AuthorizationActivitiesImpl(vault, sessions, TIMEOUT);
  }

  @Test
  void rung1ALockedVaultRejectsACallThatNeedsACredential() {
    VaultLock.lock(dir, "cli:op", Instant.parse("2026-11-30T06:00:00Z"));
    AuthorizationDecision d = ladder(SessionAuthority.auto()).decide(request("prod-ssh", "s-ok"));
    assertEquals(
        new AuthorizationDecision(
            Kind.REJECT, "vault_locked", "vault is locked (locked at 2026-11-30T06:00:00Z by cli:op)", "policy", 0),
        d);
  }

  @Test
  void rung1NoVaultConfiguredOrInitializedRejectsACallThatNeedsACredential() throws IOException {
    AuthorizationDecision none = new AuthorizationActivitiesImpl(null, SessionAuthority.auto(), TIMEOUT).decide(request("gh", "s"));
    assertEquals(
        AuthorizationDecision.reject("vault_locked", "credential 'gh' is referenced but no vault is configured"), none);

    Path empty = Files.createDirectories(dir.resolve("empty"));
    VaultService uninitialized = new VaultService(empty, PassphraseSource.fromEnvironment(Map.of(PassphraseSource.ENV, PASS)));
    AuthorizationDecision d = new AuthorizationActivitiesImpl(uninitialized, SessionAuthority.auto(), TIMEOUT).decide(request("gh", "s"));
    assertEquals(
        AuthorizationDecision.reject(
            "vault_locked", "vault is not initialized: no " + Vault.file(empty) + " (run `onceport vault init`)"),
        d);
  }

  @Test
  void aLockedVaultDoesNotBlockACallWithoutACredential() {
    VaultLock.lock(dir, "cli:op", Instant.now());
    assertEquals(AuthorizationDecision.allow("allowed", "policy"), ladder(SessionAuthority.auto()).decide(request(null, "s")));
    assertEquals(AuthorizationDecision.allow("allowed", "policy"), ladder(SessionAuthority.auto()).decide(request(" ", "s")));
  }

  @Test
  void rung2AnUnknownCredentialIsRejected() {
    assertEquals(
        AuthorizationDecision.reject("credential_unresolvable", "credential 'nope' is not in the vault"),
        ladder(SessionAuthority.auto()).decide(request("nope", "s-ok")));
  }

  @Test
  void rung2ATargetRefusedByTheTargetPolicyIsRejected() {
    TargetPolicy onlyExample =
        (tool, target) -> target.startsWith("https://api.example/") ? Optional.empty() : Optional.of("target " + target + " is not allowed for " + tool);
    AuthorizationActivitiesImpl ladder = new AuthorizationActivitiesImpl(vault, SessionAuthority.auto(), TIMEOUT, onlyExample);
    AuthorizationRequest elsewhere =
        new AuthorizationRequest("act_01", "hmac-sha256:ab", "deploy", "alice", "s", "gh", "https://evil.example/");
    assertEquals(
        AuthorizationDecision.reject("target_unresolvable", "target https://evil.example/ is not allowed for deploy"),
        ladder.decide(elsewhere));
    assertEquals(AuthorizationDecision.allow("allowed", "policy"), ladder.decide(request("gh", "s")));
  }

  @Test
  void rung3AnApproveEachUseCredentialRequiresApprovalWithTheConfiguredTimeout() {
    assertEquals(
        new AuthorizationDecision(
            Kind.APPROVAL_REQUIRED,
            "approve_each_use",
            "credential 'prod-ssh' requires an operator's approval for each use",
            "policy",
            TIMEOUT.toMillis()),
        ladder(operatorSessions).decide(request("prod-ssh", "s-new")));
  }

  @Test
  void rung4AnUnauthorizedSessionRequiresSessionAuthorization() {
    assertEquals(
        new AuthorizationDecision(
            Kind.SESSION_AUTHORIZATION_REQUIRED,
            "session_authorization",
            "agent session 's-new' of alice is not yet authorized by an operator",
            "policy",
            TIMEOUT.toMillis()),
        ladder(operatorSessions).decide(request("gh", "s-new")));
  }

  @Test
  void rung5AnAuthorizedSessionWithAPlainCredentialIsAllowed() {
    assertEquals(AuthorizationDecision.allow("allowed", "policy"), ladder(operatorSessions).decide(request("gh", "s-ok")));
    assertEquals(AuthorizationDecision.allow("allowed", "policy"), ladder(SessionAuthority.auto()).decide(request("gh", "any")));
  }

  @Test
  void recheckRejectsAWaitingExecutionOnceTheVaultIsLockedOrTheCredentialRemoved() {
    AuthorizationActivitiesImpl ladder = ladder(operatorSessions);
    AuthorizationRequest waiting = request("prod-ssh", "s-ok");
    assertEquals(Kind.APPROVAL_REQUIRED, ladder.decide(waiting).kind());
    assertEquals(AuthorizationDecision.allow("allowed", "policy"), ladder.recheck(waiting));

    VaultLock.lock(dir, "cli:op", Instant.parse("2026-11-30T06:00:00Z"));
    assertEquals(
        AuthorizationDecision.reject("vault_locked", "vault is locked (locked at 2026-11-30T06:00:00Z by cli:op)"),
        ladder.recheck(waiting));

    VaultLock.unlock(dir);
    try (Vault v = Vault.open(dir, PASS.toCharArray())) {
      v.remove("prod-ssh");
    }
    assertEquals(
        AuthorizationDecision.reject("credential_unresolvable", "credential 'prod-ssh' is not in the vault"),
        ladder.recheck(waiting));
  }

  @Test
  void recheckLeavesTheApprovalAndSessionRungsToTheWaitingExecution() {
    assertEquals(Kind.ALLOW, ladder(operatorSessions).recheck(request("prod-ssh", "s-new")).kind());
  }

  @Test
  void theLadderRunsAsARegisteredTemporalActivity() {
    TestActivityEnvironment env = TestActivityEnvironment.newInstance();
    try {
      env.registerActivitiesImplementations(ladder(operatorSessions));
      AuthorizationActivities stub =
          env.newActivityStub(
              AuthorizationActivities.class,
              ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());
      assertEquals(Kind.APPROVAL_REQUIRED, stub.decide(request("prod-ssh", "s-ok")).kind());
      assertEquals(AuthorizationDecision.allow("allowed", "policy"), stub.decide(request("gh", "s-ok")));
      assertEquals(
          AuthorizationDecision.reject("credential_unresolvable", "credential 'x' is not in the vault"),
          stub.recheck(request("x", "s-ok")));
    } finally {
      env.close();
    }
  }

  @Test
  void aZeroApprovalTimeoutIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new AuthorizationActivitiesImpl(vault, SessionAuthority.auto(), Duration.ZERO));
    assertEquals("Invalid approval timeout: PT0S", e.getMessage());
  }
}
