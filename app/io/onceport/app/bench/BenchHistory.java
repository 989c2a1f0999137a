package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.execution.ExecutionRecord;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The bench's history section: what one side-effecting call and one read leave in Temporal. */
final class BenchHistory {
  private final Bench bench;
  private final BenchSettings settings;

  BenchHistory(Bench bench) {
    this.bench = bench;
    this.settings = bench.settings;
  }

  /** What one simple side-effecting call and one read leave in Temporal. */
  ObjectNode history(BenchRig rig) throws Exception {
    ObjectNode h = McpDriver.JSON.createObjectNode();
    McpDriver d = new McpDriver(rig.http, rig.mcp(), rig.token).initialize();
    JsonNode call = d.call(settings.tool(), args("history", 0, false), McpDriver.ACCEPT_JSON, settings.callTimeout());
    h.set("side_effecting", historyOf(rig, call));
    JsonNode read = d.call(BenchRig.READ_TOOL, "{\"id\":\"" + rig.releaseId + "\"}", McpDriver.ACCEPT_JSON, settings.callTimeout());
    h.set("read_only", historyOf(rig, read));
    return h;
  }

  private ObjectNode historyOf(BenchRig rig, JsonNode result) throws InterruptedException {
    ObjectNode o = McpDriver.JSON.createObjectNode();
    String executionId = result.path("_meta").path("onceport/execution").path("execution_id").asText(null);
    if (executionId == null || executionId.isEmpty() || "null".equals(executionId)) {
      o.put("workflow", false);
      o.put("events", 0);
      o.put("note", "no execution identity, no workflow");
      return o;
    }
    Optional<ExecutionRecord> rec = rig.frontend.gateway().find(executionId);
    if (rec.isEmpty()) {
      o.put("error", "execution " + executionId + " not found");
      return o;
    }
    String workflowId = rec.get().workflowId();
    String runId = rec.get().runId();
    boolean closed = awaitClosed(rig, workflowId, runId);
    History history = rig.connection.client().fetchHistory(workflowId, runId).getHistory();
    int tasks = 0;
    Map<String, Integer> kinds = new LinkedHashMap<>();
    Map<String, Integer> kindBytes = new LinkedHashMap<>();
    for (HistoryEvent e : history.getEventsList()) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        tasks++;
      }
      String k = e.getEventType().name().replace("EVENT_TYPE_", "").toLowerCase();
      kinds.merge(k, 1, Integer::sum);
      kindBytes.merge(k, e.getSerializedSize(), Integer::sum);
    }
    o.put("workflow", true);
    o.put("execution_id", executionId);
    o.put("closed", closed);
    o.put("events", history.getEventsCount());
    o.put("bytes", history.getSerializedSize());
    o.put("workflow_tasks", tasks);
    ObjectNode byKind = o.putObject("by_type");
    kinds.forEach(byKind::put);
    ObjectNode bytesByKind = o.putObject("bytes_by_type");
    kindBytes.forEach(bytesByKind::put);
    return o;
  }

  /** The delivery report arrives after the answer: waits (at most 20 s) until the run closed. */
  private static boolean awaitClosed(BenchRig rig, String workflowId, String runId) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      WorkflowExecutionStatus status = rig.connection.client().newUntypedWorkflowStub(workflowId, Optional.of(runId), Optional.empty())
          .describe().getStatus();
      if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        return true;
      }
      Thread.sleep(50);
    }
    return false;
  }

  private String args(String subject, int n, boolean withRegion) {
    return bench.args(subject, n, withRegion);
  }
}
