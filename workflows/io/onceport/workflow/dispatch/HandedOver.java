package io.onceport.workflow.dispatch;

import java.util.Objects;

/**
 * A send's answer was handed to its caller in band ({@link AnswerPlan}), and this is what the
 * caller's front end reported about writing it: the same facts as a delivery report signal.
 *
 * @param delivered true when the response was written and no cancellation followed within the
 *     delivery grace
 * @param journaled true when the activity already journaled the {@code delivered} entry (the
 *     workflow then does not)
 */
public record HandedOver(String callId, boolean delivered, String at, String detail, boolean journaled) {
  public HandedOver {
    Objects.requireNonNull(callId, "callId == null");
    Objects.requireNonNull(at, "at == null");
    detail = detail == null ? "" : detail;
  }
}
