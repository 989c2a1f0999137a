package io.onceport.workflow.auth;

import java.util.Objects;

/**
 * The ladder's answer. {@code rule} names the rung that matched (vault_locked,
 * credential_unresolvable, target_unresolvable, approve_each_use, session_authorization, allowed).
 *
 * @param timeoutMillis for {@link Kind#APPROVAL_REQUIRED} and
 *     {@link Kind#SESSION_AUTHORIZATION_REQUIRED}: how long to wait before rejecting
 */
public record AuthorizationDecision(Kind kind, String rule, String reason, String by, long timeoutMillis) {
  public enum Kind {
    ALLOW,
    REJECT,
    APPROVAL_REQUIRED,
    SESSION_AUTHORIZATION_REQUIRED
  }

  public AuthorizationDecision {
    Objects.requireNonNull(kind, "kind == null");
    Objects.requireNonNull(rule, "rule == null");
    reason = reason == null ? "" : reason;
    by = by == null ? "policy" : by;
  }

  public static AuthorizationDecision allow(String rule, String by) {
    return new AuthorizationDecision(Kind.ALLOW, rule, "", by, 0);
  }

  public static AuthorizationDecision reject(String rule, String reason) {
    return new AuthorizationDecision(Kind.REJECT, rule, reason, "policy", 0);
  }
}
