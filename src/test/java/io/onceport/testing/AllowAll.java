package io.onceport.testing;

import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationRequest;

/** The ladder's last rung only: everything is allowed. For tests of dispatch and replay. */
public final class AllowAll implements AuthorizationActivities {
  @Override
  public AuthorizationDecision decide(AuthorizationRequest request) {
    return AuthorizationDecision.allow("allowed", "policy");
  }

  @Override
  public AuthorizationDecision recheck(AuthorizationRequest request) {
    return decide(request);
  }
}
