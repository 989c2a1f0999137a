package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.bench.BareChild;
import io.onceport.app.bench.BenchReport;
import io.onceport.testing.TemporalCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code onceport bench} on the tiny budget: it starts what it needs, measures every subject, prints
 * its figures (as JSON and as the table), stops everything and leaves no files. Not a timed test:
 * nothing here asserts a speed, only that the bench measures and reports what it claims to.
 */
@Timeout(240)
class BenchCommandTest {
  private static final List<String> SUBJECTS = List.of("direct", "passthrough", "bare", "sse", "json", "read");

  @TempDir Path histograms;

  @Test
  void tinyBenchMeasuresEverySubjectAndPrintsItsTable() throws Exception {
    Ran ran = bench("--budget", "tiny", "--engine", "embedded", "--json", "--workflow-cache-size", "256", "--workflow-threads", "512",
        "--memory-histograms", histograms.toString());
    int code = ran.code();
    String out = ran.out();
    String err = ran.err();

    assertEquals(0, code, "bench failed; stderr:\n" + err + "\nstdout:\n" + out);
    JsonNode r = new ObjectMapper().readTree(out.toString());
    assertTrue(err.toString().contains("bench: round 1/1, load "), "the host load is printed per round:\n" + err);
    List<String> seen = new ArrayList<>();
    for (JsonNode s : r.path("subjects")) {
      seen.add(s.path("subject").asText());
      if (s.has("skipped")) {
        assertEquals("passthrough", s.path("subject").asText(), "only the pass-through may be skipped (no Node 22): " + s);
        assertFalse(s.path("skipped").asText().isBlank());
        continue;
      }
      assertEquals(0, s.path("errors").asLong(), "no call failed: " + s);
      assertEquals(3, s.path("c1_calls").asInt(), "three C=1 calls measured: " + s);
      assertTrue(s.path("p50_ms").asDouble() > 0 && s.path("p90_ms").asDouble() >= s.path("p50_ms").asDouble(), s.toString());
      assertTrue(s.path("throughput_per_s").asDouble() > 0, s.toString());
      assertTrue(s.path("cpu_ms_per_call").asDouble() > 0, s.toString());
    }
    assertEquals(SUBJECTS, seen);
    JsonNode sse = r.path("subjects").get(3);
    assertEquals("bare", sse.path("baseline").asText());
    assertTrue(sse.path("throughput_ratio").asDouble() > 0, "a side-effecting call is compared with bare Temporal: " + sse);
    // Round trips to the engine per call, counted on the bench JVM's connection: a side-effecting
    // call is one update-with-start and two workflow tasks; bare Temporal one start and two tasks.
    JsonNode rpcs = sse.path("engine_rpcs_per_call");
    assertEquals(1.0, rpcs.path("ExecuteMultiOperation").asDouble(), sse.toString());
    assertEquals(2.0, rpcs.path("RespondWorkflowTaskCompleted").asDouble(), sse.toString());
    assertEquals(1.0, rpcs.path("RespondActivityTaskCompleted").asDouble(), sse.toString());
    assertTrue(rpcs.path("(sent bytes)").asDouble() > 0, sse.toString());
    JsonNode bareRpcs = r.path("subjects").get(2).path("engine_rpcs_per_call");
    assertEquals(1.0, bareRpcs.path("StartWorkflowExecution").asDouble(), bareRpcs.toString());
    // Bare runs in a JVM of its own by default: its JIT and CPU are that JVM's, the engine's and the target's.
    assertEquals("a JVM of its own", r.path("bare").asText());
    assertEquals("the bare baseline's JVM", r.path("subjects").get(2).path("jit_jvm").asText());
    assertEquals(List.of("bare", "engine", "target"), fields(r.path("subjects").get(2).path("cpu_ms_per_call_by_process")));
    assertEquals(List.of("bench", "driver", "engine", "target"), fields(sse.path("cpu_ms_per_call_by_process")),
        "a gateway call costs the driver's JVM, the gateway's (the bench JVM), the engine and the target");
    assertEquals("the gateway's JVM", sse.path("jit_jvm").asText());
    assertEquals(List.of("driver", "target"), fields(r.path("subjects").get(0).path("cpu_ms_per_call_by_process")),
        "the direct POST does not pay for the engine or the gateway");
    assertTrue(sse.path("calls_served").asLong() >= 3 && sse.has("pending") && sse.has("busy"), sse.toString());
    assertTrue(r.path("rounds").get(0).path("jit_cpu_ms_per_call").has("sse"), r.path("rounds").toString());
    assertEquals(2.0, sse.path("workflow_tasks_per_call").asDouble(), sse.toString());
    assertTrue(sse.path("bytes_ratio").asDouble() > 1 && sse.path("jit_ms_per_call").isNumber(), sse.toString());
    assertEquals("embedded", r.path("engine_kind").asText());
    JsonNode read = r.path("subjects").get(5);
    assertEquals("passthrough", read.path("baseline").asText());
    if (!r.path("subjects").get(1).has("skipped")) {
      assertTrue(read.path("throughput_ratio").asDouble() > 0, "a read is compared with the pass-through: " + read);
    }

    assertEquals(256, r.path("budget").path("workflow_cache_size").asInt(), "the gateway's worker takes --workflow-cache-size: " + r.path("budget"));
    assertEquals(512, r.path("budget").path("workflow_threads").asInt(), r.path("budget").toString());

    if (!r.path("subjects").get(1).has("skipped")) {
      JsonNode floor = r.path("floor");
      assertEquals(r.path("subjects").get(2).path("cpu_ms_per_call").asDouble() + r.path("subjects").get(1).path("cpu_ms_per_call").asDouble(),
          floor.path("cpu_ms_per_call").asDouble(), 0.01, "the floor is bare + the pass-through: " + floor);
      assertTrue(floor.path("subjects").path("json").path("ratio").asDouble() > 0, floor.toString());
    }
    JsonNode curve = r.path("curve").path("subjects");
    for (String key : List.of("bare", "sse", "json", "read")) {
      assertEquals(2, curve.path(key).size(), "the tiny curve has 1 and 4 callers for " + key + ": " + curve);
      JsonNode four = curve.path(key).get(1);
      assertEquals(4, four.path("callers").asInt());
      assertTrue(four.path("throughput_per_s").asDouble() > 0 && four.path("p99_ms").asDouble() >= four.path("p50_ms").asDouble(),
          four.toString());
      assertEquals(0, four.path("errors").asLong(), four.toString());
      assertEquals(0, four.path("busy").asLong(), four.toString());
    }
    assertEquals(3, r.path("baseline_checks").size(), r.path("baseline_checks").toString());
    assertTrue(r.path("goals").size() >= 20, r.path("goals").toString());

    JsonNode storm = r.path("storm");
    assertEquals(20, storm.path("calls").asInt());
    assertEquals(20, storm.path("answered").asInt(), storm.toString());
    assertEquals(1, storm.path("execution_ids").asInt(), "identical calls share one execution: " + storm);
    assertEquals(1, storm.path("dispatches").asInt(), "the target saw the storm's request once: " + storm);
    assertTrue(storm.has("driver_floor_ms") && storm.has("hold_ms") && storm.has("answered_after_hold_ms"), storm.toString());

    JsonNode memory = r.path("memory");
    assertEquals(3, memory.path("points").size(), memory.toString());
    assertEquals(2, memory.path("points").get(0).path("after_calls").asInt());
    assertEquals(10, memory.path("points").get(1).path("after_calls").asInt());
    assertEquals(20, memory.path("points").get(2).path("after_calls").asInt());
    JsonNode last = memory.path("points").get(2);
    assertTrue(last.path("heap_bytes").asLong() > 0, memory.toString());
    assertTrue(last.path("heap_committed_bytes").asLong() >= last.path("heap_bytes").asLong() && last.path("threads").asInt() > 0,
        "where RSS goes: " + memory);
    assertTrue(last.path("registries").asText().matches("watches=\\d+ .*"),
        "what the front end holds at each memory point: " + last);
    Path histogram = histograms.resolve("histogram-after-20.txt");
    assertEquals(histogram.toString(), last.path("histogram").asText());
    assertTrue(Files.readString(histogram).contains("io.onceport.frontend.temporal.ExecutionDirectory"),
        "the live heap's class histogram at the last memory point names the gateway's classes");

    JsonNode history = r.path("history").path("side_effecting");
    assertTrue(history.path("workflow").asBoolean() && history.path("events").asInt() > 0, history.toString());
    long eventBytes = 0;
    for (JsonNode b : history.path("bytes_by_type")) {
      eventBytes += b.asLong();
    }
    assertTrue(eventBytes > 0 && eventBytes <= history.path("bytes").asLong() && history.path("bytes_by_type").has("activity_task_scheduled"),
        "the history's bytes by event type add up to at most its size: " + history);

    String table = BenchReport.text(r);
    for (String row : List.of("direct POST to the target", "non-durable MCP pass-through", "bare Temporal, start + wait",
        "Onceport side-effecting, SSE answer", "Onceport side-effecting, JSON answer", "Onceport read_only", "storm: 20 identical",
        "memory: 20 sequential distinct calls", "history of one side-effecting call")) {
      assertTrue(table.contains(row), "the table has '" + row + "':\n" + table);
    }
    assertTrue(table.contains("vs bare"), table);
    assertTrue(table.contains("concurrency curve") && table.contains("goals (issue 27, engine embedded):"), table);
    assertTrue(table.contains("baseline check, bare:"), table);
    assertFalse(Files.exists(Path.of(r.path("dir").asText())), "the bench deletes its temporary directory " + r.path("dir"));
  }

  @Test
  void onTheTemporalCliServerEverySubjectAndBareRunOnTheSameServer() throws Exception {
    TemporalCli.binaryOrSkip();
    Ran ran = bench("--budget", "tiny", "--engine", "temporal-cli", "--json", "--subjects", "bare,json,curve,history");
    assertEquals(0, ran.code(), "bench failed; stderr:\n" + ran.err() + "\nstdout:\n" + ran.out());
    JsonNode r = new ObjectMapper().readTree(ran.out());
    assertEquals("temporal-cli", r.path("engine_kind").asText());
    assertTrue(r.path("engine").asText().startsWith("temporal-cli (--engine temporal-cli, "), r.path("engine").asText());
    JsonNode bare = r.path("subjects").get(0);
    assertEquals(1.0, bare.path("engine_rpcs_per_call").path("StartWorkflowExecution").asDouble(), bare.toString());
    assertTrue(bare.path("cpu_ms_per_call_by_process").path("engine").asDouble() > 0, "the dev server's CPU is counted: " + bare);
    JsonNode json = r.path("subjects").get(1);
    assertEquals(0, json.path("errors").asLong(), json.toString());
    assertEquals(1.0, json.path("engine_rpcs_per_call").path("ExecuteMultiOperation").asDouble(), json.toString());
    assertTrue(json.path("cpu_ms_per_call_by_process").path("engine").asDouble() > 0, json.toString());
    assertEquals(2, r.path("curve").path("subjects").path("json").size(), r.path("curve").toString());
    assertEquals(2, r.path("history").path("side_effecting").path("workflow_tasks").asInt(), r.path("history").toString());
    assertFalse(Files.exists(Path.of(r.path("dir").asText())), "the bench deletes its temporary directory (the server's database too)");
  }

  @Test
  void withNoBareJvmTheBaselineRunsInTheBenchJvm() throws Exception {
    // A gateway property given to the bench's JVM (as a switch -Donceport.NAME=false would be) is named in the result.
    System.setProperty("onceport.bench-probe", "on");
    Ran ran;
    try {
      ran = bench("--budget", "tiny", "--engine", "embedded", "--json", "--subjects", "bare,json", "--no-bare-jvm",
          "--warmup-served", "40");
    } finally {
      System.clearProperty("onceport.bench-probe");
    }
    assertEquals(0, ran.code(), "bench failed; stderr:\n" + ran.err() + "\nstdout:\n" + ran.out());
    JsonNode r = new ObjectMapper().readTree(ran.out());
    assertEquals("on", r.path("gateway_properties").path("onceport.bench-probe").asText(), r.path("gateway_properties").toString());
    assertEquals("in the bench JVM", r.path("bare").asText());
    // --warmup-served: each subject's JVM had answered 40 calls before the measured rounds.
    assertEquals(40, r.path("budget").path("warmup_served").asLong());
    for (JsonNode round : r.path("rounds")) {
      for (String subject : List.of("bare", "json")) {
        assertTrue(round.path("calls_served_before").path(subject).asLong() >= 40, round.toString());
      }
    }
    JsonNode bare = r.path("subjects").get(0);
    assertEquals(0, bare.path("errors").asLong(), bare.toString());
    assertEquals(3, bare.path("c1_calls").asInt(), bare.toString());
    assertEquals(List.of("bench", "engine", "target"), fields(bare.path("cpu_ms_per_call_by_process")));
    assertEquals(1.0, bare.path("engine_rpcs_per_call").path("StartWorkflowExecution").asDouble(), bare.toString());
    assertEquals(0, ProcessHandle.current().descendants()
            .filter(h -> h.info().commandLine().map(c -> c.contains(BareChild.class.getName())).orElse(false)).count(),
        "no bare JVM");
  }

  @Test
  void benchRefusesABadCurveAndTheCliServerInProcessWithAMessage() {
    Ran curve = bench("--curve", "1,many");
    assertEquals(1, curve.code());
    assertTrue(curve.err().contains("--curve must be numbers of callers such as 1,16,64,256 (or none), not 1,many"), curve.err());
    Ran served = bench("--warmup-served", "-1");
    assertEquals(1, served.code());
    assertTrue(served.err().contains("warm-up until -1 calls answered (must be 0 or more)"), served.err());
    Ran inProcess = bench("--engine", "temporal-cli", "--engine-in-process");
    assertEquals(1, inProcess.code());
    assertTrue(inProcess.err().contains("--engine-in-process needs --engine embedded")
        || inProcess.err().contains("--engine temporal-cli needs the `temporal` binary"), inProcess.err());
  }

  private static List<String> fields(JsonNode o) {
    List<String> out = new ArrayList<>();
    o.fieldNames().forEachRemaining(out::add);
    return out;
  }

  @Test
  void benchRefusesAnUnknownBudgetWithAMessage() {
    Ran ran = bench("--budget", "huge");
    assertEquals(1, ran.code());
    assertTrue(ran.err().contains("--budget must be standard or tiny, not huge"), ran.err());
  }

  private record Ran(int code, String out, String err) {}

  /** {@code onceport bench ARGS} in this JVM, its output and errors kept. */
  private static Ran bench(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 1];
    all[0] = "bench";
    System.arraycopy(args, 0, all, 1, args.length);
    int code = cl.execute(all);
    return new Ran(code, out.toString(), err.toString());
  }
}
