package io.onceport.activity.operator;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.operator.DecisionBinding;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.erdtman.jcs.JsonCanonicalizer;

/**
 * The fields of an operator's signed statement. Its wire form is the RFC 8785 canonical JSON of
 * the fields, so the bytes signed are the bytes verified and one statement has exactly one
 * encoding: {@link #parse} refuses anything that is not already canonical, has duplicate or unknown
 * fields, or lacks one.
 *
 * <pre>{@code
 * {"decision":"approve","expires_at":"2026-11-30T06:10:00Z","fingerprint":"hmac-sha256:…",
 *  "issued_at":"2026-11-30T06:00:00Z","key_id":"ed25519:…","kind":"approval","nonce":"…",
 *  "operator":"carol","reason":"checked the ticket","subject":"act_…","v":1}
 * }</pre>
 *
 * A {@code session} statement also names the session's {@code actor}: the subject alone once
 * let one actor use another's authorization when two (actor, run) pairs joined to one session id
 * (issue 25), so the workflows compare the actor too and refuse a statement for someone else.
 *
 * @param fingerprint the execution's fingerprint; null for {@code session} statements
 * @param keyId the signing key's id ({@link OperatorKey#keyId}), so a statement signed with a
 *     rotated or removed key is refused by name
 * @param actor the actor a {@code session} statement is about (required there); null otherwise
 */
public record DecisionStatement(
    String kind, String subject, String fingerprint, String decision, String reason, String operator, String keyId,
    Instant issuedAt, Instant expiresAt, String nonce, String actor) {
  public static final int VERSION = 1;
  /** Statements longer than this are refused unread: a reason is a sentence, not a document. */
  public static final int MAX_LENGTH = 8 * 1024;

  private static final Set<String> FIELDS = Set.of(
      "v", "kind", "subject", "fingerprint", "decision", "reason", "operator", "key_id", "issued_at", "expires_at", "nonce",
      "actor");
  private static final Pattern NONCE = Pattern.compile("[A-Za-z0-9_-]{16,64}");
  private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();
  private static final ObjectMapper JSON = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  public DecisionStatement {
    Objects.requireNonNull(kind, "kind == null");
    Objects.requireNonNull(subject, "subject == null");
    Objects.requireNonNull(decision, "decision == null");
    Objects.requireNonNull(operator, "operator == null");
    Objects.requireNonNull(keyId, "keyId == null");
    Objects.requireNonNull(issuedAt, "issuedAt == null");
    Objects.requireNonNull(expiresAt, "expiresAt == null");
    Objects.requireNonNull(nonce, "nonce == null");
    reason = reason == null ? "" : reason;
    List<String> decisions = DecisionBinding.decisionsOf(kind);
    if (!decisions.contains(decision)) {
      throw new IllegalArgumentException("Invalid decision for a " + kind + " statement: " + decision + " (expected one of " + decisions + ")");
    }
    if (!DecisionBinding.SESSION.equals(kind) && (fingerprint == null || fingerprint.isBlank())) {
      throw new IllegalArgumentException("a " + kind + " statement needs the execution's fingerprint");
    }
    if (DecisionBinding.SESSION.equals(kind) && fingerprint != null) {
      throw new IllegalArgumentException("a session statement has no fingerprint");
    }
    if (DecisionBinding.SESSION.equals(kind) && (actor == null || actor.isEmpty())) {
      throw new IllegalArgumentException("a session statement needs the session's actor");
    }
    if (!DecisionBinding.SESSION.equals(kind) && actor != null) {
      throw new IllegalArgumentException("a " + kind + " statement names no actor (the fingerprint does)");
    }
    if (!expiresAt.isAfter(issuedAt)) {
      throw new IllegalArgumentException("Invalid validity: expires_at " + expiresAt + " is not after issued_at " + issuedAt);
    }
    if (!NONCE.matcher(nonce).matches()) {
      throw new IllegalArgumentException("Invalid nonce: expected 16 to 64 base64url characters");
    }
  }

  /**
   * A new statement about an execution (approval, resolution) issued now (whole seconds) and valid
   * for {@code validity}, with a fresh random nonce: what {@code onceport approve|deny|executions
   * resolve|operator sign} sign.
   */
  public static DecisionStatement issue(String kind, String subject, String fingerprint, String decision, String reason,
      OperatorKey key, Instant now, java.time.Duration validity) {
    return issue(kind, subject, fingerprint, null, decision, reason, key, now, validity);
  }

  /** As above, naming the session's {@code actor} too: what {@code onceport sessions authorize|deny} sign. */
  public static DecisionStatement issue(String kind, String subject, String fingerprint, String actor, String decision,
      String reason, OperatorKey key, Instant now, java.time.Duration validity) {
    Instant issued = now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    byte[] nonce = new byte[18];
    RANDOM.nextBytes(nonce);
    return new DecisionStatement(kind, subject, fingerprint, decision, reason, key.operator(), key.keyId(), issued,
        issued.plus(validity), java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(nonce), actor);
  }

  /** A session statement: {@code decision} on {@code actor}'s session {@code sessionId}. */
  public static DecisionStatement issueSession(String sessionId, String actor, String decision, String reason, OperatorKey key,
      Instant now, java.time.Duration validity) {
    return issue(DecisionBinding.SESSION, sessionId, null, actor, decision, reason, key, now, validity);
  }

  /** The canonical JSON (RFC 8785) that is signed. */
  public String canonicalJson() {
    ObjectNode node = JSON.createObjectNode();
    node.put("v", VERSION);
    node.put("kind", kind);
    node.put("subject", subject);
    if (fingerprint != null) {
      node.put("fingerprint", fingerprint);
    }
    node.put("decision", decision);
    node.put("reason", reason);
    node.put("operator", operator);
    node.put("key_id", keyId);
    node.put("issued_at", issuedAt.toString());
    node.put("expires_at", expiresAt.toString());
    node.put("nonce", nonce);
    if (actor != null) {
      node.put("actor", actor);
    }
    return canonicalize(node.toString());
  }

  /**
   * Parses a statement as signed.
   *
   * @throws IllegalArgumentException with a one-sentence reason when it is not a well-formed,
   *     canonical version-1 statement
   */
  public static DecisionStatement parse(String statement) {
    Objects.requireNonNull(statement, "statement == null");
    if (statement.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("the statement is " + statement.length() + " characters, over the limit of " + MAX_LENGTH);
    }
    JsonNode root;
    try (JsonParser parser = JSON.createParser(statement)) {
      root = JSON.readTree(parser);
      if (parser.nextToken() != null) {
        throw new IllegalArgumentException("the statement has content after its JSON object");
      }
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new IllegalArgumentException("the statement is not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("the statement is not valid JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("the statement is not a JSON object");
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!FIELDS.contains(name)) {
        throw new IllegalArgumentException("the statement has an unknown field \"" + name + "\"");
      }
    }
    if (!root.path("v").isInt() || root.path("v").intValue() != VERSION) {
      throw new IllegalArgumentException("the statement is not version " + VERSION + " (field \"v\")");
    }
    String canonical;
    try {
      canonical = canonicalize(statement);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the statement cannot be canonicalized: " + e.getMessage(), e);
    }
    if (!canonical.equals(statement)) {
      throw new IllegalArgumentException("the statement is not in canonical form (RFC 8785); it must be passed on exactly as signed");
    }
    try {
      return new DecisionStatement(text(root, "kind", true), text(root, "subject", true), text(root, "fingerprint", false),
          text(root, "decision", true), text(root, "reason", false), text(root, "operator", true), text(root, "key_id", true),
          instant(root, "issued_at"), instant(root, "expires_at"), text(root, "nonce", true), text(root, "actor", false));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage().startsWith("the statement") ? e.getMessage() : "the statement is invalid: " + e.getMessage(), e);
    }
  }

  private static String text(JsonNode root, String field, boolean required) {
    JsonNode n = root.get(field);
    if (n == null) {
      if (required) {
        throw new IllegalArgumentException("the statement has no \"" + field + "\"");
      }
      return null;
    }
    if (!n.isTextual()) {
      throw new IllegalArgumentException("the statement's \"" + field + "\" is not a string");
    }
    return n.textValue();
  }

  private static Instant instant(JsonNode root, String field) {
    String s = text(root, field, true);
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("the statement's \"" + field + "\" is not an ISO-8601 UTC time: " + s);
    }
  }

  private static String canonicalize(String json) {
    try {
      return new JsonCanonicalizer(json).getEncodedString();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(String.valueOf(e.getMessage()), e);
    }
  }
}
