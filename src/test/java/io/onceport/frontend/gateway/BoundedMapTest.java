package io.onceport.frontend.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

  @Test
  void invalidBoundsAreRefusedWithTheirValue() {
    assertEquals("Invalid maximum size: 0",
        assertThrows(IllegalArgumentException.class, () -> new BoundedMap<String, String>(0, Duration.ofSeconds(1))).getMessage());
    assertEquals("Invalid maximum age: PT0S",
        assertThrows(IllegalArgumentException.class, () -> new BoundedMap<String, String>(1, Duration.ZERO)).getMessage());
  }
}
