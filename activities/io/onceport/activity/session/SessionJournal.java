package io.onceport.activity.session;

import java.util.Map;

/**
 * Where session events are written: the tamper-evident sessions journal (backed by the journal's
 * generic {@code append(payload, appendKey)}). Implementations must be idempotent per {@code
 * appendKey} — the activity calling this may be retried after a crash — and durable on return.
 */
public interface SessionJournal {
  /**
   * @param entry plain JSON values (strings, numbers, maps); never a secret
   * @param appendKey unique per event; a second append with the same key writes nothing
   */
  void append(Map<String, Object> entry, String appendKey);
}
