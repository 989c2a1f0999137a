package io.onceport.testing;

import io.onceport.shared.temporal.TemporalConnection;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code temporal workflow reset} as any namespace operator runs it: the Temporal CLI binary
 * against the server's address, no payload key, no operator key. And the reset points it may pick:
 * the completed workflow tasks of a run.
 */
public final class Resets {
  private Resets() {}

  /** Event ids of the run's {@code WorkflowTaskCompleted} events, oldest first: every point a reset may go back to. */
  public static List<Long> workflowTasks(TemporalConnection connection, String workflowId, String runId) {
    List<Long> ids = new ArrayList<>();
    for (HistoryEvent e : connection.client().fetchHistory(workflowId, runId).getEvents()) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        ids.add(e.getEventId());
      }
    }
    return ids;
  }

  /** Event id of the run's first activity result (completed, failed or timed out): the first send's end. */
  public static long firstActivityResult(TemporalConnection connection, String workflowId, String runId) {
    for (HistoryEvent e : connection.client().fetchHistory(workflowId, runId).getEvents()) {
      EventType t = e.getEventType();
      if (t == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED || t == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
          || t == EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT) {
        return e.getEventId();
      }
    }
    throw new AssertionError("run " + runId + " of " + workflowId + " has no activity result");
  }

  /**
   * Resets run {@code runId} of {@code workflowId} to {@code eventId} with the Temporal CLI; returns
   * what the CLI printed. Signals and updates after the point are reapplied (the CLI's default).
   */
  public static String reset(Path binary, String address, String workflowId, String runId, long eventId)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(binary.toString(), "workflow", "reset", "--address", address, "--namespace", "default",
        "--workflow-id", workflowId, "--run-id", runId, "--event-id", Long.toString(eventId), "--reason", "test: reset to " + eventId)
        .redirectErrorStream(true).start();
    p.getOutputStream().close();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("temporal workflow reset did not finish within 60 s");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new AssertionError("temporal workflow reset exited " + p.exitValue() + ": " + out);
    }
    return out;
  }
}
