package io.onceport.workflow.session;

/** An operator's authorization or denial of a session: who decided and why. */
public record SessionDecision(String by, String reason) {
  public SessionDecision {
    by = by == null || by.isBlank() ? "operator" : by;
    reason = reason == null ? "" : reason;
  }
}
