package io.onceport.app.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host's CPU time, busy and idle, from the first line of {@code /proc/stat} (Linux): read before
 * and after a throughput batch, it says whether the batch's callers kept the machine's cores busy.
 * A subject that leaves the cores idle with 16 callers is waiting on something other than CPU (the
 * demo target's delayed ACKs capped every baseline that way until 2026-12-06), so its figures are
 * not its physical floor.
 *
 * @param idleTicks idle plus I/O wait, in clock ticks since boot
 * @param totalTicks all of user, nice, system, idle, I/O wait, interrupts and steal
 */
record HostCpu(long idleTicks, long totalTicks) {
  private static final Path STAT = Path.of("/proc/stat");

  /** Now, or zeros where {@code /proc/stat} cannot be read. */
  static HostCpu now() {
    try {
      String first = Files.readAllLines(STAT).get(0);
      String[] f = first.trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        total += Long.parseLong(f[i]);
      }
      return new HostCpu(Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0), total);
    } catch (IOException | RuntimeException e) {
      return new HostCpu(0, 0);
    }
  }

  /** The idle fraction of the host's CPU from {@code before} to this sample, NaN when unknown. */
  double idleSince(HostCpu before) {
    long total = totalTicks - before.totalTicks;
    return total <= 0 ? Double.NaN : (idleTicks - before.idleTicks) / (double) total;
  }
}
