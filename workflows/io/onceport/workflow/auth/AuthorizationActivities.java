package io.onceport.workflow.auth;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The authorization ladder, first match wins: vault locked, credential or target unresolvable,
 * approve-each-use credential, unauthorized agent session, otherwise allowed. It answers who may
 * act; it never answers whether an action already happened.
 */
@ActivityInterface
public interface AuthorizationActivities {
  @ActivityMethod
  AuthorizationDecision decide(AuthorizationRequest request);

  /** Re-checks the gate a waiting execution depends on (vault still unlocked, session authorized). */
  @ActivityMethod
  AuthorizationDecision recheck(AuthorizationRequest request);
}
