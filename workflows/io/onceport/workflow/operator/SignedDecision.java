package io.onceport.workflow.operator;

import java.util.Objects;

/**
 * An operator's decision as presented to a workflow: the statement exactly as it was signed and
 * the signature over it. Workflows never trust a decision's own fields; they hand the whole thing
 * to {@link OperatorActivities#verify} and act only on what the verdict says.
 *
 * <p>{@code onceport operator sign} prints one as {@code {"statement":"…","signature":"…"}}: that
 * JSON is also a valid input of every decision handler ({@code decideApproval}, {@code resolve},
 * the session's {@code authorize}/{@code deny}), whose inputs carry the same two fields.
 *
 * @param statement the signed statement, canonical JSON (RFC 8785) of its fields: {@code v},
 *     {@code kind}, {@code subject} (execution id or session id), {@code fingerprint} (for
 *     executions), {@code decision}, {@code reason}, {@code operator}, {@code key_id},
 *     {@code issued_at}, {@code expires_at}, {@code nonce}
 * @param signature base64 Ed25519 signature over the UTF-8 bytes of {@code statement}
 */
public record SignedDecision(String statement, String signature) {
  public SignedDecision {
    Objects.requireNonNull(statement, "statement == null");
    Objects.requireNonNull(signature, "signature == null");
  }

  /** The pair as a signed decision, or null when either is missing (an unsigned decision). */
  public static SignedDecision ofNullable(String statement, String signature) {
    return statement == null || signature == null || statement.isBlank() || signature.isBlank()
        ? null : new SignedDecision(statement, signature);
  }
}
