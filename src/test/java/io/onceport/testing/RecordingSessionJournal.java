package io.onceport.testing;

import io.onceport.activity.session.SessionJournal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps session journal appends in memory, with their append keys. */
public final class RecordingSessionJournal implements SessionJournal {
  public record Append(Map<String, Object> entry, String appendKey) {}

  public final List<Append> appends = new CopyOnWriteArrayList<>();

  @Override
  public void append(Map<String, Object> entry, String appendKey) {
    appends.add(new Append(Map.copyOf(entry), appendKey));
  }

  /** The events recorded for one session, in order. */
  public List<String> events(String sessionId) {
    return appends.stream().filter(a -> sessionId.equals(a.entry().get("session"))).map(a -> (String) a.entry().get("event")).toList();
  }
}
