package io.onceport.frontend.ops;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The heap a full GC left: what is still reachable counts, garbage allocated before or since does not. */
@Timeout(60)
class HeapAfterGcTest {
  private static final int MIB = 1024 * 1024;
  private static volatile byte[] sink;

  @Test
  void countsWhatIsReachableAndForgetsItOnceItIsNot() {
    long before = HeapAfterGc.collect();
    byte[] kept = new byte[64 * MIB];
    long holding = HeapAfterGc.collect();
    assertTrue(holding - before >= 60L * MIB, "64 MiB still reachable: " + (holding - before) / MIB + " MiB more");
    kept[0] = 1;
    kept = null;
    for (int i = 0; i < 64; i++) {
      sink = new byte[MIB]; // garbage allocated before the collection
    }
    long released = HeapAfterGc.collect();
    assertTrue(holding - released >= 60L * MIB, "released: " + (holding - released) / MIB + " MiB less");
  }
}
