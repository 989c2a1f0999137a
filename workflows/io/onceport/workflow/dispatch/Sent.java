package io.onceport.workflow.dispatch;

import java.util.Objects;

/**
 * What {@link DispatchActivities#send} observed: the target's answer, and whether the activity
 * could journal it.
 *
 * @param journalProblem null when the carried entries, {@code dispatched} and {@code outcome} are
 *     durable; otherwise why the {@code outcome} entry could not be written (the answer stands:
 *     the request was sent and answered, the workflow records the gap)
 */
public record Sent(DispatchResult answer, String journalProblem) {
  public Sent {
    Objects.requireNonNull(answer, "answer == null");
  }
}
