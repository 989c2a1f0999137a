package io.onceport.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The floor row, the baselines' checks and the goal lines, computed from a result with known
 * figures: each bound on the right side of its goal, the engine's own bounds, and "not measured"
 * where a figure is missing.
 */
@Timeout(30)
class BenchGoalsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode result(String engine) throws Exception {
    return (ObjectNode) JSON.readTree("""
        {"engine_kind": "%s", "budget": {"concurrency": 16},
         "subjects": [
           {"subject": "direct", "p50_ms": 0.4, "throughput_per_s": 10000, "cpu_ms_per_call": 0.2, "host_idle": 0.01, "concurrency": 16},
           {"subject": "passthrough", "p50_ms": 3.0, "throughput_per_s": 1400, "cpu_ms_per_call": 1.0, "host_idle": 0.02, "concurrency": 16},
           {"subject": "bare", "p50_ms": 8.0, "throughput_per_s": 600, "cpu_ms_per_call": 3.0, "host_idle": 0.40, "concurrency": 16},
           {"subject": "sse", "cpu_ms_per_call": 5.0, "bytes_ratio": 11.8, "throughput_ratio": 0.61, "p50_ratio": 1.2,
            "workflow_tasks_per_call": 2.0, "jit_ratio": 7.2},
           {"subject": "json", "cpu_ms_per_call": 4.0, "bytes_ratio": 2.5, "throughput_ratio": 0.95, "p50_ratio": 1.4,
            "workflow_tasks_per_call": 3.0},
           {"subject": "read", "throughput_ratio": 2.1}],
         "curve": {"subjects": {
           "sse": [{"callers": 16, "throughput_per_s": 200, "errors": 0, "busy": 0},
                   {"callers": 64, "throughput_per_s": 210, "errors": 0, "busy": 0},
                   {"callers": 256, "throughput_per_s": 190, "errors": 0, "busy": 0}],
           "json": [{"callers": 16, "throughput_per_s": 200, "errors": 0, "busy": 0},
                    {"callers": 64, "throughput_per_s": 220, "errors": 0, "busy": 3}]}},
         "history": {"side_effecting": {"workflow_tasks": 2}},
         "storm": {"calls": 1000, "dispatches": 1, "answered": 1000},
         "memory": {"calls": 10000, "errors": 0, "heap_growth": 0.12}}
        """.formatted(engine));
  }

  private static JsonNode goal(JsonNode r, String subject, String startsWith) {
    for (JsonNode g : r.path("goals")) {
      if (g.path("subject").asText().equals(subject) && g.path("goal").asText().startsWith(startsWith)) {
        return g;
      }
    }
    throw new AssertionError("no goal '" + startsWith + "' for " + subject + " in " + r.path("goals"));
  }

  @Test
  void theFloorIsBarePlusThePassThroughAndEachSideEffectingCallIsMeasuredAgainstIt() throws Exception {
    ObjectNode r = result("embedded");
    BenchGoals.evaluate(r);
    assertEquals(4.0, r.path("floor").path("cpu_ms_per_call").asDouble(), 1e-9, r.path("floor").toString());
    assertEquals(1.25, r.path("floor").path("subjects").path("sse").path("ratio").asDouble(), 1e-9);
    assertEquals(1.0, r.path("floor").path("subjects").path("json").path("ratio").asDouble(), 1e-9);
    assertTrue(goal(r, "sse", "CPU per call").path("pass").asBoolean(), "1.25 is within ≤ 1.25");
    assertFalse(goal(r, "sse", "bytes sent").path("pass").asBoolean());
    assertTrue(goal(r, "json", "bytes sent").path("pass").asBoolean());
    assertFalse(goal(r, "json", "workflow tasks per call").path("pass").asBoolean(), "3 tasks > 2");
    assertFalse(goal(r, "sse", "JIT time").path("pass").asBoolean());
    assertTrue(goal(r, "json", "JIT time").path("pass").isNull(), "not measured: " + goal(r, "json", "JIT time"));
    assertEquals("not measured", goal(r, "json", "JIT time").path("value").asText());
  }

  @Test
  void theFloorWithoutTheJitComparesWhatEachSideCostsOnceCompiled() throws Exception {
    ObjectNode r = result("embedded");
    ((ObjectNode) r.path("subjects").get(1)).put("cpu_ms_per_call_without_jit", 0.5);
    ((ObjectNode) r.path("subjects").get(2)).put("cpu_ms_per_call_without_jit", 1.5);
    ((ObjectNode) r.path("subjects").get(4)).put("cpu_ms_per_call_without_jit", 3.0);
    BenchGoals.evaluate(r);
    JsonNode f = r.path("floor");
    assertEquals(2.0, f.path("cpu_ms_per_call_without_jit").asDouble(), 1e-9, f.toString());
    assertEquals(1.5, f.path("subjects").path("json").path("ratio_without_jit").asDouble(), 1e-9, f.toString());
    assertTrue(f.path("subjects").path("sse").path("ratio_without_jit").isMissingNode(), "sse has no figure without JIT: " + f);
    assertEquals(1.0, f.path("subjects").path("json").path("ratio").asDouble(), 1e-9, "the goal's ratio is unchanged");
    r.putArray("rounds");
    String table = BenchReport.text(r);
    assertTrue(table.contains("floor without the JIT compilers' CPU: 2.00 ms; json 3.00 ms = 1.50x"), table);
    ObjectNode none = result("embedded");
    BenchGoals.evaluate(none);
    assertTrue(none.path("floor").path("cpu_ms_per_call_without_jit").isMissingNode(), "not read, not printed");
    none.putArray("rounds");
    assertFalse(BenchReport.text(none).contains("without the JIT"));
  }

  @Test
  void theEnginesHaveTheirOwnBoundsForThroughputAndLatency() throws Exception {
    ObjectNode embedded = result("embedded");
    BenchGoals.evaluate(embedded);
    assertTrue(goal(embedded, "sse", "throughput at 16 callers ≥ 0.6").path("pass").asBoolean());
    assertTrue(goal(embedded, "sse", "C=1 p50 ≤ 1.5").path("pass").asBoolean());
    ObjectNode cli = result("temporal-cli");
    BenchGoals.evaluate(cli);
    assertFalse(goal(cli, "sse", "throughput at 16 callers ≥ 0.9").path("pass").asBoolean());
    assertTrue(goal(cli, "json", "throughput at 16 callers ≥ 0.9").path("pass").asBoolean());
    assertFalse(goal(cli, "sse", "C=1 p50 ≤ 1.1").path("pass").asBoolean());
  }

  @Test
  void highConcurrencyFailsOnABusyAnswerOrAThroughputBelowSixteenCallers() throws Exception {
    ObjectNode r = result("embedded");
    BenchGoals.evaluate(r);
    assertTrue(goal(r, "sse", "64 callers").path("pass").asBoolean());
    assertFalse(goal(r, "sse", "256 callers").path("pass").asBoolean(), "190/s is below the 16-caller 200/s");
    assertFalse(goal(r, "json", "64 callers").path("pass").asBoolean(), "3 busy answers");
    assertTrue(goal(r, "json", "256 callers").path("pass").isNull(), "not measured");
    assertTrue(goal(r, "read", "64 callers").path("pass").isNull());
  }

  @Test
  void theStormReadsWorkflowTasksAndMemoryHaveTheirGoals() throws Exception {
    ObjectNode r = result("embedded");
    BenchGoals.evaluate(r);
    assertTrue(goal(r, "storm", "storm").path("pass").asBoolean());
    assertTrue(goal(r, "read", "throughput").path("pass").asBoolean());
    assertTrue(goal(r, "history", "workflow tasks").path("pass").asBoolean());
    assertFalse(goal(r, "memory", "memory flat").path("pass").asBoolean(), "+12 % is not flat");
    assertEquals("+12.0 % over 10000 calls (0 errors)", goal(r, "memory", "memory flat").path("value").asText());
  }

  @Test
  void aBaselineThatLeavesTheHostIdleOrBeatsTheDirectCallIsSuspect() throws Exception {
    ObjectNode r = result("embedded");
    ((ObjectNode) r.path("subjects").get(1)).put("throughput_per_s", 20_000);
    BenchGoals.evaluate(r);
    JsonNode checks = r.path("baseline_checks");
    assertEquals(3, checks.size(), checks.toString());
    assertTrue(checks.get(0).path("pass").asBoolean(), checks.get(0).toString());
    assertFalse(checks.get(1).path("pass").asBoolean());
    assertTrue(checks.get(1).path("note").asText().contains("above the direct POST's"), checks.get(1).toString());
    assertFalse(checks.get(2).path("pass").asBoolean());
    assertTrue(checks.get(2).path("note").asText().startsWith("the host's CPU was 40 % idle with 16 callers"), checks.get(2).toString());
  }

  @Test
  void theTableNamesEveryGoalWithItsVerdict() throws Exception {
    ObjectNode r = result("temporal-cli");
    r.putArray("rounds");
    String table = BenchReport.text(r);
    assertTrue(table.contains("floor: bare 3.00 ms + pass-through 1.00 ms = 4.00 ms of CPU per call; sse 5.00 ms = 1.25x; json 4.00 ms = 1.00x"),
        table);
    assertTrue(table.contains("goals (issue 27, engine temporal-cli):"), table);
    assertTrue(table.contains("FAIL  sse      throughput at 16 callers ≥ 0.9 × bare: 0.610"), table);
    assertTrue(table.contains("PASS  storm    storm of 1,000 identical calls: 1 dispatch, all answered: 1000 calls: 1 dispatch(es), 1000 answered"),
        table);
    assertTrue(table.contains("baseline check, bare: SUSPECT: the host's CPU was 40 % idle"), table);
  }
}
