package io.onceport.app.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * CPU time of JVMs' JIT compiler threads, from {@code /proc/PID/task} (Linux): the threads named
 * {@code C1 CompilerThre…} and {@code C2 CompilerThre…}. The JVM's own figure ({@code
 * CompilationMXBean.getTotalCompilationTime}) is the compilations' elapsed time, which on a
 * machine others load too counts the time a compiler thread waited for a core: in a run at load 44
 * on 2 cores it exceeded the JVM's whole CPU per call. The compiler threads come and go (the JVM
 * starts more when its queue is long), so a poller reads them every {@value #POLL_MS} ms and keeps
 * each thread's last figure: a thread that ended still counts what it spent. Where {@code /proc} is
 * missing every figure is -1.
 *
 * <p>The polling is the bench's own work in the gateway's JVM — 0.56 CPU-s in 91 s of a profiled
 * run (about 0.45 ms per side-effecting call, ~1.5 % of the gateway's CPU: the workflow threads the
 * worker starts and ends are new thread ids whose names are read) — so it counts its own CPU time
 * ({@link #ownCpuNanos}) and the bench leaves it out of the gateway's figure.
 */
final class JitCpu implements AutoCloseable {
  static final long POLL_MS = 200;
  /** Clock ticks per second of {@code /proc/PID/task/TID/stat} (USER_HZ, 100 on Linux). */
  private static final long TICKS_PER_SECOND = 100;

  /** pid → compiler thread id → its user + system ticks when last read. */
  private final Map<Long, Map<String, Long>> compilers = new ConcurrentHashMap<>();
  /** pid → thread ids known not to be compiler threads (their names are read once). */
  private final Map<Long, Set<String>> others = new ConcurrentHashMap<>();
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  /** CPU time the polls took in this JVM, whichever thread ran them. */
  private final LongAdder ownNanos = new LongAdder();
  private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "bench-jit-cpu");
    t.setDaemon(true);
    return t;
  });

  JitCpu() {
    poller.scheduleWithFixedDelay(this::pollAll, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
  }

  /** Starts following {@code pid}'s compiler threads. */
  void follow(long pid) {
    compilers.putIfAbsent(pid, new ConcurrentHashMap<>());
    others.putIfAbsent(pid, ConcurrentHashMap.newKeySet());
    poll(pid);
  }

  /** The CPU time {@code pid}'s compiler threads spent since it was followed (and before), in ms; -1 when unknown. */
  long millis(long pid) {
    if (!Files.isDirectory(Path.of("/proc/self/task"))) {
      return -1;
    }
    follow(pid);
    long ticks = 0;
    for (long t : compilers.get(pid).values()) {
      ticks += t;
    }
    return ticks * 1000 / TICKS_PER_SECOND;
  }

  private void pollAll() {
    for (long pid : compilers.keySet()) {
      poll(pid);
    }
  }

  /** Puts {@code pid}'s compiler threads' CPU time so far in nanoseconds into {@code out} as {@code key}, when known. */
  void into(Map<String, Long> out, String key, long pid) {
    long ms = pid > 0 ? millis(pid) : -1;
    if (ms >= 0) {
      out.put(key, ms * 1_000_000);
    }
  }

  /** CPU time this JVM spent reading {@code /proc} for these figures so far, in nanoseconds (0 when the JVM cannot tell). */
  long ownCpuNanos() {
    return ownNanos.sum();
  }

  private synchronized void poll(long pid) {
    long t0 = threadCpuNanos();
    try {
      pollTasks(pid);
    } finally {
      long t1 = threadCpuNanos();
      if (t0 >= 0 && t1 >= t0) {
        ownNanos.add(t1 - t0);
      }
    }
  }

  private static long threadCpuNanos() {
    return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
  }

  private void pollTasks(long pid) {
    Map<String, Long> seen = compilers.get(pid);
    Set<String> skip = others.get(pid);
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      Set<String> now = new HashSet<>();
      for (Path task : tasks) {
        String tid = task.getFileName().toString();
        now.add(tid);
        if (skip.contains(tid)) {
          continue;
        }
        if (!seen.containsKey(tid)) {
          String name = Files.readString(task.resolve("comm")).trim();
          if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
            skip.add(tid);
            continue;
          }
        }
        long ticks = ticks(task);
        if (ticks >= 0) {
          seen.merge(tid, ticks, Math::max);
        }
      }
      skip.retainAll(now); // thread ids are reused: a new thread of an old id gets its name read again
    } catch (IOException | RuntimeException e) {
      // the process ended, or no /proc: what was read stays
    }
  }

  /** utime + stime of one thread; its name may hold spaces and parentheses, so fields are counted after the last ')'. */
  private static long ticks(Path task) {
    try {
      String stat = Files.readString(task.resolve("stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    poller.shutdownNow();
  }
}
