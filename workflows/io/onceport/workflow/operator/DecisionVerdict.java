package io.onceport.workflow.operator;

/**
 * The outcome of verifying a {@link SignedDecision} against a {@link DecisionBinding} and the
 * registered operator keys.
 *
 * @param valid true only when the signature is good for a registered operator's key and the
 *     statement is bound to the binding's subject, fingerprint, kind and an allowed decision, and
 *     is within its validity period
 * @param operator the operator name exactly as registered (valid verdicts), or the name the
 *     statement claimed (refusals; may be null)
 * @param decision the statement's decision, e.g. {@code approve}
 * @param reason the statement's reason text
 * @param nonce the statement's nonce: a workflow applies a statement at most once
 * @param refusal why the decision was refused, in one sentence (null when valid)
 */
public record DecisionVerdict(boolean valid, String operator, String decision, String reason, String nonce, String refusal) {
  public static DecisionVerdict refused(String operator, String refusal) {
    return new DecisionVerdict(false, operator, null, null, null, refusal);
  }

  public static DecisionVerdict accepted(String operator, String decision, String reason, String nonce) {
    return new DecisionVerdict(true, operator, decision, reason == null ? "" : reason, nonce, null);
  }
}
