package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The bench's JSON result as a table and a few lines, for people. */
public final class BenchReport {
  private BenchReport() {}

  public static String text(JsonNode saved) {
    JsonNode r = saved;
    if (!saved.has("goals") && saved instanceof ObjectNode o) {
      ObjectNode copy = o.deepCopy(); // a run saved before the goals were computed
      BenchGoals.evaluate(copy);
      r = copy;
    }
    StringBuilder b = new StringBuilder();
    JsonNode budget = r.path("budget");
    b.append(String.format(Locale.ROOT, "onceport bench: %d round(s); C=1: %d calls of each subject after %d warm-up;"
            + " throughput: %d callers for %d ms per subject and round; engine %s; tool %s%n",
        budget.path("rounds").asInt(), budget.path("calls").asInt(), budget.path("warmup").asInt(),
        budget.path("concurrency").asInt(), budget.path("window_ms").asLong(), r.path("engine").asText(), r.path("tool").asText()));
    if (r.path("gateway_properties").size() > 0) {
      b.append("gateway JVM properties: ").append(r.path("gateway_properties")).append(System.lineSeparator());
    }
    if (r.has("load_at_start")) {
      b.append(String.format(Locale.ROOT, "load at start %s, at end %s%n", r.path("load_at_start").asText(), r.path("load_at_end").asText()));
    }
    for (JsonNode round : r.path("rounds")) {
      StringBuilder jit = new StringBuilder();
      round.path("jit_cpu_ms_per_call").fields().forEachRemaining(e -> jit.append(jit.length() == 0 ? "; JIT CPU per call " : ", ")
          .append(e.getKey()).append(' ').append(fmt(e.getValue().asDouble())).append(" ms after ")
          .append(String.format(Locale.ROOT, "%,d", round.path("calls_served_before").path(e.getKey()).asLong())).append(" calls"));
      b.append(String.format(Locale.ROOT, "round %d: load %s → %s%s%n", round.path("round").asInt(),
          round.path("load_before").asText(), round.path("load_after").asText(), jit));
    }
    subjects(b, r, budget);
    b.append(String.format(Locale.ROOT, "CPU per call counts %s.%n", r.path("cpu_counts").asText()));
    BenchReportSections.floor(b, r);
    BenchReportSections.curve(b, r.path("curve"));
    for (String section : new String[] {"history", "storm", "memory"}) {
      if (r.path(section).has("error")) {
        b.append(String.format(Locale.ROOT, "%n%s: failed: %s%n", section, r.path(section).path("error").asText()));
      }
    }
    JsonNode h = r.path("history");
    if (!h.isMissingNode() && !h.has("error")) {
      b.append(String.format(Locale.ROOT, "%nhistory of one side-effecting call: %s%n", history(h.path("side_effecting"))));
      b.append(String.format(Locale.ROOT, "history of one read_only call:      %s%n", history(h.path("read_only"))));
    }
    storm(b, r.path("storm"));
    memory(b, r.path("memory"));
    BenchReportSections.goals(b, r);
    b.append(String.format(Locale.ROOT, "%nbench took %.1f s%n", r.path("seconds").asDouble()));
    return b.toString();
  }

  /** The subjects' table: latency at C=1, throughput at C=concurrency, CPU and JIT per call, and each ratio to its baseline. */
  private static void subjects(StringBuilder b, JsonNode r, JsonNode budget) {
    int c = budget.path("concurrency").asInt();
    b.append(String.format(Locale.ROOT, "%n%-54s %9s %9s %10s %10s %10s   %s%n", "subject", "C=1 p50", "C=1 p90", "C=" + c + " /s",
        "CPU/call", "JIT CPU", "ratio to baseline: p50 / throughput / CPU"));
    for (JsonNode s : r.path("subjects")) {
      if (s.has("skipped")) {
        b.append(String.format(Locale.ROOT, "%-54s skipped: %s%n", s.path("label").asText(), s.path("skipped").asText()));
        continue;
      }
      String ratio = s.has("baseline")
          ? s.has("p50_ratio") ? String.format(Locale.ROOT, "%s / %s / %s vs %s", x(s, "p50_ratio"), x(s, "throughput_ratio"),
              x(s, "cpu_ratio"), s.path("baseline").asText()) : "no " + s.path("baseline").asText() + " baseline"
          : "(baseline)";
      b.append(String.format(Locale.ROOT, "%-54s %9s %9s %10s %10s %10s   %s%s%s%n", s.path("label").asText(), ms(s, "p50_ms"),
          ms(s, "p90_ms"), rate(s, "throughput_per_s"), ms(s, "cpu_ms_per_call"),
          ms(s, s.has("jit_cpu_ms_per_call") ? "jit_cpu_ms_per_call" : "jit_ms_per_call"), ratio,
          s.path("errors").asLong() > 0 ? "   ERRORS " + s.path("errors").asLong() + ": " + s.path("first_error").asText() : "",
          (s.path("busy").asLong() > 0 ? "   BUSY " + s.path("busy").asLong() : "")
              + (s.path("pending").asLong() > 0 ? "   PENDING " + s.path("pending").asLong() : "")));
    }
    for (JsonNode s : r.path("subjects")) {
      JsonNode rpcs = s.path("engine_rpcs_per_call");
      if (rpcs.size() > 1) {
        StringBuilder calls = new StringBuilder();
        rpcs.fields().forEachRemaining(e -> {
          if (!e.getKey().startsWith("bytes") && !e.getKey().startsWith("(") && e.getValue().asDouble() >= 0.01) {
            calls.append(calls.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(fmt(e.getValue().asDouble()));
          }
        });
        b.append(String.format(Locale.ROOT, "  %s: %,.0f bytes sent to the engine per call%s; gRPC calls per call: %s%n",
            s.path("subject").asText(), rpcs.path("(sent bytes)").asDouble(),
            s.path("bytes_ratio").isNumber() ? String.format(Locale.ROOT, " (%.2fx %s's)", s.path("bytes_ratio").asDouble(),
                s.path("baseline").asText()) : "", calls));
      }
    }
    for (JsonNode s : r.path("subjects")) {
      JsonNode by = s.path("cpu_ms_per_call_by_process");
      if (by.size() > 0) {
        StringBuilder parts = new StringBuilder();
        by.fields().forEachRemaining(e -> parts.append(parts.length() == 0 ? "" : ", ").append(e.getKey()).append(' ')
            .append(fmt(e.getValue().asDouble())).append(" ms"));
        b.append(String.format(Locale.ROOT, "  %s: CPU per call by process: %s; JIT in %s: %s CPU (%s elapsed); host idle %s%n",
            s.path("subject").asText(), parts, s.path("jit_jvm").asText("?"), ms(s, "jit_cpu_ms_per_call"), ms(s, "jit_ms_per_call"),
            s.path("host_idle").isNumber()
                ? String.format(Locale.ROOT, "%.0f %%", s.path("host_idle").asDouble() * 100) : "?"));
      }
    }
  }

  /** The storm of identical calls: how many dispatches it caused and how its callers were answered. */
  private static void storm(StringBuilder b, JsonNode st) {
    if (!st.isMissingNode() && !st.has("error")) {
      b.append(String.format(Locale.ROOT, "%nstorm: %d identical concurrent calls → %d dispatch(es), %d answered (%d completed), "
              + "%d distinct execution id(s), %d ms (driver floor %s ms; the target held the action %s ms; "
              + "last caller answered %s ms after the target's answer, %s ms beyond the driver floor)%n",
          st.path("calls").asInt(), st.path("dispatches").asInt(), st.path("answered").asInt(), st.path("completed").asInt(),
          st.path("execution_ids").asInt(), st.path("elapsed_ms").asLong(), st.path("driver_floor_ms").asText("?"),
          st.path("hold_ms").asText("?"), st.path("answered_after_hold_ms").asText("?"), st.path("beyond_floor_ms").asText("?")));
      if (st.has("unanswered")) {
        st.path("unanswered").fields().forEachRemaining(e ->
            b.append(String.format(Locale.ROOT, "  unanswered: %d × %s%n", e.getValue().asInt(), e.getKey())));
      }
    }
  }

  /** Memory over sequential distinct calls: each measured point and the growth between the first and last. */
  private static void memory(StringBuilder b, JsonNode m) {
    if (!m.isMissingNode() && !m.has("error")) {
      b.append(String.format(Locale.ROOT, "%nmemory: %d sequential distinct calls (%d completed, %d errors) in %.1f s%n",
          m.path("calls").asInt(), m.path("completed_calls").asInt(), m.path("errors").asInt(), m.path("seconds").asDouble()));
      for (JsonNode p : m.path("points")) {
        b.append(String.format(Locale.ROOT, "  after %6d calls: gateway JVM heap after full GC %7.1f MB, RSS %7.1f MB%s%n",
            p.path("after_calls").asInt(), mb(p.path("heap_bytes").asLong()), mb(p.path("rss_bytes").asLong()),
            p.has("engine_rss_bytes") ? String.format(Locale.ROOT, "; engine RSS %7.1f MB", mb(p.path("engine_rss_bytes").asLong())) : ""));
      }
      if (m.has("heap_growth")) {
        b.append(String.format(Locale.ROOT, "  growth: heap %s, RSS %s%s%n", pct(m, "heap_growth"), pct(m, "rss_growth"),
            m.has("engine_rss_growth") ? ", engine RSS " + pct(m, "engine_rss_growth") : ""));
      }
      if (m.has("stopped_early")) {
        b.append("  ").append(m.path("stopped_early").asText()).append('\n');
      }
    }
  }

  private static String history(JsonNode h) {
    if (h.has("error")) {
      return h.path("error").asText();
    }
    if (!h.path("workflow").asBoolean()) {
      return h.path("note").asText("no workflow");
    }
    return String.format(Locale.ROOT, "%d events, %.1f KB, %d workflow tasks%s", h.path("events").asInt(),
        h.path("bytes").asLong() / 1024.0, h.path("workflow_tasks").asInt(), h.path("closed").asBoolean() ? "" : " (still open)");
  }

  static String ms(JsonNode s, String f) {
    return s.path(f).isNumber() ? fmt(s.path(f).asDouble()) + " ms" : "—";
  }

  static String rate(JsonNode s, String f) {
    return s.path(f).isNumber() ? String.format(Locale.ROOT, "%,.0f", s.path(f).asDouble()) : "—";
  }

  private static String x(JsonNode s, String f) {
    return s.path(f).isNumber() ? String.format(Locale.ROOT, "%.2fx", s.path(f).asDouble()) : "—";
  }

  private static String pct(JsonNode s, String f) {
    return s.path(f).isNumber() ? String.format(Locale.ROOT, "%+.1f %%", s.path(f).asDouble() * 100) : "—";
  }

  static String fmt(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : v >= 10 ? String.format(Locale.ROOT, "%.1f", v)
        : String.format(Locale.ROOT, "%.2f", v);
  }

  private static double mb(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
