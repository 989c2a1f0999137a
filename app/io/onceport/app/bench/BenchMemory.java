package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The bench's memory section: heap after a full GC and RSS after a tenth of {@code memoryCalls}
 * distinct calls, after half and after all (the growth figures compare the last with the first).
 */
final class BenchMemory {
  private final Bench bench;
  private final BenchSettings settings;

  BenchMemory(Bench bench) {
    this.bench = bench;
    this.settings = bench.settings;
  }

  /** {@code memoryCalls} sequential distinct calls; heap after a full GC and RSS after a tenth and after all. */
  ObjectNode memory(BenchRig rig) throws Exception {
    int n = settings.memoryCalls();
    int first = n / 10;
    say("bench: memory, " + n + " sequential distinct calls");
    ObjectNode m = McpDriver.JSON.createObjectNode();
    m.put("calls", n);
    McpDriver d = new McpDriver(rig.http, rig.mcp(), rig.token).initialize();
    int errors = 0;
    int consecutive = 0;
    String firstError = null;
    long deadline = System.nanoTime() + Duration.ofMinutes(Math.max(2, n / 100)).toNanos();
    ArrayNode points = m.putArray("points");
    long t0 = System.nanoTime();
    int done = 0;
    for (int i = 1; i <= n; i++) {
      try {
        Bench.expectCompleted(d.call(settings.tool(), args("memory", i, false), McpDriver.ACCEPT_JSON, settings.callTimeout()));
        consecutive = 0;
      } catch (IOException e) {
        errors++;
        consecutive++;
        if (firstError == null) {
          firstError = McpDriver.abbreviate(e.getMessage());
        }
      }
      done = i;
      if (consecutive >= 20) {
        points.add(memoryPoint(rig, i));
        m.put("stopped_early", "20 calls in a row failed after " + i + " calls");
        break;
      }
      if (i == first || i == n / 2 || i == n) {
        points.add(memoryPoint(rig, i));
        say("bench: memory after " + i + " calls: " + points.get(points.size() - 1));
      }
      if (System.nanoTime() > deadline) {
        points.add(memoryPoint(rig, i));
        m.put("stopped_early", "time limit reached after " + i + " calls");
        break;
      }
    }
    m.put("completed_calls", done - errors);
    m.put("seconds", Math.round((System.nanoTime() - t0) / 1e8) / 10.0);
    m.put("errors", errors);
    if (firstError != null) {
      m.put("first_error", firstError);
    }
    growth(m, points);
    return m;
  }

  /** Heap and RSS (and the engine's RSS) at the last point over the first, once there are two. */
  private static void growth(ObjectNode m, ArrayNode points) {
    if (points.size() >= 2) {
      JsonNode a = points.get(0);
      JsonNode b = points.get(points.size() - 1);
      Bench.put(m, "heap_growth", ratio(b.path("heap_bytes").asLong(), a.path("heap_bytes").asLong()));
      Bench.put(m, "rss_growth", ratio(b.path("rss_bytes").asLong(), a.path("rss_bytes").asLong()));
      if (a.has("engine_rss_bytes")) {
        Bench.put(m, "engine_rss_growth", ratio(b.path("engine_rss_bytes").asLong(), a.path("engine_rss_bytes").asLong()));
      }
    }
  }

  private static double ratio(long after, long before) {
    return before <= 0 || after < 0 ? Double.NaN : (after - before) / (double) before;
  }

  private ObjectNode memoryPoint(BenchRig rig, int calls) throws InterruptedException {
    for (int i = 0; i < 2; i++) {
      System.gc();
      Thread.sleep(100);
    }
    ObjectNode p = McpDriver.JSON.createObjectNode();
    p.put("after_calls", calls);
    p.put("heap_bytes", io.onceport.frontend.ops.HeapAfterGc.collect());
    p.put("rss_bytes", ChildProcess.Rss.self());
    where(p);
    if (rig.engine.apart()) {
      p.put("engine_rss_bytes", rig.engine.rssBytes());
    }
    if (rig.targetProcess != null) {
      p.put("target_rss_bytes", rig.targetProcess.rssBytes());
    }
    p.put("registries", rig.frontend.gateway().registrySizes());
    if (settings.memoryHistograms() != null) {
      p.put("histogram", histogram(settings.memoryHistograms(), calls).toString());
    }
    return p;
  }

  /**
   * Writes the class histogram of this JVM's live heap (a full GC first, as {@code jcmd
   * GC.class_histogram} does) to {@code dir/histogram-after-N.txt}, read in process from the
   * DiagnosticCommand MBean: taken at the memory point itself, not by a tool attaching later.
   */
  private static Path histogram(Path dir, int calls) {
    String text;
    try {
      text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
          new Object[] {new String[0]}, new String[] {String[].class.getName()});
    } catch (JMException e) {
      throw new IllegalStateException("could not read the class histogram: " + e.getMessage(), e);
    }
    Path file = dir.resolve("histogram-after-" + calls + ".txt");
    try {
      Files.createDirectories(dir);
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + file, e);
    }
    return file;
  }

  /**
   * Where the JVM's RSS goes, as the JVM counts it: the committed heap (what G1 keeps after the full
   * GC), the other memory pools (metaspace, JIT code), direct buffers, live threads.
   */
  private static void where(ObjectNode p) {
    java.lang.management.MemoryMXBean memory = java.lang.management.ManagementFactory.getMemoryMXBean();
    p.put("heap_committed_bytes", memory.getHeapMemoryUsage().getCommitted());
    p.put("non_heap_committed_bytes", memory.getNonHeapMemoryUsage().getCommitted());
    long direct = 0;
    for (java.lang.management.BufferPoolMXBean pool : java.lang.management.ManagementFactory.getPlatformMXBeans(
        java.lang.management.BufferPoolMXBean.class)) {
      direct += Math.max(0, pool.getMemoryUsed());
    }
    p.put("buffer_pool_bytes", direct);
    p.put("threads", java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount());
  }

  private String args(String subject, int n, boolean withRegion) {
    return bench.args(subject, n, withRegion);
  }

  private void say(String line) {
    bench.say(line);
  }
}
