package io.onceport.workflow.dispatch;

import java.util.Objects;

/**
 * What {@link DispatchActivities#send} observed: the target's answer, and whether the activity
 * could journal it.
 *
 * @param journalProblem null when the carried entries, {@code dispatched} and {@code outcome} are
 *     durable; otherwise why the {@code outcome} entry could not be written (the answer stands:
 *     the request was sent and answered, the workflow records the gap)
 * @param handedOver the answer was handed to its caller in band and this is its delivery, or null
 *     (no plan, no caller waiting in this process, no report in time)
 */
public record Sent(DispatchResult answer, String journalProblem, HandedOver handedOver) {
  public Sent {
    Objects.requireNonNull(answer, "answer == null");
  }

  /** A send answered without an in-band delivery. */
  public Sent(DispatchResult answer, String journalProblem) {
    this(answer, journalProblem, null);
  }
}
