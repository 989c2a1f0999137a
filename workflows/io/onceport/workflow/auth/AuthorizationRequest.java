package io.onceport.workflow.auth;

import java.util.Objects;

/**
 * What the authorization ladder decides on. It sees who acts, with which credential, against which
 * target — never whether an earlier attempt exists (that is the execution record's job).
 *
 * <p>{@code sessionPolicy} is the front end's {@code --session-authorization} ({@code operator} or
 * {@code auto}), or null when the worker's own policy applies.
 */
public record AuthorizationRequest(
    String executionId,
    String fingerprint,
    String tool,
    String actor,
    String sessionId,
    String credentialRef,
    String target,
    String sessionPolicy) {

  /** A request without a session policy: the worker's own policy applies. */
  public AuthorizationRequest(String executionId, String fingerprint, String tool, String actor, String sessionId,
      String credentialRef, String target) {
    this(executionId, fingerprint, tool, actor, sessionId, credentialRef, target, null);
  }

  public AuthorizationRequest {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(tool, "tool == null");
    Objects.requireNonNull(actor, "actor == null");
  }
}
