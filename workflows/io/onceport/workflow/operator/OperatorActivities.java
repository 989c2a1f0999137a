package io.onceport.workflow.operator;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Verifies operator decisions against the operator keys registered where workers read them
 * ({@code onceport operator add}). Run as a local activity from a workflow's main method, so the
 * verdict is recorded in history and replays deterministically; never from a signal or update
 * handler.
 */
@ActivityInterface
public interface OperatorActivities {
  @ActivityMethod
  DecisionVerdict verify(SignedDecision decision, DecisionBinding binding);
}
