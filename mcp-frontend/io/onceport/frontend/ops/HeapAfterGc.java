package io.onceport.frontend.ops;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * The live heap right after a full GC, for memory probes that must show a slope: what each heap
 * pool held when the collection ended ({@link MemoryPoolMXBean#getCollectionUsage}). Reading
 * {@code MemoryMXBean.getHeapMemoryUsage().getUsed()} instead, even right after {@code System.gc()},
 * also counts what other threads allocated since (the worker's pollers, gRPC, callers still
 * running), rounded up to whole G1 regions (4 MiB here): several MiB of noise between two samples
 * of a 40 MiB heap, more than the growth the probe looks for.
 */
public final class HeapAfterGc {
  private HeapAfterGc() {}

  /** Runs a full GC (twice, so that what the first one finalized is collected too) and returns the heap it left. */
  public static long collect() {
    System.gc();
    System.gc();
    long used = 0;
    boolean any = false;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage after = pool.getType() == MemoryType.HEAP ? pool.getCollectionUsage() : null;
      if (after != null) {
        used += after.getUsed();
        any = true;
      }
    }
    return any ? used : ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
