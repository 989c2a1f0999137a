package io.onceport.frontend.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BoundedMapTest {
  private final AtomicLong now = new AtomicLong();
  private final BoundedMap<String, Integer> map = new BoundedMap<>(3, Duration.ofSeconds(10), now::get);

  @Test
  void theLeastRecentlyUsedEntryGoesWhenTheMapIsFull() {
    map.put("a", 1);
    map.put("b", 2);
    map.put("c", 3);
    assertEquals(1, map.get("a")); // a is now the most recently used
    map.put("d", 4);
    assertNull(map.get("b"));
    assertEquals(1, map.get("a"));
    assertEquals(3, map.size());
  }

  @Test
  void anEntryUnusedForItsMaximumAgeIsForgotten() {
    map.put("a", 1);
    now.addAndGet(Duration.ofSeconds(6).toNanos());
    map.put("b", 2);
    now.addAndGet(Duration.ofSeconds(6).toNanos());
    assertNull(map.get("a"), "12 s unused");
    assertEquals(2, map.get("b"), "6 s unused");
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertEquals(2, map.get("b"), "used 9 s ago: a use renews the age");
    now.addAndGet(Duration.ofSeconds(11).toNanos());
    assertEquals(0, map.size());
  }

  @Test
  void computeSeesNullForAnExpiredEntryAndNullRemoves() {
    map.put("a", 1);
    now.addAndGet(Duration.ofSeconds(11).toNanos());
    assertEquals(7, map.compute("a", (k, v) -> v == null ? 7 : v + 1));
    assertEquals(8, map.compute("a", (k, v) -> v == null ? 7 : v + 1));
    assertNull(map.compute("a", (k, v) -> null));
    assertEquals(0, map.size());
  }

  /** Values below 0 are "settled" in these tests. */
  private final BoundedMap<String, Integer> tiered =
      new BoundedMap<>(3, Duration.ofMinutes(10), Duration.ofSeconds(30), v -> v < 0, now::get);

  @Test
  void aSettledEntryIsHeldForTheShorterAgeAndAnOpenOneForTheLongerOne() {
    tiered.put("open", 1);
    tiered.put("done", -1);
    assertEquals(1, tiered.settledSize());
    now.addAndGet(Duration.ofSeconds(29).toNanos());
    assertEquals(-1, tiered.get("done"), "29 s unused");
    now.addAndGet(Duration.ofSeconds(31).toNanos());
    assertNull(tiered.get("done"), "31 s after its last use");
    assertEquals(1, tiered.get("open"), "an open entry is kept after a minute");
    now.addAndGet(Duration.ofMinutes(9).toNanos());
    assertEquals(1, tiered.get("open"), "used 9 minutes ago");
    now.addAndGet(Duration.ofMinutes(11).toNanos());
    assertEquals(0, tiered.size());
  }

  @Test
  void anEntryThatBecomesSettledMovesToTheShorterAgeAndBackWhenItIsOpenAgain() {
    tiered.put("a", 1);
    tiered.compute("a", (k, v) -> -v);
    assertEquals(1, tiered.settledSize());
    tiered.put("b", -2);
    tiered.put("b", 2); // a newer open value under the same key
    assertEquals(1, tiered.settledSize());
    now.addAndGet(Duration.ofSeconds(31).toNanos());
    assertNull(tiered.get("a"));
    assertEquals(2, tiered.get("b"));
    assertEquals(1, tiered.size());
  }

  @Test
  void theSizeBoundPushesOutSettledEntriesBeforeOpenOnesAndSaysWhen() {
    tiered.put("open-1", 1);
    tiered.put("done-1", -1);
    tiered.put("open-2", 2);
    assertFalse(tiered.evictedBySizeSince(0));
    now.addAndGet(5);
    tiered.put("open-3", 3); // the eldest is open-1, but the settled entry goes first
    assertNull(tiered.get("done-1"));
    assertEquals(1, tiered.get("open-1"));
    assertEquals(3, tiered.size());
    assertTrue(tiered.evictedBySizeSince(5));
    assertFalse(tiered.evictedBySizeSince(6), "nothing was pushed out after 6");
    tiered.put("open-4", 4); // no settled entry left: the least recently used open one goes
    assertNull(tiered.get("open-2"));
    assertEquals(3, tiered.size());
  }

  @Test
  void theSettledBoundKeepsTheMostRecentlyUsedSettledEntriesAndEveryOpenOne() {
    BoundedMap<String, Integer> capped = new BoundedMap<>(100, 2, Duration.ofMinutes(10), Duration.ofSeconds(30), v -> v < 0, now::get);
    for (int i = 1; i <= 5; i++) {
      capped.put("open-" + i, i);
      capped.put("done-" + i, -i);
      now.addAndGet(10);
    }
    assertEquals(7, capped.size(), "5 open + 2 settled");
    assertEquals(2, capped.settledSize());
    for (int i = 1; i <= 5; i++) {
      assertEquals(i, capped.get("open-" + i), "an open entry is never pushed out by the settled bound");
    }
    assertNull(capped.get("done-3"));
    assertEquals(-4, capped.get("done-4"));
    assertEquals(-5, capped.get("done-5"));
  }

  @Test
  void aSettledEntryPushedOutCountsOnlyForThoseWhoLookedBeforeItsLastUse() {
    BoundedMap<String, Integer> capped = new BoundedMap<>(100, 1, Duration.ofMinutes(10), Duration.ofSeconds(30), v -> v < 0, now::get);
    capped.put("a", 1);
    now.set(100);
    capped.compute("a", (k, v) -> -v); // settled at 100
    now.set(200);
    capped.put("b", -2); // pushes out a, last used at 100
    assertNull(capped.get("a"));
    assertTrue(capped.evictedBySizeSince(50), "a caller from 50 saw a open: it may need what was forgotten");
    assertTrue(capped.evictedBySizeSince(100));
    assertFalse(capped.evictedBySizeSince(101), "a was settled before 101: nothing a later caller needs is gone");
  }

  @Test
  void theSettledBoundMustFitTheSizeBound() {
    assertThrows(IllegalArgumentException.class, () -> new BoundedMap<String, Integer>(3, 4, Duration.ofMinutes(1), Duration.ofSeconds(1), v -> true, now::get));
    assertThrows(IllegalArgumentException.class, () -> new BoundedMap<String, Integer>(3, 0, Duration.ofMinutes(1), Duration.ofSeconds(1), v -> true, now::get));
  }

  @Test
  void aPlainMapNeverCountsAnythingAsSettled() {
    map.put("a", -1);
    assertEquals(0, map.settledSize());
    assertEquals(Duration.ofSeconds(10), map.settledAge());
  }

  @Test
  void invalidBoundsAreRefusedWithTheirValue() {
    assertEquals("Invalid settled age: PT20M (must be positive and at most PT10M)",
        assertThrows(IllegalArgumentException.class, () -> new BoundedMap<String, Integer>(1, Duration.ofMinutes(10),
            Duration.ofMinutes(20), v -> true)).getMessage());
    assertEquals("Invalid maximum size: 0",
        assertThrows(IllegalArgumentException.class, () -> new BoundedMap<String, String>(0, Duration.ofSeconds(1))).getMessage());
    assertEquals("Invalid maximum age: PT0S",
        assertThrows(IllegalArgumentException.class, () -> new BoundedMap<String, String>(1, Duration.ZERO)).getMessage());
  }
}
