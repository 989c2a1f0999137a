package io.onceport.frontend.temporal;

import java.util.Objects;

/** Where an execution lives in Temporal: one run of one workflow id. */
public record ExecutionLocation(String executionId, String workflowId, String runId) {
  public ExecutionLocation {
    Objects.requireNonNull(workflowId, "workflowId == null");
    Objects.requireNonNull(runId, "runId == null");
  }
}
