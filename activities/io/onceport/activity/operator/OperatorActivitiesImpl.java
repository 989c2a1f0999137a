package io.onceport.activity.operator;

import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.operator.OperatorActivities;
import io.onceport.workflow.operator.SignedDecision;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Verifies an operator's signed statement against the keys registered in the worker's data
 * directory ({@link OperatorRegistry}) and the binding the workflow asks for. In order:
 *
 * <ol>
 *   <li>the statement is a well-formed, canonical version-1 statement ({@link DecisionStatement#parse});
 *   <li>its operator is registered and {@code key_id} is that operator's current key (a rotated or
 *       removed key is refused by name);
 *   <li>the Ed25519 signature over the statement verifies with that key;
 *   <li>kind, subject, actor (sessions), fingerprint (executions) and decision match the binding;
 *   <li>the workflow's time lies in {@code [issued_at - }{@value #SKEW_SECONDS}{@code  s, expires_at)}
 *       and the validity period is at most {@link #MAX_VALIDITY}.
 * </ol>
 *
 * Never throws for a bad statement: a refusal is a verdict with one sentence saying why, which the
 * workflow records and journals. The check uses the workflow's time from the binding, not this
 * process's clock, so it means the same on every worker; run as a local activity, the verdict is
 * recorded in history and replays unchanged.
 */
public final class OperatorActivitiesImpl implements OperatorActivities {
  /** The longest validity a statement may claim: a decision is for now, not a standing grant. */
  public static final Duration MAX_VALIDITY = Duration.ofHours(24);
  /** How far an operator's clock may run ahead of the workflow's. */
  public static final long SKEW_SECONDS = 120;

  private final OperatorRegistry registry;

  public OperatorActivitiesImpl(OperatorRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry == null");
  }

  @Override
  public DecisionVerdict verify(SignedDecision decision, DecisionBinding binding) {
    if (decision == null) {
      return DecisionVerdict.refused(null, "unsigned: no signed statement was presented");
    }
    DecisionStatement s;
    try {
      s = DecisionStatement.parse(decision.statement());
    } catch (IllegalArgumentException e) {
      return DecisionVerdict.refused(null, e.getMessage());
    }
    String claimed = s.operator();
    Optional<OperatorRegistry.Operator> registered;
    try {
      registered = registry.find(claimed);
    } catch (UncheckedIOException e) {
      // Fail closed, and say so: the verdict is recorded, a retry would not read a different file.
      return DecisionVerdict.refused(claimed, "the operator registry cannot be read: " + e.getMessage());
    }
    if (registered.isEmpty()) {
      return DecisionVerdict.refused(claimed, "operator " + claimed + " is not registered"
          + registry.removal(claimed).map(r -> " (removed at " + r.at() + ")").orElse(""));
    }
    OperatorRegistry.Operator operator = registered.get();
    if (!operator.keyId().equals(s.keyId())) {
      return DecisionVerdict.refused(claimed, registry.retired(claimed, s.keyId())
          .map(r -> "signed with key " + s.keyId() + " of " + claimed + ", which was " + r.why() + " at " + r.at())
          .orElse("signed with key " + s.keyId() + ", which is not " + claimed + "'s registered key " + operator.keyId()));
    }
    if (!OperatorKey.verify(operator.publicKey(), decision.statement(), decision.signature())) {
      return DecisionVerdict.refused(claimed, "the signature does not verify with " + claimed + "'s key " + operator.keyId());
    }
    String mismatch = mismatch(s, binding);
    if (mismatch != null) {
      return DecisionVerdict.refused(claimed, mismatch);
    }
    return DecisionVerdict.accepted(operator.name(), s.decision(), s.reason(), s.nonce());
  }

  /**
   * Why a genuine statement does not decide this question (another kind, subject, fingerprint or
   * decision; a validity too long; issued in the future or expired by workflow time), or null.
   */
  private static String mismatch(DecisionStatement s, DecisionBinding binding) {
    if (!s.kind().equals(binding.kind())) {
      return "the statement is a " + s.kind() + " decision, not a " + binding.kind() + " decision";
    }
    if (!s.subject().equals(binding.subject())) {
      return "the statement is bound to " + s.subject() + ", not " + binding.subject();
    }
    if (binding.actor() != null && !binding.actor().equals(s.actor())) {
      return s.actor() == null
          ? "the statement names no actor, and a decision on a session must name the session's actor " + binding.actor()
              + " (sign it again with this version of onceport)"
          : "the statement is for actor " + s.actor() + ", not " + binding.actor() + ": a decision on one actor's session"
              + " never applies to another's";
    }
    if (binding.fingerprint() != null && !binding.fingerprint().equals(s.fingerprint())) {
      return "the statement is bound to fingerprint " + s.fingerprint()
          + ", not this execution's " + binding.fingerprint();
    }
    if (!binding.allowedDecisions().contains(s.decision())) {
      return "the statement decides " + s.decision() + ", which does not apply here (expected "
          + String.join(" or ", binding.allowedDecisions()) + ")";
    }
    Instant now = Instant.ofEpochMilli(binding.nowMillis());
    if (Duration.between(s.issuedAt(), s.expiresAt()).compareTo(MAX_VALIDITY) > 0) {
      return "the statement claims a validity of " + Duration.between(s.issuedAt(), s.expiresAt())
          + ", longer than the maximum " + MAX_VALIDITY;
    }
    if (now.isBefore(s.issuedAt().minusSeconds(SKEW_SECONDS))) {
      return "the statement was issued at " + s.issuedAt() + ", after the workflow's time " + now;
    }
    if (!now.isBefore(s.expiresAt())) {
      return "the statement expired at " + s.expiresAt() + " (workflow time " + now + ")";
    }
    return null;
  }
}
