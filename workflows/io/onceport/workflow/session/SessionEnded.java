package io.onceport.workflow.session;

import java.util.Objects;

/** The session ended; {@code reason} says how (client deleted it, expired, server shut down). */
public record SessionEnded(String reason, String at) {
  public SessionEnded {
    Objects.requireNonNull(at, "at == null");
    reason = reason == null ? "" : reason;
  }
}
