package io.onceport.workflow.journal;

import java.util.Objects;

/**
 * A reset run of an execution asks the journal what was sent before it ({@link
 * JournalActivities#resetRun}): the execution, and the run ids that tell the reset.
 *
 * @param runId this run (the reset one)
 * @param originalRunId the run whose start this run's history begins with (Temporal keeps it across
 *     resets: {@code WorkflowInfo.getOriginalExecutionRunId()})
 * @param at workflow time of the reset run's first step after its reset point
 */
public record ResetRun(String executionId, String fingerprint, String tool, String runId, String originalRunId, String at) {
  public ResetRun {
    Objects.requireNonNull(executionId, "executionId == null");
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    Objects.requireNonNull(tool, "tool == null");
    Objects.requireNonNull(runId, "runId == null");
    Objects.requireNonNull(originalRunId, "originalRunId == null");
    Objects.requireNonNull(at, "at == null");
  }
}
