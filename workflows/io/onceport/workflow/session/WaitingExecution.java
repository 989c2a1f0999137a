package io.onceport.workflow.session;

import java.util.Objects;

/**
 * An execution that waits for its session's decision: its workflow id and its actor, which the
 * session compares with its own before it forwards any decision.
 */
public record WaitingExecution(String executionWorkflowId, String actor) {
  public WaitingExecution {
    Objects.requireNonNull(executionWorkflowId, "executionWorkflowId == null");
    Objects.requireNonNull(actor, "actor == null");
  }
}
