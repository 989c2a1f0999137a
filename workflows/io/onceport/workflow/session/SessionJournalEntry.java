package io.onceport.workflow.session;

import java.util.Map;
import java.util.Objects;

/**
 * One session event for the sessions journal. Holds no secret: ids, names, addresses, decisions.
 *
 * @param runId the session workflow's run id; with {@code sequence} it makes the append key
 * @param sequence 1, 2, ... within the run
 */
public record SessionJournalEntry(
    String sessionId, String actor, String event, String runId, int sequence, String at, Map<String, String> detail) {
  public SessionJournalEntry {
    Objects.requireNonNull(sessionId, "sessionId == null");
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(event, "event == null");
    Objects.requireNonNull(runId, "runId == null");
    Objects.requireNonNull(at, "at == null");
    detail = detail == null ? Map.of() : Map.copyOf(detail);
  }

  /** Unique per event and stable across activity retries. */
  public String appendKey() {
    return "session/" + runId + "/" + sequence;
  }
}
