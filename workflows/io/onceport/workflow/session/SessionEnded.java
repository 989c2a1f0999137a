package io.onceport.workflow.session;

import java.util.Objects;

/**
 * The session ended; {@code reason} says how (client deleted it, expired, server shut down, its
 * credential was removed).
 *
 * @param credentialRemoved true when the agent's credential was removed ({@code onceport agent
 *     remove}): executions still waiting on the session may then never be authorized
 */
public record SessionEnded(String reason, String at, boolean credentialRemoved) {
  public SessionEnded {
    Objects.requireNonNull(at, "at == null");
    reason = reason == null ? "" : reason;
  }

  public SessionEnded(String reason, String at) {
    this(reason, at, false);
  }
}
