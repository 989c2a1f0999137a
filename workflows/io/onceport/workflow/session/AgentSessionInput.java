package io.onceport.workflow.session;

import java.util.Objects;

/** What starts a session workflow: its id and the authenticated actor it belongs to. */
public record AgentSessionInput(String sessionId, String actor) {
  public AgentSessionInput {
    Objects.requireNonNull(sessionId, "sessionId == null");
    Objects.requireNonNull(actor, "actor == null");
  }
}
