package io.onceport.workflow.dispatch;

import java.util.Objects;

/**
 * What a status query learned about an execution whose dispatch outcome was unknown.
 *
 * @param result the target's answer that established the verdict (a status response, a marker's
 *     exit status), or null
 */
public record StatusResult(Verdict verdict, DispatchResult result, String detail) {
  public enum Verdict {
    /** The action ran and succeeded. */
    COMPLETED,
    /** The action ran and failed. */
    FAILED,
    /** The action provably did not run: safe to dispatch again under the same execution id. */
    NOT_EXECUTED,
    /** The action is still running (a remote marker says started, not finished). */
    RUNNING,
    /** The target could not tell. */
    UNKNOWN
  }

  public StatusResult {
    Objects.requireNonNull(verdict, "verdict == null");
    detail = detail == null ? "" : detail;
  }
}
