package io.onceport.app.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthorities;
import io.onceport.activity.session.SessionJournalActivitiesImpl;
import io.onceport.frontend.auth.SessionIds;
import io.onceport.frontend.auth.SessionStart;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.RecordingSessionJournal;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.session.SessionWorkflowIds;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class WorkerTuningTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir java.nio.file.Path dir;

  @Test
  void boundsAreCheckedWithExactMessages() {
    assertEquals("Invalid workflow cache size: -1 (must be 0 or more)",
        assertThrows(IllegalArgumentException.class, () -> new WorkerTuning(-1, 10)).getMessage());
    assertEquals("Invalid workflow thread count: 0 (must be at least 1)",
        assertThrows(IllegalArgumentException.class, () -> new WorkerTuning(0, 0)).getMessage());
    assertEquals("Invalid workflow thread count: 4 (must be at least the workflow cache size, 8: every cached execution parks a thread)",
        assertThrows(IllegalArgumentException.class, () -> new WorkerTuning(8, 4)).getMessage());
    assertEquals(new WorkerTuning(256, 600), WorkerTuning.DEFAULT);
  }

  @Test
  void theWorkerOptionsRefuseATooSmallThreadCountInOneLine() {
    StringWriter err = new StringWriter();
    var cl = OnceportCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    int exit = cl.execute("worker", "--workflow-cache-size", "50", "--workflow-threads", "10", "--data",
        System.getProperty("java.io.tmpdir") + "/onceport-tuning-" + System.nanoTime());
    assertEquals(1, exit, err.toString());
    assertTrue(err.toString().contains(
        "Invalid --workflow-threads: 10 (must be at least the --workflow-cache-size, 50: every cached execution parks a thread)"),
        err.toString());
  }

  /**
   * Twelve executions wait (six for session authorization, six session workflows) on a worker
   * that may cache two: the ones beyond the cache are evicted and hold no thread, and when their
   * sessions are authorized each is replayed from its history and dispatches exactly once.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void waitingExecutionsBeyondTheCacheHoldNoThreadAndStillCompleteOnceWhenTheyWake() throws Exception {
    ScriptedDispatch dispatch = new ScriptedDispatch();
    RecordingJournal journal = new RecordingJournal();
    // carol's key registered where the worker verifies operators' signed decisions; no fingerprint key there.
    java.nio.file.Path data = dir.resolve("data");
    java.nio.file.Path key = dir.resolve("carol.key");
    io.onceport.testing.Operators.register(data, "carol").write(key, false);
    try (EngineHarness harness = new EngineHarness(
        new SimplePreparation(Contracts.http("cached_tool", ReplayClass.IDEMPOTENCY_KEY, "http://127.0.0.1:9", Duration.ofMinutes(5))),
        new WorkerTuning(2, 8),
        client -> new Object[] {dispatch, journal, new AuthorizationActivitiesImpl(null,
            SessionAuthorities.forPolicy("operator", client, EngineHarness.TASK_QUEUE), Duration.ofMinutes(10)),
            new SessionJournalActivitiesImpl(new RecordingSessionJournal()),
            new io.onceport.activity.operator.OperatorActivitiesImpl(new io.onceport.activity.operator.OperatorRegistry(data))})) {
      List<String> sessions = new ArrayList<>();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        String session = SessionIds.forCall("agent:deployer", "tuning-" + i + "-" + System.nanoTime(), null, "test", "1");
        new io.onceport.frontend.temporal.TemporalSessionRegistry(harness.connection.client(), EngineHarness.TASK_QUEUE, SessionWorkflowIds.unkeyed())
            .started(new SessionStart("agent:deployer", session, "test", "1", "2025-06-18", "127.0.0.1", Instant.now()));
        CallResult r = harness.gateway.call(new ToolCall("agent:deployer", "cached_tool",
            JSON.readTree("{\"service\":\"catalog\",\"version\":\"v" + i + "\"}"), null, null, session, "1", "2025-06-18",
            "test/1", "127.0.0.1", 10_000)); // answers as soon as it waits for the session; 1 s was tight for the first on a busy host
        assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, r.record().state());
        sessions.add(session);
        ids.add(r.record().executionId());
      }
      // Parked workflow methods are threads named workflow-method-…; the cache may keep two.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      long parked = workflowMethodThreads();
      while (parked > 2 && System.nanoTime() < deadline) {
        Thread.sleep(100);
        parked = workflowMethodThreads();
      }
      assertTrue(parked <= 2, "12 waiting workflows on a cache of 2 park " + parked + " workflow threads");
      assertEquals(0, dispatch.dispatched.size());

      for (String session : sessions) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = OnceportCommand.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        assertEquals(0, cl.execute("sessions", "authorize", session, "--yes", "--key-file", key.toString(),
            "--data", data.toString(), "--temporal", harness.engine.target()), err.toString());
      }
      for (String id : ids) {
        ExecutionRecord done = awaitCompleted(harness, id);
        assertEquals(ExecutionState.COMPLETED, done.state(), done.message());
      }
      assertEquals(6, dispatch.dispatched.size());
      assertEquals(new HashSet<>(ids), new HashSet<>(dispatch.dispatched.stream().map(d -> d.executionId()).toList()),
          "each execution dispatched once");
    }
  }

  private static ExecutionRecord awaitCompleted(EngineHarness harness, String id) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    ExecutionRecord r = harness.gateway.find(id).orElseThrow();
    while (r.state() != ExecutionState.COMPLETED && System.nanoTime() < end) {
      Thread.sleep(100);
      r = harness.gateway.find(id).orElseThrow();
    }
    return r;
  }

  private static long workflowMethodThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("workflow-method-")).count();
  }
}
