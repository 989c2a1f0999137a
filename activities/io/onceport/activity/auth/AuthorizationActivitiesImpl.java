package io.onceport.activity.auth;

import io.onceport.activity.vault.VaultException;
import io.temporal.activity.Activity;
import io.onceport.activity.vault.VaultService;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationRequest;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The authorization ladder, first match wins:
 *
 * <ol>
 *   <li>a credential is referenced and the vault is locked, missing, not configured or unusable
 *       → REJECT {@code vault_locked}
 *   <li>the credential is not in the vault → REJECT {@code credential_unresolvable}; the target is
 *       refused by the {@link TargetPolicy} → REJECT {@code target_unresolvable}
 *   <li>the credential is flagged approve-each-use → APPROVAL_REQUIRED {@code approve_each_use}
 *   <li>the agent session was denied by an operator → REJECT {@code session_denied} (by that
 *       operator); not yet authorized → SESSION_AUTHORIZATION_REQUIRED
 *       {@code session_authorization}; the waiting execution is registered with the
 *       {@link SessionAuthority} so the operator's decision reaches it
 *   <li>otherwise ALLOW {@code allowed}
 * </ol>
 *
 * Deciding reads only the vault's metadata and the session state; it never dispatches, so a retry
 * of this activity is harmless. It never throws for a vault problem: that is a rejection.
 * {@link #recheck} re-runs rungs 1–2 for an execution that is waiting (for an approval or a session
 * authorization): REJECT if the vault was locked or the credential removed meanwhile, otherwise
 * ALLOW {@code allowed}, which means only "nothing blocks it any more than before" — the waiting
 * execution keeps waiting for its operator.
 */
public final class AuthorizationActivitiesImpl implements AuthorizationActivities {
  private final VaultService vault;
  private final SessionAuthority sessions;
  private final java.util.function.Function<String, SessionAuthority> byPolicy;
  private final Duration approvalTimeout;
  private final TargetPolicy targets;

  /**
   * @param vault the vault, or null when none is configured (then any credential reference is
   *     rejected with {@code vault_locked})
   * @param approvalTimeout how long an approve-each-use or session authorization waits before it
   *     is rejected
   */
  public AuthorizationActivitiesImpl(VaultService vault, SessionAuthority sessions, Duration approvalTimeout) {
    this(vault, sessions, approvalTimeout, TargetPolicy.allowAll());
  }

  public AuthorizationActivitiesImpl(
      VaultService vault, SessionAuthority sessions, Duration approvalTimeout, TargetPolicy targets) {
    this(vault, sessions, approvalTimeout, targets, policy -> sessions);
  }

  /**
   * @param byPolicy the authority for a request that names its front end's session policy
   *     ({@code operator} or {@code auto}); requests without one use {@code sessions}
   */
  public AuthorizationActivitiesImpl(VaultService vault, SessionAuthority sessions, Duration approvalTimeout,
      TargetPolicy targets, java.util.function.Function<String, SessionAuthority> byPolicy) {
    this.byPolicy = Objects.requireNonNull(byPolicy, "byPolicy == null");
    this.vault = vault;
    this.sessions = Objects.requireNonNull(sessions, "sessions == null");
    this.approvalTimeout = Objects.requireNonNull(approvalTimeout, "approvalTimeout == null");
    this.targets = Objects.requireNonNull(targets, "targets == null");
    if (approvalTimeout.isNegative() || approvalTimeout.isZero()) {
      throw new IllegalArgumentException("Invalid approval timeout: " + approvalTimeout);
    }
  }

  @Override
  public AuthorizationDecision decide(AuthorizationRequest request) {
    Gate gate = gate(request);
    if (gate.rejection != null) {
      return gate.rejection;
    }
    if (gate.approveEachUse) {
      return new AuthorizationDecision(
          AuthorizationDecision.Kind.APPROVAL_REQUIRED,
          "approve_each_use",
          "credential '" + request.credentialRef() + "' requires an operator's approval for each use",
          "policy",
          approvalTimeout.toMillis());
    }
    SessionAuthority sessions = request.sessionPolicy() == null ? this.sessions : byPolicy.apply(request.sessionPolicy());
    if (!sessions.isAuthorized(request.sessionId(), request.actor())) {
      Optional<SessionAuthority.Denial> denied = sessions.denial(request.sessionId(), request.actor());
      if (denied.isPresent()) {
        return new AuthorizationDecision(AuthorizationDecision.Kind.REJECT, "session_denied", denied.get().reason(), denied.get().by(), 0);
      }
      String waiting = callingWorkflowId();
      if (waiting != null) {
        sessions.awaitAuthorization(request.sessionId(), request.actor(), waiting);
      }
      return new AuthorizationDecision(
          AuthorizationDecision.Kind.SESSION_AUTHORIZATION_REQUIRED,
          "session_authorization",
          "agent session '" + request.sessionId() + "' of " + request.actor() + " is not yet authorized by an operator",
          "policy",
          approvalTimeout.toMillis());
    }
    return AuthorizationDecision.allow("allowed", "policy");
  }

  @Override
  public AuthorizationDecision recheck(AuthorizationRequest request) {
    Gate gate = gate(request);
    return gate.rejection != null ? gate.rejection : AuthorizationDecision.allow("allowed", "policy");
  }

  /** The execution asking, when called as an activity; null in a plain unit test. */
  private static String callingWorkflowId() {
    try {
      return Activity.getExecutionContext().getInfo().getWorkflowId();
    } catch (IllegalStateException e) {
      return null;
    }
  }

  private record Gate(AuthorizationDecision rejection, boolean approveEachUse) {}

  /** Rungs 1 and 2. */
  private Gate gate(AuthorizationRequest request) {
    String ref = request.credentialRef();
    boolean approveEachUse = false;
    if (ref != null && !ref.isBlank()) {
      if (vault == null) {
        return rejected("vault_locked", "credential '" + ref + "' is referenced but no vault is configured");
      }
      VaultService.Status status = vault.status();
      if (status.state() != VaultService.State.UNLOCKED) {
        return rejected("vault_locked", status.reason());
      }
      try {
        approveEachUse = vault.requiresApproval(ref);
      } catch (VaultException e) {
        if (e.kind() == VaultException.Kind.UNKNOWN_CREDENTIAL) {
          return rejected("credential_unresolvable", "credential '" + ref + "' is not in the vault");
        }
        return rejected("vault_locked", e.getMessage()); // locked or damaged between the two reads
      }
    }
    Optional<String> refusal = targets.refusal(request.tool(), request.target());
    if (refusal.isPresent()) {
      return rejected("target_unresolvable", refusal.get());
    }
    return new Gate(null, approveEachUse);
  }

  private static Gate rejected(String rule, String reason) {
    return new Gate(AuthorizationDecision.reject(rule, reason), false);
  }
}
