package io.onceport.activity.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.operator.SignedDecision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Signed statements against a real registry file and real key files: what passes, and each way one is refused. */
class OperatorActivitiesImplTest {
  private static final String FP = "hmac-sha256:" + "ab".repeat(32);
  private static final Instant NOW = Instant.parse("2026-11-30T06:00:00Z");

  @TempDir Path dir;
  private OperatorRegistry registry;
  private OperatorActivitiesImpl activities;
  private OperatorKey carol;

  @BeforeEach
  void setUp() throws IOException {
    registry = new OperatorRegistry(dir.resolve("data"));
    activities = new OperatorActivitiesImpl(registry);
    carol = OperatorKey.generate("carol");
    registry.add(carol);
  }

  private static DecisionBinding approval(String subject, String fingerprint, Instant now) {
    return new DecisionBinding(DecisionBinding.APPROVAL, subject, fingerprint, List.of("approve", "deny"), now.toEpochMilli());
  }

  private static SignedDecision sign(OperatorKey key, String kind, String subject, String fingerprint, String decision, Instant issued, Duration validity) {
    return key.sign(DecisionStatement.issue(kind, subject, fingerprint, decision, "checked the ticket", key, issued, validity));
  }

  @Test
  void aStatementSignedByARegisteredOperatorAndBoundToTheExecutionIsValid() {
    SignedDecision signed = sign(carol, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10));
    DecisionVerdict v = activities.verify(signed, approval("act_1", FP, NOW.plusSeconds(30)));
    assertTrue(v.valid(), v.refusal());
    assertEquals("carol", v.operator());
    assertEquals("approve", v.decision());
    assertEquals("checked the ticket", v.reason());
    assertEquals(DecisionStatement.parse(signed.statement()).nonce(), v.nonce());
  }

  @Test
  void theStatementIsCanonicalJsonWithEveryBindingField() {
    SignedDecision signed = sign(carol, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10));
    String nonce = DecisionStatement.parse(signed.statement()).nonce();
    assertEquals("{\"decision\":\"approve\",\"expires_at\":\"2026-11-30T06:10:00Z\",\"fingerprint\":\"" + FP + "\","
        + "\"issued_at\":\"2026-11-30T06:00:00Z\",\"key_id\":\"" + carol.keyId() + "\",\"kind\":\"approval\",\"nonce\":\"" + nonce + "\","
        + "\"operator\":\"carol\",\"reason\":\"checked the ticket\",\"subject\":\"act_1\",\"v\":1}", signed.statement());
  }

  @Test
  void unsignedExpiredFutureAndWronglyBoundStatementsAreRefusedWithTheReason() {
    SignedDecision signed = sign(carol, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10));
    assertEquals("unsigned: no signed statement was presented", activities.verify(null, approval("act_1", FP, NOW)).refusal());
    assertEquals("the statement expired at 2026-11-30T06:10:00Z (workflow time 2026-11-30T06:10:00Z)",
        activities.verify(signed, approval("act_1", FP, NOW.plusSeconds(600))).refusal());
    assertEquals("the statement was issued at 2026-11-30T06:00:00Z, after the workflow's time 2026-11-30T05:57:59Z",
        activities.verify(signed, approval("act_1", FP, NOW.minusSeconds(121))).refusal());
    assertEquals("the statement is bound to act_1, not act_2", activities.verify(signed, approval("act_2", FP, NOW)).refusal());
    assertEquals("the statement is bound to fingerprint " + FP + ", not this execution's hmac-sha256:" + "cd".repeat(32),
        activities.verify(signed, approval("act_1", "hmac-sha256:" + "cd".repeat(32), NOW)).refusal());
    DecisionBinding resolution = new DecisionBinding("resolution", "act_1", FP, List.of("completed", "failed", "redispatch"), NOW.toEpochMilli());
    assertEquals("the statement is a approval decision, not a resolution decision", activities.verify(signed, resolution).refusal());
    DecisionBinding denyOnly = new DecisionBinding("approval", "act_1", FP, List.of("deny"), NOW.toEpochMilli());
    assertEquals("the statement decides approve, which does not apply here (expected deny)", activities.verify(signed, denyOnly).refusal());
    DecisionVerdict refused = activities.verify(signed, approval("act_2", FP, NOW));
    assertFalse(refused.valid());
    assertEquals("carol", refused.operator(), "a refusal names who the statement claimed to be");
  }

  @Test
  void aStatementValidForLongerThanADayIsRefused() {
    SignedDecision signed = sign(carol, "approval", "act_1", FP, "approve", NOW, Duration.ofHours(25));
    assertEquals("the statement claims a validity of PT25H, longer than the maximum PT24H",
        activities.verify(signed, approval("act_1", FP, NOW)).refusal());
  }

  @Test
  void aTamperedStatementOrSignatureDoesNotVerify() {
    SignedDecision signed = sign(carol, "approval", "act_1", FP, "deny", NOW, Duration.ofMinutes(10));
    SignedDecision flipped = new SignedDecision(signed.statement().replace("\"decision\":\"deny\"", "\"decision\":\"approve\""), signed.signature());
    assertEquals("the signature does not verify with carol's key " + carol.keyId(), activities.verify(flipped, approval("act_1", FP, NOW)).refusal());
    assertEquals("the signature does not verify with carol's key " + carol.keyId(),
        activities.verify(new SignedDecision(signed.statement(), "AAAA"), approval("act_1", FP, NOW)).refusal());
  }

  @Test
  void aStatementByAnotherKeyClaimingARegisteredNameIsRefused() {
    OperatorKey mallory = OperatorKey.generate("carol"); // same name, not the registered key
    SignedDecision forged = sign(mallory, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10));
    assertEquals("signed with key " + mallory.keyId() + ", which is not carol's registered key " + carol.keyId(),
        activities.verify(forged, approval("act_1", FP, NOW)).refusal());
    OperatorKey nobody = OperatorKey.generate("nobody");
    assertEquals("operator nobody is not registered",
        activities.verify(sign(nobody, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10)), approval("act_1", FP, NOW)).refusal());
  }

  @Test
  void afterRotationTheOldKeyIsRefusedAndTheNewOneAccepted() throws IOException {
    SignedDecision old = sign(carol, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10));
    OperatorKey next = OperatorKey.generate("carol");
    registry.rotate(next);
    DecisionVerdict v = activities.verify(old, approval("act_1", FP, NOW));
    assertTrue(v.refusal().startsWith("signed with key " + carol.keyId() + " of carol, which was rotated at "), v.refusal());
    assertTrue(activities.verify(sign(next, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10)), approval("act_1", FP, NOW)).valid());
  }

  @Test
  void afterRemovalTheOperatorsStatementsAreRefused() throws IOException {
    SignedDecision signed = sign(carol, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10));
    assertTrue(registry.remove("carol"));
    DecisionVerdict v = activities.verify(signed, approval("act_1", FP, NOW));
    assertTrue(v.refusal().startsWith("operator carol is not registered (removed at "), v.refusal());
    assertFalse(registry.remove("carol"));
  }

  @Test
  void nonCanonicalDuplicateUnknownAndMalformedStatementsAreRefusedUnread() {
    SignedDecision signed = sign(carol, "approval", "act_1", FP, "approve", NOW, Duration.ofMinutes(10));
    String spaced = signed.statement().replace(",\"kind\"", ", \"kind\"");
    assertEquals("the statement is not in canonical form (RFC 8785); it must be passed on exactly as signed",
        activities.verify(new SignedDecision(spaced, signed.signature()), approval("act_1", FP, NOW)).refusal());
    String duplicate = signed.statement().replace("{\"decision\":\"approve\",", "{\"decision\":\"approve\",\"decision\":\"deny\",");
    assertTrue(activities.verify(new SignedDecision(duplicate, signed.signature()), approval("act_1", FP, NOW)).refusal()
        .startsWith("the statement is not valid JSON: Duplicate field 'decision'"));
    String unknown = signed.statement().replace("\"v\":1}", "\"v\":1,\"w\":2}");
    assertEquals("the statement has an unknown field \"w\"",
        activities.verify(new SignedDecision(unknown, signed.signature()), approval("act_1", FP, NOW)).refusal());
    assertEquals("the statement is not a JSON object",
        activities.verify(new SignedDecision("[]", signed.signature()), approval("act_1", FP, NOW)).refusal());
    assertEquals("the statement is " + (DecisionStatement.MAX_LENGTH + 1) + " characters, over the limit of " + DecisionStatement.MAX_LENGTH,
        activities.verify(new SignedDecision("x".repeat(DecisionStatement.MAX_LENGTH + 1), "AAAA"), approval("act_1", FP, NOW)).refusal());
  }

  @Test
  void aSessionStatementCarriesNoFingerprintAndBindsTheSessionIdAndItsActor() {
    SignedDecision signed = carol.sign(DecisionStatement.issueSession("run:agent:ci:prod/nightly", "agent:ci:prod", "authorize",
        "checked", carol, NOW, Duration.ofMinutes(10)));
    DecisionBinding binding = DecisionBinding.session("run:agent:ci:prod/nightly", "agent:ci:prod", List.of("authorize"), NOW.toEpochMilli());
    assertTrue(activities.verify(signed, binding).valid());
    assertFalse(signed.statement().contains("fingerprint"));
    assertTrue(signed.statement().contains("\"actor\":\"agent:ci:prod\""), signed.statement());
    assertEquals("the statement is bound to run:agent:ci:prod/nightly, not run:agent:ci/prod:nightly", activities.verify(signed,
        DecisionBinding.session("run:agent:ci/prod:nightly", "agent:ci", List.of("authorize"), NOW.toEpochMilli())).refusal());
    // The same subject for another actor (a session id that once joined two actors' runs) is refused by the actor.
    assertEquals("the statement is for actor agent:ci:prod, not agent:ci: a decision on one actor's session never applies to another's",
        activities.verify(signed, DecisionBinding.session("run:agent:ci:prod/nightly", "agent:ci", List.of("authorize"),
            NOW.toEpochMilli())).refusal());
  }

  @Test
  void aSessionStatementWithoutAnActorIsRefused() {
    // As signed before statements named the actor: the canonical JSON without "actor" (refused before its signature is read).
    String statement = "{\"decision\":\"authorize\",\"expires_at\":\"" + NOW.plusSeconds(600) + "\",\"issued_at\":\"" + NOW
        + "\",\"key_id\":\"" + carol.keyId() + "\",\"kind\":\"session\",\"nonce\":\"abcdefghijklmnopqrstuv\","
        + "\"operator\":\"carol\",\"reason\":\"\",\"subject\":\"mcp:5f1c\",\"v\":1}";
    SignedDecision old = new SignedDecision(statement, "AAAA");
    assertEquals("the statement is invalid: a session statement needs the session's actor",
        activities.verify(old, DecisionBinding.session("mcp:5f1c", "alice", List.of("authorize"), NOW.toEpochMilli())).refusal());
    assertThrows(NullPointerException.class, () -> DecisionBinding.session("mcp:5f1c", null, List.of("authorize"), NOW.toEpochMilli()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new DecisionBinding("session", "mcp:5f1c", null, List.of("authorize"), NOW.toEpochMilli()));
    assertEquals("a session binding needs the session's actor", e.getMessage());
  }

  @Test
  void aKeyFileIsPrivateAndRoundTripsAndAGroupReadableOneIsRefused() throws IOException {
    Path file = dir.resolve("config/onceport/operators/carol.key");
    carol.write(file, false);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    OperatorKey loaded = OperatorKey.load(file);
    assertEquals(carol.keyId(), loaded.keyId());
    assertEquals(carol.codecToken(), loaded.codecToken());
    assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> carol.write(file, false));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    IOException e = assertThrows(IOException.class, () -> OperatorKey.load(file));
    assertEquals("operator key " + file + " is accessible by group or others (rw-r-----); run: chmod 600 " + file, e.getMessage());
  }

  @Test
  void theCodecTokenAuthenticatesItsOperatorOnlyAndChangesWithTheKey() throws IOException {
    assertEquals("carol", registry.authenticateCodecToken(carol.codecToken()).orElseThrow());
    assertTrue(registry.authenticateCodecToken("op_" + carol.codecToken().substring(4)).isEmpty(), "an agent-style token is never a codec token");
    assertTrue(registry.authenticateCodecToken("oct_guess").isEmpty());
    OperatorKey next = OperatorKey.generate("carol");
    registry.rotate(next);
    assertTrue(registry.authenticateCodecToken(carol.codecToken()).isEmpty());
    assertEquals("carol", registry.authenticateCodecToken(next.codecToken()).orElseThrow());
  }

  @Test
  void theRegistryIsPrivateAndAnotherReaderSeesChangesWithoutARestart() throws IOException {
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(registry.file())));
    OperatorRegistry reader = new OperatorRegistry(dir.resolve("data"));
    assertEquals(List.of("carol"), reader.operators().stream().map(OperatorRegistry.Operator::name).toList());
    registry.add(OperatorKey.generate("dave"));
    assertEquals(List.of("carol", "dave"), reader.operators().stream().map(OperatorRegistry.Operator::name).toList());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> registry.add(OperatorKey.generate("dave")));
    assertTrue(e.getMessage().startsWith("operator dave is already registered"), e.getMessage());
  }
}
