package io.onceport.workflow.auth;

import java.util.Objects;

/**
 * What the authorization ladder decides on. It sees who acts, with which credential, against which
 * target — never whether an earlier attempt exists (that is the execution record's job).
 */
public record AuthorizationRequest(
    String executionId,
    String fingerprint,
    String tool,
    String actor,
    String sessionId,
    String credentialRef,
    String target) {
  public AuthorizationRequest {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(tool, "tool == null");
    Objects.requireNonNull(actor, "actor == null");
  }
}
