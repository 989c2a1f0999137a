package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/** The report's floor row, baseline checks, concurrency curve and goal lines ({@link BenchGoals} computes them). */
final class BenchReportSections {
  private BenchReportSections() {}

  /** The floor row (bare + pass-through CPU per call, each side-effecting subject's ratio to it) and the baselines' checks. */
  static void floor(StringBuilder b, JsonNode r) {
    JsonNode f = r.path("floor");
    if (f.path("cpu_ms_per_call").isNumber()) {
      StringBuilder ratios = new StringBuilder();
      f.path("subjects").fields().forEachRemaining(e -> ratios.append(String.format(Locale.ROOT, "; %s %s ms = %.2fx",
          e.getKey(), BenchReport.fmt(e.getValue().path("cpu_ms_per_call").asDouble()), e.getValue().path("ratio").asDouble())));
      b.append(String.format(Locale.ROOT, "floor: bare %s ms + pass-through %s ms = %s ms of CPU per call%s%n",
          BenchReport.fmt(f.path("bare_cpu_ms").asDouble()), BenchReport.fmt(f.path("passthrough_cpu_ms").asDouble()),
          BenchReport.fmt(f.path("cpu_ms_per_call").asDouble()), ratios));
      if (f.path("cpu_ms_per_call_without_jit").isNumber()) {
        StringBuilder noJit = new StringBuilder();
        f.path("subjects").fields().forEachRemaining(e -> {
          if (e.getValue().path("ratio_without_jit").isNumber()) {
            noJit.append(String.format(Locale.ROOT, "; %s %s ms = %.2fx", e.getKey(),
                BenchReport.fmt(e.getValue().path("cpu_ms_per_call_without_jit").asDouble()), e.getValue().path("ratio_without_jit").asDouble()));
          }
        });
        b.append(String.format(Locale.ROOT, "floor without the JIT compilers' CPU: %s ms%s%n",
            BenchReport.fmt(f.path("cpu_ms_per_call_without_jit").asDouble()), noJit));
      }
    }
    for (JsonNode c : r.path("baseline_checks")) {
      b.append(String.format(Locale.ROOT, "baseline check, %s: %s: %s%n", c.path("subject").asText(),
          c.path("pass").asBoolean() ? "ok" : "SUSPECT", c.path("note").asText()));
    }
  }

  /** One line per subject and number of callers. */
  static void curve(StringBuilder b, JsonNode c) {
    if (c.isMissingNode()) {
      return;
    }
    if (c.has("error")) {
      b.append(String.format(Locale.ROOT, "%ncurve: failed: %s%n", c.path("error").asText()));
      return;
    }
    b.append(String.format(Locale.ROOT, "%nconcurrency curve (%d ms per point; load %s → %s)%n", c.path("window_ms").asLong(),
        c.path("load_before").asText(), c.path("load_after").asText()));
    b.append(String.format(Locale.ROOT, "  %-12s %8s %10s %10s %10s %10s %7s %6s %8s %9s%n", "subject", "callers", "/s", "p50", "p99",
        "CPU/call", "errors", "busy", "pending", "host idle"));
    c.path("subjects").fields().forEachRemaining(e -> {
      for (JsonNode p : e.getValue()) {
        b.append(String.format(Locale.ROOT, "  %-12s %8d %10s %10s %10s %10s %7d %6d %8d %8s%n", e.getKey(), p.path("callers").asInt(),
            BenchReport.rate(p, "throughput_per_s"), BenchReport.ms(p, "p50_ms"), BenchReport.ms(p, "p99_ms"),
            BenchReport.ms(p, "cpu_ms_per_call"), p.path("errors").asLong(), p.path("busy").asLong(), p.path("pending").asLong(),
            p.path("host_idle").isNumber() ? String.format(Locale.ROOT, "%.0f %%", p.path("host_idle").asDouble() * 100) : "?"));
        for (String first : new String[] {"first_error", "first_busy", "first_pending"}) {
          if (p.has(first)) {
            b.append("               ").append(first.replace('_', ' ')).append(": ").append(p.path(first).asText()).append('\n');
          }
        }
      }
    });
  }

  /** One PASS / FAIL / not measured line per goal. */
  static void goals(StringBuilder b, JsonNode r) {
    if (r.path("goals").isEmpty()) {
      return;
    }
    b.append(String.format(Locale.ROOT, "%ngoals (issue 27, engine %s):%n", r.path("engine_kind").asText("?")));
    for (JsonNode g : r.path("goals")) {
      String verdict = g.path("pass").isNull() ? "n/a " : g.path("pass").asBoolean() ? "PASS" : "FAIL";
      b.append(String.format(Locale.ROOT, "  %s  %-8s %s: %s%n", verdict, g.path("subject").asText(), g.path("goal").asText(),
          g.path("value").asText()));
    }
    if (r.has("goals_note")) {
      b.append("  ").append(r.path("goals_note").asText()).append('\n');
    }
  }
}
