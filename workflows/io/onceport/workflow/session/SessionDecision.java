package io.onceport.workflow.session;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.onceport.workflow.operator.SignedDecision;

/**
 * An operator's authorization or denial of a session: the signed statement ({@code onceport
 * sessions authorize|deny}, or {@code onceport operator sign session …} pasted in the Temporal UI as
 * {@code {"statement":"…","signature":"…"}}). {@code by} and {@code reason} are what the caller
 * claims; the session acts on the verified statement, whose operator and reason are recorded.
 */
public record SessionDecision(String by, String reason, String statement, String signature, String until) {
  public SessionDecision {
    by = by == null || by.isBlank() ? "operator" : by;
    reason = reason == null ? "" : reason;
  }

  /**
   * A decision about a session (not a grant).
   *
   * @see #SessionDecision(String, String, String, String, String) {@code until}: the end of a grant
   *     ({@code grant:} sessions, ISO-8601 instant, named in the signed statement), null otherwise
   */
  public SessionDecision(String by, String reason, String statement, String signature) {
    this(by, reason, statement, signature, null);
  }

  /** An unsigned decision (histories recorded before decisions were signed, and tests of refusals). */
  public SessionDecision(String by, String reason) {
    this(by, reason, null, null);
  }

  /** The signed statement, or null when none was presented. */
  @JsonIgnore
  public SignedDecision signedDecision() {
    return SignedDecision.ofNullable(statement, signature);
  }
}
