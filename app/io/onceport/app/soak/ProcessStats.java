package io.onceport.app.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * Resident memory, threads and CPU time of a process and everything it started, read from
 * {@code /proc} (Linux). Where {@code /proc} is missing the memory and thread figures are -1.
 *
 * @param rssKib resident set size summed over the process tree, KiB
 * @param threads threads summed over the process tree
 * @param cpu CPU time (user + system) summed over the process tree since each started
 */
public record ProcessStats(long rssKib, long threads, Duration cpu) {
  /** The process {@code pid} and its descendants; zeros when it is gone. */
  public static ProcessStats of(long pid) {
    return ProcessHandle.of(pid).map(ProcessStats::of).orElse(new ProcessStats(0, 0, Duration.ZERO));
  }

  /** This JVM alone (not the processes it started). */
  public static ProcessStats self() {
    return of(List.of(ProcessHandle.current()));
  }

  public static ProcessStats of(ProcessHandle root) {
    return of(Stream.concat(Stream.of(root), root.descendants()).toList());
  }

  private static ProcessStats of(List<ProcessHandle> processes) {
    long rss = 0;
    long threads = 0;
    Duration cpu = Duration.ZERO;
    boolean proc = Files.isDirectory(Path.of("/proc/self"));
    for (ProcessHandle p : processes) {
      cpu = cpu.plus(p.info().totalCpuDuration().orElse(Duration.ZERO));
      if (proc) {
        List<String> status = status(p.pid());
        rss += field(status, "VmRSS:");
        threads += field(status, "Threads:");
      }
    }
    return proc ? new ProcessStats(rss, threads, cpu) : new ProcessStats(-1, -1, cpu);
  }

  private static List<String> status(long pid) {
    try {
      return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return List.of(); // the process ended in between
    }
  }

  private static long field(List<String> status, String name) {
    for (String line : status) {
      if (line.startsWith(name)) {
        String[] parts = line.substring(name.length()).trim().split("\\s+");
        return Long.parseLong(parts[0]);
      }
    }
    return 0;
  }
}
