package io.onceport.workflow.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * What a send needs to answer its caller itself, in band: the execution's state as the workflow
 * held it when it scheduled the send, so that the activity can build — with the workflow's own
 * code ({@code InBandAnswer}) — the record the workflow will build when the answer arrives, and
 * hand it to a caller waiting in the same process before the answer has gone through the engine.
 *
 * <p>Why: the front end learns that a result was delivered only after it wrote it, and the
 * execution must stay open until then (a retry of a lost response must attach, not start a second
 * run). Told by the workflow, that costs a workflow task of its own. Answered in band, the send
 * comes back with the delivery already known, and the run closes in the task that records the
 * answer. A send without a waiting caller here (another process, the caller gone) ignores the plan.
 *
 * @param execution the execution's state object, serialized (opaque outside {@code workflow.execution})
 * @param callIds the calls attached when the send was scheduled: the callers that may be waiting here
 * @param startedAt when the send was started, as the record shows it
 * @param attachWindowMillis the contract's attach window, which the record shows from the answer on
 */
public record AnswerPlan(JsonNode execution, List<String> callIds, String startedAt, long attachWindowMillis) {
  public AnswerPlan {
    Objects.requireNonNull(execution, "execution == null");
    Objects.requireNonNull(startedAt, "startedAt == null");
    callIds = callIds == null ? List.of() : List.copyOf(callIds);
    if (attachWindowMillis < 0) {
      throw new IllegalArgumentException("Invalid attach window: " + attachWindowMillis);
    }
  }
}
