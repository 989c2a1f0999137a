package io.onceport.workflow.operator;

import java.util.List;
import java.util.Objects;

/**
 * What a decision must be bound to for a workflow to act on it: the subject it names, the
 * fingerprint of the execution (null for sessions), the actor a session belongs to (null for
 * executions, whose fingerprint already names theirs), the decisions that apply in the workflow's
 * current state, and the workflow's time (a statement issued after it, or expired before it, is
 * refused).
 *
 * @param kind {@code approval} (approve/deny an execution awaiting approval), {@code resolution}
 *     (resolve a needs_review execution), {@code session} (authorize/deny an agent session) or
 *     {@code verification} (the effect of an execution kept until verified is there, or absent)
 * @param allowedDecisions e.g. {@code [approve, deny]}, {@code [completed, failed, redispatch]},
 *     {@code [authorize, deny]}
 * @param actor for a {@code session} decision, the actor the session belongs to: a statement
 *     naming another actor is refused (issue 25: one actor must never ride on another's
 *     authorization); required for sessions, null otherwise
 */
public record DecisionBinding(
    String kind, String subject, String fingerprint, List<String> allowedDecisions, long nowMillis, String actor) {
  public static final String APPROVAL = "approval";
  public static final String RESOLUTION = "resolution";
  public static final String SESSION = "session";
  /** An operator's verdict on the effect of an execution kept {@code until_verified}. */
  public static final String VERIFICATION = "verification";

  public static final String APPROVE = "approve";
  public static final String DENY = "deny";
  public static final String COMPLETED = "completed";
  public static final String FAILED = "failed";
  public static final String REDISPATCH = "redispatch";
  public static final String AUTHORIZE = "authorize";
  public static final String VERIFIED = "verified";
  public static final String NOT_APPLIED = "not_applied";

  /** The decisions each kind can carry, in the words a statement uses. */
  public static List<String> decisionsOf(String kind) {
    return switch (kind) {
      case APPROVAL -> List.of(APPROVE, DENY);
      case RESOLUTION -> List.of(COMPLETED, FAILED, REDISPATCH);
      case SESSION -> List.of(AUTHORIZE, DENY);
      case VERIFICATION -> List.of(VERIFIED, NOT_APPLIED);
      default -> throw new IllegalArgumentException("Invalid decision kind: " + kind
          + " (expected approval, resolution, session or verification)");
    };
  }

  public DecisionBinding {
    Objects.requireNonNull(kind, "kind == null");
    Objects.requireNonNull(subject, "subject == null");
    allowedDecisions = List.copyOf(Objects.requireNonNull(allowedDecisions, "allowedDecisions == null"));
    if (SESSION.equals(kind) && actor == null) {
      throw new IllegalArgumentException("a session binding needs the session's actor");
    }
  }

  /** A binding for an execution's decision (approval, resolution): no actor, the fingerprint names it. */
  public DecisionBinding(String kind, String subject, String fingerprint, List<String> allowedDecisions, long nowMillis) {
    this(kind, subject, fingerprint, allowedDecisions, nowMillis, null);
  }

  /** A binding for a decision on {@code actor}'s session {@code sessionId}. */
  public static DecisionBinding session(String sessionId, String actor, List<String> allowedDecisions, long nowMillis) {
    return new DecisionBinding(SESSION, sessionId, null, allowedDecisions, nowMillis, Objects.requireNonNull(actor, "actor == null"));
  }
}
