package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RecentKeysTest {
  @Test
  void remembersExactlyTheLastCapacityEntriesAgainstAReferenceWindow() {
    RecentKeys keys = new RecentKeys(64);
    ArrayDeque<long[]> reference = new ArrayDeque<>();
    Random random = new Random(12);
    for (long offset = 0; offset < 20_000; offset++) {
      // few distinct hashes, many sharing a home slot: exercises probing and backward-shift removal
      long hash = random.nextInt(200) * 0x1_0000_0000L + random.nextInt(3);
      keys.add(hash, offset);
      reference.addLast(new long[] {hash, offset});
      if (reference.size() > 64) {
        reference.removeFirst();
      }
      long probe = random.nextInt(200) * 0x1_0000_0000L + random.nextInt(3);
      long[] expected = reference.stream().filter(e -> e[0] == probe).mapToLong(e -> e[1]).toArray();
      long[] actual = keys.candidates(probe);
      Arrays.sort(actual);
      assertArrayEquals(expected, actual, "candidates of " + probe + " after offset " + offset);
    }
    assertEquals(64, keys.size());
  }

  @Test
  void equalHashesAreAllCandidatesSoTheJournalCanCompareKeys() {
    RecentKeys keys = new RecentKeys(8);
    keys.add(42, 100);
    keys.add(42, 200);
    keys.add(7, 300);
    long[] c = keys.candidates(42);
    Arrays.sort(c);
    assertArrayEquals(new long[] {100, 200}, c);
    assertArrayEquals(new long[0], keys.candidates(8));
  }

  @Test
  void capacityMustBeAPowerOfTwo() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RecentKeys(1000));
    assertEquals("Invalid key window: 1000 entries (a power of two)", e.getMessage());
  }
}
