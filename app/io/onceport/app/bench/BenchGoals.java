package io.onceport.app.bench;

import static io.onceport.app.bench.Bench.put;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;

/**
 * What a run's figures say against issue 27's goals, read from the result itself (so {@code --report}
 * gives them for a saved run too):
 *
 * <ul>
 *   <li>the <b>floor</b> row: the CPU per call of bare Temporal plus the non-durable MCP pass-through
 *       — what a durable MCP call cannot go below, since it does both one's work and the other's —
 *       and each side-effecting subject's ratio to it;
 *   <li>each <b>baseline checked against its physical floor</b>: not faster than the direct POST,
 *       and its 16 callers kept the host's CPU busy (a baseline that leaves the CPU idle waits on
 *       something, as every baseline did on the demo target's delayed ACKs before 2026-12-06);
 *   <li>one pass/fail line per <b>goal</b>, with the figure and the goal's bound (engine-dependent
 *       bounds by the run's engine). A goal whose figures were not measured says so (null).
 * </ul>
 */
final class BenchGoals {
  static final List<String> SIDE_EFFECTING = List.of("sse", "json");
  /** Above this idle share of the host's CPU with 16 callers, a baseline is waiting, not working. */
  static final double WAITING_IDLE = 0.15;

  private BenchGoals() {}

  /** Adds {@code floor}, {@code baseline_checks} and {@code goals} to {@code r}. */
  static void evaluate(ObjectNode r) {
    floor(r);
    baselineChecks(r);
    ArrayNode goals = r.putArray("goals");
    boolean cli = "temporal-cli".equals(r.path("engine_kind").asText());
    JsonNode bare = subject(r, "bare");
    for (String key : SIDE_EFFECTING) {
      JsonNode s = subject(r, key);
      if (s.isMissingNode() || s.has("skipped")) {
        continue;
      }
      goal(goals, key, "CPU per call ≤ 1.25 × (bare + pass-through)", r.path("floor").path("subjects").path(key).path("ratio"), 1.25, true);
      goal(goals, key, "bytes sent to the engine per call ≤ 3 × bare's", s.path("bytes_ratio"), 3.0, true);
      goal(goals, key, "throughput at 16 callers ≥ " + (cli ? "0.9" : "0.6") + " × bare", throughputAt16(r, s, key), cli ? 0.9 : 0.6, false);
      goal(goals, key, "C=1 p50 ≤ " + (cli ? "1.1" : "1.5") + " × bare", s.path("p50_ratio"), cli ? 1.1 : 1.5, true);
      goal(goals, key, "workflow tasks per call ≤ 2 (throughput batches)", s.path("workflow_tasks_per_call"), 2.0, true);
      boolean cpu = s.has("jit_cpu_ratio");
      ObjectNode jit = goal(goals, key, "JIT " + (cpu ? "CPU" : "time") + " per call ≤ 2 × bare's (steady state)",
          cpu ? s.path("jit_cpu_ratio") : s.path("jit_ratio"), 2.0, true);
      if (s.has("calls_served") && bare.has("calls_served") && !jit.path("pass").isNull()) {
        // A JVM's JIT settles with the calls it has answered, not with time: say how far each had got.
        jit.put("value", jit.path("value").asText() + String.format(Locale.ROOT, " (%s ms vs %s ms; %,d vs %,d calls answered)",
            s.path(cpu ? "jit_cpu_ms_per_call" : "jit_ms_per_call").asText(), bare.path(cpu ? "jit_cpu_ms_per_call" : "jit_ms_per_call").asText(),
            s.path("calls_served").asLong(), bare.path("calls_served").asLong()));
      }
    }
    for (String key : List.of("sse", "json", "read")) {
      if (!subject(r, key).isMissingNode()) {
        highConcurrency(goals, r, key);
      }
    }
    goal(goals, "read", "throughput ≥ 1.0 × the pass-through", subject(r, "read").path("throughput_ratio"), 1.0, false);
    goal(goals, "history", "workflow tasks of one side-effecting call ≤ 2",
        r.path("history").path("side_effecting").path("workflow_tasks"), 2.0, true);
    storm(goals, r.path("storm"));
    memory(goals, r.path("memory"));
    if (bare.isMissingNode()) {
      r.put("goals_note", "no bare baseline in this run: the ratios to it are not measured");
    }
  }

  private static JsonNode subject(JsonNode r, String key) {
    for (JsonNode s : r.path("subjects")) {
      if (key.equals(s.path("subject").asText())) {
        return s;
      }
    }
    return McpDriver.JSON.missingNode();
  }

  /** Bare + pass-through CPU per call, and each side-effecting subject's CPU per call over it. */
  private static void floor(ObjectNode r) {
    JsonNode bare = subject(r, "bare");
    JsonNode pass = subject(r, "passthrough");
    if (!bare.path("cpu_ms_per_call").isNumber() || !pass.path("cpu_ms_per_call").isNumber()) {
      return;
    }
    ObjectNode f = r.putObject("floor");
    double floor = bare.path("cpu_ms_per_call").asDouble() + pass.path("cpu_ms_per_call").asDouble();
    put(f, "bare_cpu_ms", bare.path("cpu_ms_per_call").asDouble());
    put(f, "passthrough_cpu_ms", pass.path("cpu_ms_per_call").asDouble());
    put(f, "cpu_ms_per_call", floor);
    // the same without any JVM's compiler threads: what the floor and each subject cost once compiled
    boolean noJit = bare.path("cpu_ms_per_call_without_jit").isNumber() && pass.path("cpu_ms_per_call_without_jit").isNumber();
    double floorNoJit = bare.path("cpu_ms_per_call_without_jit").asDouble() + pass.path("cpu_ms_per_call_without_jit").asDouble();
    if (noJit) {
      put(f, "cpu_ms_per_call_without_jit", floorNoJit);
    }
    ObjectNode subjects = f.putObject("subjects");
    for (String key : SIDE_EFFECTING) {
      JsonNode s = subject(r, key);
      if (s.path("cpu_ms_per_call").isNumber()) {
        ObjectNode o = subjects.putObject(key);
        put(o, "cpu_ms_per_call", s.path("cpu_ms_per_call").asDouble());
        put(o, "ratio", s.path("cpu_ms_per_call").asDouble() / floor);
        if (noJit && s.path("cpu_ms_per_call_without_jit").isNumber()) {
          put(o, "cpu_ms_per_call_without_jit", s.path("cpu_ms_per_call_without_jit").asDouble());
          put(o, "ratio_without_jit", s.path("cpu_ms_per_call_without_jit").asDouble() / floorNoJit);
        }
      }
    }
  }

  /** Each baseline against the direct POST and against waiting: see the class comment. */
  private static void baselineChecks(ObjectNode r) {
    JsonNode direct = subject(r, "direct");
    ArrayNode checks = r.putArray("baseline_checks");
    for (String key : List.of("direct", "passthrough", "bare")) {
      JsonNode s = subject(r, key);
      if (!s.path("throughput_per_s").isNumber()) {
        continue;
      }
      ObjectNode c = checks.addObject();
      c.put("subject", key);
      double idle = s.path("host_idle").asDouble(Double.NaN);
      double cores = s.path("throughput_per_s").asDouble() * s.path("cpu_ms_per_call").asDouble() / 1000;
      put(c, "host_idle", idle);
      put(c, "own_cores", cores);
      StringBuilder why = new StringBuilder();
      if (!Double.isNaN(idle) && idle > WAITING_IDLE) {
        why.append(String.format(Locale.ROOT, "the host's CPU was %.0f %% idle with %d callers: it waits on something "
            + "other than CPU; ", idle * 100, s.path("concurrency").asInt()));
      }
      if (!key.equals("direct") && direct.path("p50_ms").isNumber()) {
        if (s.path("p50_ms").asDouble() < direct.path("p50_ms").asDouble()) {
          why.append("its C=1 p50 is below the direct POST's: the direct POST is capped; ");
        }
        if (s.path("throughput_per_s").asDouble() > direct.path("throughput_per_s").asDouble()) {
          why.append("its throughput is above the direct POST's: the direct POST is capped; ");
        }
      }
      c.put("pass", why.length() == 0);
      c.put("note", why.length() == 0 ? String.format(Locale.ROOT, "CPU-bound (host idle %.0f %%, %.2f cores its own)", idle * 100, cores)
          : why.substring(0, why.length() - 2));
    }
  }

  /** The 16-caller throughput ratio: the rounds' when they ran with 16 callers, else the curve's 16-caller point. */
  private static JsonNode throughputAt16(JsonNode r, JsonNode s, String key) {
    if (r.path("budget").path("concurrency").asInt() == 16) {
      return s.path("throughput_ratio");
    }
    JsonNode own = curvePoint(r, key, 16);
    JsonNode bare = curvePoint(r, "bare", 16);
    if (own.path("throughput_per_s").isNumber() && bare.path("throughput_per_s").asDouble() > 0) {
      return McpDriver.JSON.getNodeFactory().numberNode(own.path("throughput_per_s").asDouble() / bare.path("throughput_per_s").asDouble());
    }
    return McpDriver.JSON.missingNode();
  }

  private static JsonNode curvePoint(JsonNode r, String key, int callers) {
    for (JsonNode p : r.path("curve").path("subjects").path(key)) {
      if (p.path("callers").asInt() == callers) {
        return p;
      }
    }
    return McpDriver.JSON.missingNode();
  }

  /** At 64 and 256 callers: no failures, no busy answers, throughput not below the 16-caller point's. */
  private static void highConcurrency(ArrayNode goals, JsonNode r, String key) {
    JsonNode at16 = curvePoint(r, key, 16);
    for (int callers : new int[] {64, 256}) {
      JsonNode p = curvePoint(r, key, callers);
      ObjectNode g = goals.addObject();
      g.put("subject", key);
      g.put("goal", callers + " callers: no errors, no busy answers, none answered before its outcome, throughput ≥ the 16-caller figure");
      if (p.isMissingNode() || at16.isMissingNode()) {
        g.putNull("pass");
        g.put("value", "not measured (--curve with 16 and " + callers + ")");
        continue;
      }
      double ratio = p.path("throughput_per_s").asDouble() / at16.path("throughput_per_s").asDouble();
      boolean pass = p.path("errors").asLong() == 0 && p.path("busy").asLong() == 0 && p.path("pending").asLong() == 0 && ratio >= 1.0;
      g.put("pass", pass);
      g.put("value", String.format(Locale.ROOT, "%d errors, %d busy, %d pending, %.0f/s = %.2f × the 16-caller %.0f/s",
          p.path("errors").asLong(), p.path("busy").asLong(), p.path("pending").asLong(), p.path("throughput_per_s").asDouble(), ratio,
          at16.path("throughput_per_s").asDouble()));
    }
  }

  private static void storm(ArrayNode goals, JsonNode st) {
    ObjectNode g = goals.addObject();
    g.put("subject", "storm");
    g.put("goal", "storm of 1,000 identical calls: 1 dispatch, all answered");
    if (st.isMissingNode() || st.has("error")) {
      g.putNull("pass");
      g.put("value", st.isMissingNode() ? "not measured" : "failed: " + st.path("error").asText());
      return;
    }
    int calls = st.path("calls").asInt();
    boolean pass = st.path("dispatches").asInt() == 1 && st.path("answered").asInt() == calls;
    g.put("pass", pass);
    g.put("value", String.format(Locale.ROOT, "%d calls: %d dispatch(es), %d answered%s", calls, st.path("dispatches").asInt(),
        st.path("answered").asInt(), calls < 1000 ? " (fewer calls than the goal's 1,000)" : ""));
  }

  private static void memory(ArrayNode goals, JsonNode m) {
    ObjectNode g = goals.addObject();
    g.put("subject", "memory");
    g.put("goal", "memory flat over 10,000 calls: heap after full GC within 10 % from the first point (a tenth of the calls)");
    if (!m.path("heap_growth").isNumber()) {
      g.putNull("pass");
      g.put("value", m.has("error") ? "failed: " + m.path("error").asText() : "not measured");
      return;
    }
    double growth = m.path("heap_growth").asDouble();
    g.put("pass", growth <= 0.10 && m.path("errors").asInt() == 0);
    g.put("value", String.format(Locale.ROOT, "%+.1f %% over %d calls (%d errors)%s", growth * 100, m.path("calls").asInt(),
        m.path("errors").asInt(), m.path("calls").asInt() < 10_000 ? " (fewer calls than the goal's 10,000)" : ""));
  }

  /** A goal on one figure: {@code atMost} for an upper bound, else a lower bound; null when not measured. */
  private static ObjectNode goal(ArrayNode goals, String subject, String text, JsonNode value, double bound, boolean atMost) {
    ObjectNode g = goals.addObject();
    g.put("subject", subject);
    g.put("goal", text);
    if (!value.isNumber()) {
      g.putNull("pass");
      g.put("value", "not measured");
      return g;
    }
    double v = value.asDouble();
    g.put("pass", atMost ? v <= bound : v >= bound);
    g.put("value", String.format(Locale.ROOT, "%.3g", v));
    return g;
  }
}
