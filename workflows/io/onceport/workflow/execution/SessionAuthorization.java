package io.onceport.workflow.execution;

import java.util.Objects;

/** An operator's decision on an agent session, forwarded to executions waiting on it. */
public record SessionAuthorization(String sessionId, boolean authorized, String by, String reason) {
  public SessionAuthorization {
    Objects.requireNonNull(sessionId, "sessionId == null");
    by = by == null || by.isBlank() ? "operator" : by;
    reason = reason == null ? "" : reason;
  }
}
