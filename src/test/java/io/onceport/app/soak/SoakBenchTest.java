package io.onceport.app.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.testing.TemporalCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code onceport bench --soak}: a tiny bounded run in the default suite (it starts, makes calls,
 * holds waiting executions and prints every figure), and the real soaks behind the {@code long}
 * tag ({@code mvn -B test -DexcludedGroups= -Dgroups=long -Dtest=SoakBenchTest}).
 */
class SoakBenchTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Run(int exit, String out, String err) {}

  static Run bench(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    List<String> all = new ArrayList<>(List.of("bench"));
    all.addAll(List.of(args));
    int exit = cl.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void aTinySoakStartsHoldsWaitingExecutionsAndReportsEveryFigureAsJson() throws Exception {
    Run run = bench("--soak", "4s", "--engine", "embedded", "--waiting", "3", "--interval", "2s", "--rate", "5",
        "--callers", "2", "--soak-warmup", "3", "--json");
    assertEquals(0, run.exit(), run.err());
    JsonNode report = JSON.readTree(run.out());
    JsonNode settings = report.get("settings");
    assertEquals("embedded", settings.get("engine").asText());
    assertEquals("--engine embedded", settings.get("engine_choice").asText());
    assertEquals(3, settings.get("waiting").asInt());
    assertEquals(256, settings.get("workflow_cache_size").asInt());

    List<String> phases = new ArrayList<>();
    report.get("samples").forEach(s -> phases.add(s.get("phase").asText()));
    assertEquals("baseline", phases.get(0));
    assertEquals("waiting-half", phases.get(1), "the first half of the waiting executions, then the rest");
    assertEquals(1, report.get("samples").get(1).get("waiting").asInt());
    assertEquals("waiting", phases.get(2));
    assertEquals("end", phases.get(phases.size() - 1));
    assertTrue(phases.contains("run"), phases.toString());
    for (JsonNode s : report.get("samples")) {
      assertTrue(s.at("/jvm/rss_kib").asLong() > 0, s.toString());
      assertTrue(s.at("/jvm/heap_after_gc_kib").asLong() > 0, s.toString());
      assertTrue(s.at("/jvm/threads").asLong() > 0, s.toString());
      assertTrue(s.get("engine").isNull(), "the embedded engine is inside the JVM: " + s);
      assertTrue(s.at("/history/completed/events").asLong() > 10, s.toString());
    }
    JsonNode end = report.get("samples").get(phases.size() - 1);
    assertEquals(3, end.get("waiting").asInt());
    assertTrue(end.at("/history/waiting/events").asLong() > 5, end.toString());

    JsonNode summary = report.get("summary");
    assertEquals(0, summary.get("errors").asLong(), summary.toString());
    long completed = summary.get("completed").asLong();
    assertTrue(completed >= 3 + 5, "warm-up plus calls in the steady phase: " + summary);
    assertEquals(completed, summary.get("target_requests").asLong(), "one request per completed execution, none for the waiting");
    assertEquals(0, summary.get("target_requests_without_key").asLong());
    assertEquals(3, summary.get("waiting_at_end").asLong(), "the waiting executions still wait");
    assertTrue(summary.has("per_waiting_execution") && summary.has("per_completed_execution"), summary.toString());
    assertEquals(1, summary.at("/per_waiting_execution_second_half/from_waiting").asInt(), summary.toString());
    assertEquals(3, summary.at("/per_waiting_execution_second_half/to_waiting").asInt(), summary.toString());

    // Progress went to stderr, one line per sample; the text summary reads the same report.
    assertTrue(run.err().contains("soak baseline "), run.err());
    assertTrue(run.err().contains("soak end "), run.err());
    List<String> text = SoakBench.summaryLines(report);
    assertTrue(text.get(0).startsWith("soak summary: engine embedded (--engine embedded), PT4S at rate 5.0 with 2 callers, 3 waiting"),
        text.get(0));
    assertTrue(text.stream().anyMatch(l -> l.startsWith("  per waiting execution (0 → 3 waiting): heap after GC ")), text.toString());
    assertTrue(text.stream().anyMatch(l -> l.startsWith("  per waiting execution, second half (1 → 3 waiting): ")), text.toString());
    assertTrue(text.stream().anyMatch(l -> l.startsWith("  history per execution: completed ")), text.toString());
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void aTinySoakOnTheTemporalCliMeasuresTheEngineProcessToo() {
    TemporalCli.binaryOrSkip();
    Run run = bench("--soak", "3s", "--engine", "temporal-cli", "--waiting", "2", "--interval", "2s", "--rate", "2",
        "--callers", "1", "--soak-warmup", "2");
    assertEquals(0, run.exit(), run.err());
    String end = run.out().lines().filter(l -> l.startsWith("soak end ")).findFirst().orElseThrow(() -> new AssertionError(run.out()));
    assertTrue(end.contains(" | engine rss ") && end.matches(".* db +[0-9.]+ MiB .*"), end);
    assertTrue(run.out().contains("soak summary: engine temporal-cli (--engine temporal-cli, "), run.out());
    assertTrue(run.out().contains("  completed "), run.out());
  }

  @Test
  void onlyAnAnswerSayingBusyAndRetryIsCalledAgain() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    assertTrue(SoakBench.busy(json.readTree(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"structuredContent\":{\"execution_id\":null,\"busy\":true,\"retry\":true}}}")));
    assertFalse(SoakBench.busy(json.readTree(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"structuredContent\":{\"busy\":true,\"retry\":false}}}")));
    assertFalse(SoakBench.busy(json.readTree(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"taskId\":\"t\",\"status\":\"input_required\"}}}")));
    assertFalse(SoakBench.busy(json.readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"x\"}}")));
  }

  @Test
  void badSoakOptionsAreOneLineErrors() {
    Run rate = bench("--soak", "1s", "--rate", "fast");
    assertEquals(1, rate.exit());
    assertEquals("onceport: --rate must be a number of calls per second or 'max', not 'fast'", rate.err().trim());
    Run zero = bench("--soak", "0s");
    assertEquals(1, zero.exit());
    assertEquals("onceport: Invalid soak duration: PT0S (must be positive)", zero.err().trim());
    Run duration = bench("--soak", "soon");
    assertEquals(2, duration.exit());
    assertTrue(duration.err().contains("'soon' is not a duration (PT10M, 10m, 90s, 2h)"), duration.err());
    Run engine = bench("--soak", "1s", "--engine", "sqlite");
    assertEquals(1, engine.exit());
    assertEquals("onceport: --engine must be 'auto', 'embedded' or 'temporal-cli', not 'sqlite'", engine.err().trim());
  }

  /**
   * The default engine over ten minutes of calls as fast as four callers go: heap after a full GC
   * must not grow with completed executions (the embedded engine grows about 90 KiB each).
   */
  @Test
  @Tag("long")
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void theDefaultEngineKeepsHeapFlatOverThousandsOfCompletedExecutions() throws Exception {
    Run run = bench("--soak", "10m", "--waiting", "0", "--rate", "max", "--callers", "4", "--interval", "1m", "--json");
    assertEquals(0, run.exit(), run.err());
    JsonNode summary = JSON.readTree(run.out()).get("summary");
    assertEquals(0, summary.get("errors").asLong(), summary.toString());
    assertEquals(summary.get("completed").asLong(), summary.get("target_requests").asLong());
    JsonNode per = summary.get("per_completed_execution");
    assertTrue(per.get("to_completed").asLong() - per.get("from_completed").asLong() >= 500, per.toString());
    assertTrue(per.get("heap_kib").asDouble() < 5, "heap after GC per completed execution: " + per);
  }

  /**
   * 1,000 executions waiting for session authorization with no traffic, the figures of issue 16:
   * under 5 % of a core idle and under 50 KiB of heap each (beyond the engine, which with the
   * default engine is another process). The idle CPU needs waits that do not poll.
   */
  @Test
  @Tag("long")
  @Timeout(value = 45, unit = TimeUnit.MINUTES)
  void aThousandWaitingExecutionsCostLittleMemoryAndNoIdleCpu() throws Exception {
    Run run = bench("--soak", "3m", "--waiting", "1000", "--rate", "0", "--interval", "30s", "--json");
    assertEquals(0, run.exit(), run.err());
    JsonNode summary = JSON.readTree(run.out()).get("summary");
    assertEquals(1000, summary.get("waiting_at_end").asLong(), summary.toString());
    assertTrue(summary.at("/per_waiting_execution/heap_kib").asDouble() < 50, summary.toString());
    double idle = summary.get("mean_cpu_pct_jvm").asDouble() + summary.get("mean_cpu_pct_engine").asDouble();
    assertTrue(idle < 5, "idle CPU with 1000 waiting executions: " + idle + " % of a core; " + summary);
  }
}
