package io.onceport.app.demo;

import static io.onceport.app.demo.DemoTarget.parseObject;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.demo.DemoTarget.Handling;
import io.onceport.app.demo.DemoTarget.LedgerEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link DemoTarget}'s ledger: every request received on the API, oldest first, with what the
 * target did about it. All state is guarded by this.
 */
final class Ledger {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<LedgerEntry> ledger = new ArrayList<>();

  /** Every request received on the API so far, oldest first. */
  synchronized List<LedgerEntry> entries() {
    return List.copyOf(ledger);
  }

  /** Requests received with this Idempotency-Key, whatever the target did with them: what was sent. */
  synchronized long received(String key) {
    return ledger.stream().filter(e -> key.equals(e.key())).count();
  }

  /** Requests with this Idempotency-Key that made the target act: what happened. */
  synchronized long acted(String key) {
    return ledger.stream().filter(e -> key.equals(e.key()) && e.acted()).count();
  }

  synchronized int receive(String method, String path, String key, String body) {
    ledger.add(new LedgerEntry(ledger.size() + 1, method, path, key, body, Instant.now(), null, Handling.PROCESSING, null, null));
    return ledger.size() - 1;
  }

  synchronized void finish(int index, Handling handling, Integer status, Fault fault) {
    LedgerEntry e = ledger.get(index);
    ledger.set(index, new LedgerEntry(e.seq(), e.method(), e.path(), e.key(), e.body(), e.time(), Instant.now(),
        handling, status, fault == null ? null : fault.spec()));
  }

  synchronized Reply ledgerReply() {
    ArrayNode list = JSON.createArrayNode();
    for (LedgerEntry e : ledger) {
      ObjectNode entry = list.addObject();
      entry.put("seq", e.seq());
      entry.put("method", e.method());
      entry.put("path", e.path());
      entry.put("key", e.key());
      JsonNode parsed = parseObject(e.body());
      if (parsed != null) {
        entry.set("body", parsed);
      } else {
        entry.put("body", e.body());
      }
      entry.put("time", e.time().toString());
      entry.put("finished", e.finished() == null ? null : e.finished().toString());
      entry.put("handling", e.handling().wireName());
      if (e.status() == null) {
        entry.putNull("status");
      } else {
        entry.put("status", e.status());
      }
      entry.put("fault", e.fault());
    }
    return new Reply(200, list.toString(), null, false, Handling.READ);
  }
}
