package io.onceport.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.app.demo.DemoTarget.Handling;
import io.onceport.app.demo.DemoTarget.LedgerEntry;
import io.onceport.testing.FaultLoad.Figures;
import io.onceport.testing.FaultLoad.Intent;
import io.onceport.testing.FaultLoad.Kind;
import io.onceport.testing.FaultLoad.Seen;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fault test's figures can fail: a ledger with a second act under another key, a re-send that
 * the target deduplicated for an at-most-once class, a request the record does not list, an
 * unsettled record and an answered id that cannot be found are each counted.
 */
class FaultLoadFiguresTest {
  private static final Instant T = Instant.parse("2026-12-01T00:00:00Z");

  private final FaultLoad load = new FaultLoad(new FaultLoad.Settings(40, 1, 4, 4, Duration.ofSeconds(1), 7L), "t", "token", () -> 1);
  private final List<LedgerEntry> ledger = new ArrayList<>();

  private Intent first(Kind kind) {
    return load.intents().stream().filter(i -> i.kind == kind).findFirst().orElseThrow();
  }

  private void entry(Intent intent, String key, Handling handling, Integer status, String fault) {
    String path = intent.kind == Kind.IRREVERSIBLE ? "/v1/notifications" : "/v1/releases";
    String body = intent.kind == Kind.IRREVERSIBLE ? "{\"message\":\"" + intent.tag + "\"}"
        : "{\"service\":\"fault\",\"version\":\"" + intent.tag + "\",\"region\":\"us-east-1\"}";
    ledger.add(new LedgerEntry(ledger.size() + 1, "POST", path, key, body, T, T, handling, status, fault));
  }

  private static Seen settled(String id, int sends) {
    return new Seen(id, "t", "completed", true, sends, null);
  }

  @Test
  void aCleanRunCountsSendsAndActsAndNothingElse() {
    Intent status = first(Kind.STATUS_QUERY);
    Intent keyed = first(Kind.IDEMPOTENCY_KEY);
    entry(status, "act_1", Handling.DROPPED, null, "drop-without-acting");
    entry(status, "act_1", Handling.ACTED, 201, null); // re-sent under the same key after proof: allowed
    entry(keyed, "act_2", Handling.ACTED, 201, "drop-after-accept");
    entry(keyed, "act_2", Handling.REPLAYED, 201, null); // same-key re-send of an idempotency_key tool: allowed
    Figures f = load.figures(ledger, Map.of("act_1", settled("act_1", 2), "act_2", settled("act_2", 2)));
    assertEquals(4, f.sends());
    assertEquals(2, f.acts());
    assertEquals(0, f.duplicateSideEffects(), f.details().toString());
    assertEquals(0, f.sameKeyDoubleActs(), f.details().toString());
    assertEquals(0, f.stuck());
    assertEquals(0, f.lost());
    assertEquals(Map.of("drop-without-acting", 1L, "drop-after-accept", 1L), f.faultsApplied());
    assertTrue(f.details().isEmpty(), f.details().toString());
  }

  @Test
  void aSecondActUnderAnotherKeyIsADuplicateSideEffect() {
    Intent keyed = first(Kind.IDEMPOTENCY_KEY);
    entry(keyed, "act_1", Handling.ACTED, 201, null);
    entry(keyed, "act_2", Handling.ACTED, 201, null);
    Figures f = load.figures(ledger, Map.of("act_1", settled("act_1", 1), "act_2", settled("act_2", 1)));
    assertEquals(1, f.duplicateSideEffects());
  }

  @Test
  void aReSendAfterAnActIsASameKeyDoubleActForAtMostOnceClassesOnly() {
    Intent status = first(Kind.STATUS_QUERY);
    Intent irreversible = first(Kind.IRREVERSIBLE);
    Intent keyed = first(Kind.IDEMPOTENCY_KEY);
    entry(status, "act_1", Handling.ACTED, 201, null);
    entry(status, "act_1", Handling.REPLAYED, 201, null); // the target's dedup hid it; the gateway still sent again
    entry(irreversible, "act_2", Handling.ACTED, 201, null);
    entry(irreversible, "act_2", Handling.ACTED, 201, null);
    entry(keyed, "act_3", Handling.ACTED, 201, null);
    entry(keyed, "act_3", Handling.REPLAYED, 201, null);
    Map<String, Seen> seen = Map.of("act_1", settled("act_1", 2), "act_2", settled("act_2", 2), "act_3", settled("act_3", 2));
    assertEquals(2, load.figures(ledger, seen).sameKeyDoubleActs());
  }

  @Test
  void unsettledRecordsAreStuckAndUnfoundAnsweredIdsAreLostAndUnrecordedSendsAreNamed() {
    Intent irreversible = first(Kind.IRREVERSIBLE);
    entry(irreversible, "act_1", Handling.ACTED, 201, null);
    entry(irreversible, "act_2", Handling.DROPPED, null, null);
    entry(irreversible, "act_2", Handling.DROPPED, null, null);
    Map<String, Seen> seen = new LinkedHashMap<>();
    seen.put("act_1", new Seen("act_1", "send_notification", "dispatched", false, 1, null));
    seen.put("act_2", settled("act_2", 1));
    seen.put("act_3", new Seen("act_3", null, null, false, 0, "lost: answered to a client, not found"));
    Figures f = load.figures(ledger, seen);
    assertEquals(1, f.stuck());
    assertEquals(1, f.lost());
    assertTrue(f.details().contains("hidden send: act_2 reached the target 2 times, 1 sends on the record"), f.details().toString());
  }
}
