package io.onceport.app.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.engine.LocalEngine;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a soak prints: a progress line per sample, the JSON report with its summary (per waiting
 * and per completed execution, steady-phase CPU and heap, history sizes), and the summary as text.
 */
final class SoakReport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long KIB = 1024;

  private SoakReport() {}

  /** One sample as a progress line. */
  static String line(JsonNode s) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("soak %-8s t=%6.0fs completed %7d (%6.1f/s) waiting %5d errors %d | jvm rss %7.1f MiB heap %7.1f MiB threads %4d (workflow %4d) cpu %5.1f%%",
        s.get("phase").asText(), s.get("elapsed_s").asDouble(), s.get("completed").asLong(), s.get("calls_per_s").asDouble(),
        s.get("waiting").asLong(), s.get("errors").asLong(),
        s.at("/jvm/rss_kib").asLong() / 1024.0, s.at("/jvm/heap_after_gc_kib").asLong() / 1024.0,
        s.at("/jvm/threads").asLong(), s.at("/jvm/workflow_threads").asLong(), s.at("/jvm/cpu_pct").asDouble()));
    if (s.get("engine").isObject()) {
      b.append(String.format(" | engine rss %7.1f MiB threads %4d cpu %5.1f%% db %7.1f MiB",
          s.at("/engine/rss_kib").asLong() / 1024.0, s.at("/engine/threads").asLong(), s.at("/engine/cpu_pct").asDouble(),
          s.at("/engine/database_kib").asLong() / 1024.0));
    }
    b.append(" | history");
    for (String kind : List.of("completed", "waiting")) {
      JsonNode h = s.at("/history/" + kind);
      b.append(h.isObject()
          ? String.format(" %s %d events %.1f KiB", kind, h.get("events").asLong(), h.get("bytes").asLong() / 1024.0)
          : " " + kind + " -");
    }
    return b.toString();
  }

  /** The report: {@code settings}, the run's {@code samples}, and the {@code summary} derived from them. */
  static ObjectNode report(SoakSettings settings, SoakRun run, LocalEngine engine, double engineStartSeconds, long stillWaiting) {
    ObjectNode r = JSON.createObjectNode();
    ObjectNode s = r.putObject("settings");
    putSettings(s, settings, engine, engineStartSeconds);
    r.set("samples", run.samples);
    ObjectNode sum = r.putObject("summary");
    JsonNode baseline = find(run.samples, "baseline");
    JsonNode waitingSample = find(run.samples, "waiting");
    JsonNode last = run.samples.get(run.samples.size() - 1);
    sum.put("completed", last.get("completed").asLong());
    sum.put("errors", last.get("errors").asLong());
    sum.put("first_error", run.firstError.get());
    sum.put("target_requests", run.target.requests());
    sum.put("target_requests_without_key", run.target.requestsWithoutKey());
    sum.put("waiting_at_end", stillWaiting);
    sum.put("waiting_busy_retries", run.busyRetries.get());
    if (settings.waiting() > 0) {
      sum.set("per_waiting_execution", perWaiting(baseline, waitingSample));
    }
    JsonNode half = findOrNull(run.samples, "waiting-half");
    if (half != null && waitingSample.get("waiting").asLong() > half.get("waiting").asLong()) {
      // The second half alone: what one more waiting execution costs once the first half grew the pools.
      sum.set("per_waiting_execution_second_half", perWaiting(half, waitingSample));
    }
    long calls = last.get("completed").asLong() - waitingSample.get("completed").asLong();
    if (calls > 0) {
      ObjectNode c = sum.putObject("per_completed_execution");
      c.put("from_completed", waitingSample.get("completed").asLong());
      c.put("to_completed", last.get("completed").asLong());
      c.put("heap_kib", round((heapKib(last) - heapKib(waitingSample)) / (double) calls));
      c.put("jvm_rss_kib", round((rssKib(last, "jvm") - rssKib(waitingSample, "jvm")) / (double) calls));
      c.put("engine_rss_kib", round((rssKib(last, "engine") - rssKib(waitingSample, "engine")) / (double) calls));
    }
    List<JsonNode> steady = new ArrayList<>();
    run.samples.forEach(x -> {
      if (x.get("phase").asText().equals("run") || x.get("phase").asText().equals("end")) {
        steady.add(x);
      }
    });
    if (!steady.isEmpty()) {
      sum.put("mean_cpu_pct_jvm", round(steady.stream().mapToDouble(x -> x.at("/jvm/cpu_pct").asDouble()).average().orElse(0)));
      sum.put("mean_cpu_pct_engine", round(steady.stream().mapToDouble(x -> x.at("/engine/cpu_pct").asDouble(0)).average().orElse(0)));
      JsonNode maxHeap = steady.stream().max(Comparator.comparingLong(x -> x.at("/jvm/heap_after_gc_kib").asLong())).orElseThrow();
      sum.put("max_heap_after_gc_kib", maxHeap.at("/jvm/heap_after_gc_kib").asLong());
    }
    sum.set("history_completed", last.at("/history/completed"));
    sum.set("history_waiting_first", waitingSample.at("/history/waiting"));
    sum.set("history_waiting_last", last.at("/history/waiting"));
    return r;
  }

  /** Growth from {@code from} to {@code to} divided by the waiting executions created between them. */
  private static ObjectNode perWaiting(JsonNode from, JsonNode to) {
    double n = to.get("waiting").asLong() - from.get("waiting").asLong();
    ObjectNode w = JSON.createObjectNode();
    w.put("from_waiting", from.get("waiting").asLong());
    w.put("to_waiting", to.get("waiting").asLong());
    w.put("heap_kib", round((heapKib(to) - heapKib(from)) / n));
    w.put("jvm_rss_kib", round((rssKib(to, "jvm") - rssKib(from, "jvm")) / n));
    w.put("engine_rss_kib", round((rssKib(to, "engine") - rssKib(from, "engine")) / n));
    w.put("jvm_threads", round((to.at("/jvm/threads").asLong() - from.at("/jvm/threads").asLong()) / n));
    return w;
  }

  /** What the soak ran with: duration, engine (and how long it took to start), load, worker tuning, heap. */
  private static void putSettings(ObjectNode s, SoakSettings settings, LocalEngine engine, double engineStartSeconds) {
    s.put("duration", settings.duration().toString());
    s.put("engine", engine.kind().wireName());
    s.put("engine_choice", engine.choice().why());
    s.put("engine_start_s", Math.round(engineStartSeconds * 10) / 10.0);
    s.put("waiting", settings.waiting());
    s.put("waiting_per_session", settings.waitingPerSession());
    if (Double.isInfinite(settings.rate())) {
      s.put("rate", "max");
    } else {
      s.put("rate", settings.rate());
    }
    s.put("callers", settings.callers());
    s.put("interval", settings.interval().toString());
    s.put("warmup", settings.warmup());
    s.put("workflow_cache_size", settings.tuning().workflowCacheSize());
    s.put("workflow_threads", settings.tuning().maxWorkflowThreads());
    s.put("approval_timeout", settings.effectiveApprovalTimeout().toString());
    s.put("max_heap_mib", Runtime.getRuntime().maxMemory() / KIB / KIB);
  }

  /** The summary as text lines. */
  public static List<String> summaryLines(JsonNode report) {
    JsonNode s = report.get("settings");
    JsonNode m = report.get("summary");
    List<String> out = new ArrayList<>();
    out.add(String.format("soak summary: engine %s (%s), %s at rate %s with %d callers, %d waiting (%d per session), "
            + "worker cache %d / threads %d, max heap %d MiB",
        s.get("engine").asText(), s.get("engine_choice").asText(), s.get("duration").asText(), s.get("rate").asText(),
        s.get("callers").asInt(), s.get("waiting").asInt(), s.get("waiting_per_session").asInt(),
        s.get("workflow_cache_size").asInt(), s.get("workflow_threads").asInt(), s.get("max_heap_mib").asLong()));
    out.add(String.format("  completed %d (errors %d), target requests %d (%d without an Idempotency-Key), still waiting at the end %d"
            + " (calls made again while creating them, busy or timed out: %d)",
        m.get("completed").asLong(), m.get("errors").asLong(), m.get("target_requests").asLong(),
        m.get("target_requests_without_key").asLong(), m.get("waiting_at_end").asLong(), m.path("waiting_busy_retries").asLong()));
    if (m.has("per_completed_execution")) {
      JsonNode c = m.get("per_completed_execution");
      out.add(String.format("  per completed execution (%d → %d): heap after GC %+.2f KiB, jvm RSS %+.2f KiB, engine RSS %+.2f KiB",
          c.get("from_completed").asLong(), c.get("to_completed").asLong(), c.get("heap_kib").asDouble(),
          c.get("jvm_rss_kib").asDouble(), c.get("engine_rss_kib").asDouble()));
    }
    for (String k : List.of("per_waiting_execution", "per_waiting_execution_second_half")) {
      JsonNode w = m.get(k);
      if (w == null) {
        continue;
      }
      out.add(String.format("  %s (%d → %d waiting): heap after GC %+.2f KiB, jvm RSS %+.2f KiB, engine RSS %+.2f KiB, jvm threads %+.3f",
          k.equals("per_waiting_execution") ? "per waiting execution" : "per waiting execution, second half",
          w.path("from_waiting").asLong(), w.path("to_waiting").asLong(),
          w.get("heap_kib").asDouble(), w.get("jvm_rss_kib").asDouble(), w.get("engine_rss_kib").asDouble(),
          w.get("jvm_threads").asDouble()));
    }
    if (m.has("mean_cpu_pct_jvm")) {
      out.add(String.format("  steady phase: mean CPU jvm %.1f%% + engine %.1f%% of a core; max heap after GC %.1f MiB",
          m.get("mean_cpu_pct_jvm").asDouble(), m.get("mean_cpu_pct_engine").asDouble(), m.get("max_heap_after_gc_kib").asLong() / 1024.0));
    }
    out.add("  history per execution: completed " + historyText(m.get("history_completed")) + "; waiting "
        + historyText(m.get("history_waiting_first")) + " after creation, " + historyText(m.get("history_waiting_last")) + " at the end");
    return out;
  }

  private static String historyText(JsonNode h) {
    return h == null || !h.isObject() ? "-" : String.format("%d events %.1f KiB", h.get("events").asLong(), h.get("bytes").asLong() / 1024.0);
  }

  private static JsonNode find(ArrayNode samples, String phase) {
    JsonNode s = findOrNull(samples, phase);
    if (s == null) {
      throw new IllegalStateException("no " + phase + " sample");
    }
    return s;
  }

  private static JsonNode findOrNull(ArrayNode samples, String phase) {
    for (JsonNode s : samples) {
      if (s.get("phase").asText().equals(phase)) {
        return s;
      }
    }
    return null;
  }

  private static long heapKib(JsonNode s) {
    return s.at("/jvm/heap_after_gc_kib").asLong();
  }

  private static long rssKib(JsonNode s, String which) {
    return s.at("/" + which + "/rss_kib").asLong(0);
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
