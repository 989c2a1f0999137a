package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.mcp.McpController.Reply;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.time.Duration;
import java.util.List;

/**
 * The two dialects of the tasks API over the same executions (a task id is the execution id): the
 * 2025-11-25 methods {@code tasks/get}, {@code tasks/result}, {@code tasks/list},
 * {@code tasks/cancel}, and the 2026-07-28 tasks extension ({@code tasks/get} with the result
 * inline, {@code tasks/update}, {@code tasks/cancel}). Another actor's execution looks exactly like
 * a missing one. Cancelling never unsends: after dispatch the 2025-11-25 {@code tasks/cancel} is
 * refused and the execution goes on.
 */
final class TasksHandler {
  /** The poll interval a task suggests. */
  static final long POLL_MILLIS = 1000;
  private final McpConfig config;
  private final ExecutionGateway gateway;
  private final InFlightRequests inFlight;
  private final LongWaits waits;

  TasksHandler(McpConfig config, ExecutionGateway gateway, InFlightRequests inFlight, LongWaits waits) {
    this.waits = waits;
    this.config = config;
    this.gateway = gateway;
    this.inFlight = inFlight;
  }

  /** The 2025-11-25 task object of an execution. */
  ObjectNode task(ExecutionRecord rec) {
    return ToolResults.task(rec, config.taskTtl().toMillis(), POLL_MILLIS);
  }

  /** The 2026-07-28 task object of an execution (a {@code resultType: task} result). */
  ObjectNode modernTask(ExecutionRecord rec) {
    ObjectNode t = task(rec);
    t.put("resultType", "task");
    t.set("ttlMs", t.remove("ttl"));
    t.set("pollIntervalMs", t.remove("pollInterval"));
    return t;
  }

  // ---- 2025-11-25 -------------------------------------------------------------------------

  Reply get(Exchange ex, Transport.Accepts accepts) {
    return Reply.of(ex.answer(task(ownRecord(ex, taskId(ex)))));
  }

  /** Waits (up to the task-result wait) for the task to end, then answers with its result. */
  Reply result(Exchange ex, Transport.Accepts accepts) {
    ExecutionRecord r = ownRecord(ex, taskId(ex));
    // Cancelling a tasks/result stops this wait; it never cancels the task (tasks/cancel does).
    InFlightRequests.Entry f = ex.id() == null ? null : inFlight.open(ToolsHandler.scope(ex), ex.id());
    Reply reply = null;
    // Only a wait is a long wait: a finished task's result is answered even when the agent is at its limit.
    try (LongWaits.Lease lease = r.state().isTerminal() ? null : waits.open(ex.actor(), ex.generation(), ex.ctx().req(), ex.id())) {
      r = awaitTerminal(r, f, lease);
      if (lease != null && lease.revoked()) {
        reply = Reply.NONE; // the agent's credential was removed while it waited: nothing is answered
        return reply;
      }
      if (f != null && f.cancelled()) {
        reply = Reply.NONE;
        return reply;
      }
      ObjectNode res = ToolResults.callResult(r, false, ToolsHandler.contract(gateway, r.tool()));
      ((ObjectNode) res.get("_meta")).putObject(Protocol.META_RELATED_TASK).put("taskId", r.executionId());
      reply = new Reply(ex.answer(res), deliveryFor(ex, r, f), false);
      return reply;
    } finally {
      Reply done = reply;
      if (done == null || done.deliveries().stream().noneMatch(d -> d.entry() == f)) {
        inFlight.release(f);
      }
    }
  }

  private ExecutionRecord awaitTerminal(ExecutionRecord r, InFlightRequests.Entry f, LongWaits.Lease lease) {
    long deadline = System.nanoTime() + config.taskResultWait().toNanos();
    while (!r.state().isTerminal() && (f == null || !f.cancelled()) && (lease == null || !lease.revoked())) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      r = gateway.awaitChange(r.executionId(), r.version(),
          Duration.ofNanos(Math.min(left, McpController.CANCEL_CHECK.toNanos())));
    }
    return r;
  }

  Reply list(Exchange ex, Transport.Accepts accepts) {
    if (ex.params() != null && ex.params().hasNonNull("cursor")) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: unknown cursor", ex.id());
    }
    ObjectNode r = Json.object();
    ArrayNode tasks = r.putArray("tasks");
    for (ExecutionRecord rec : gateway.listByActor(ex.actor(), 100)) {
      tasks.add(task(rec));
    }
    return Reply.of(ex.answer(r));
  }

  /** 2025-11-25: refused once the execution may have crossed dispatch (a sent request cannot be unsent). */
  Reply cancel(Exchange ex, Transport.Accepts accepts) {
    ExecutionRecord r = ownRecord(ex, taskId(ex));
    if (r.state().isTerminal()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Cannot cancel task " + r.executionId()
          + ": it is already " + r.state().wireName(), ex.id());
    }
    boolean dispatched = r.state().mayHaveCrossedDispatch();
    ExecutionRecord after = gateway.cancel(r.executionId(), new CancelRequest(ex.actor(), ex.method(), null));
    if (dispatched || after.state() != ExecutionState.CANCELLED) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Cannot cancel task " + r.executionId()
          + ": it was already dispatched and a sent request cannot be unsent; the execution continues ("
          + after.state().wireName() + ")", ex.id());
    }
    return Reply.of(ex.answer(task(after)));
  }

  // ---- 2026-07-28 tasks extension ---------------------------------------------------------

  /** The task, with its result inline once it ended (a tool error is still a completed request). */
  Reply modernGet(Exchange ex, Transport.Accepts accepts) {
    ExecutionRecord r = ownRecord(ex, taskId(ex));
    ObjectNode t = modernTask(r);
    List<ResponseWriter.Pending> d = List.of();
    if (r.state().isTerminal() && r.state() != ExecutionState.CANCELLED) {
      t.put("status", "completed");
      t.set("result", ToolResults.callResult(r, false, ToolsHandler.contract(gateway, r.tool())));
      d = deliveryFor(ex, r, null);
    }
    return new Reply(ex.answer(t), d, false);
  }

  Reply update(Exchange ex, Transport.Accepts accepts) {
    return Reply.of(ex.answer(Json.object()));
  }

  /** The extension's cancel always answers empty: the task's status tells what happened. */
  Reply modernCancel(Exchange ex, Transport.Accepts accepts) {
    ExecutionRecord r = ownRecord(ex, taskId(ex));
    if (!r.state().isTerminal()) {
      gateway.cancel(r.executionId(), new CancelRequest(ex.actor(), ex.method(), null));
    }
    return Reply.of(ex.answer(Json.object()));
  }

  // ---- shared -----------------------------------------------------------------------------

  private static String taskId(Exchange ex) {
    JsonNode t = ex.params() == null ? null : ex.params().get("taskId");
    if (t == null || !t.isTextual()) {
      throw McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: taskId is required", ex.id());
    }
    return t.asText();
  }

  /** The caller's own execution; another actor's looks exactly like a missing one. */
  private ExecutionRecord ownRecord(Exchange ex, String executionId) {
    return gateway.find(executionId).filter(r -> ex.actor().equals(r.actor()))
        .orElseThrow(() -> McpException.rpc(McpException.INVALID_PARAMS, "Invalid params: unknown task " + executionId, ex.id()));
  }

  /** The call this task's result answers: the latest call from this session, else the latest call. */
  private static List<ResponseWriter.Pending> deliveryFor(Exchange ex, ExecutionRecord r, InFlightRequests.Entry f) {
    if (!ToolResults.carriesFinalResult(r) || r.calls().isEmpty()) {
      return List.of();
    }
    String scope = ex.session() != null ? ex.session().nonce() : null;
    AttachedCall chosen = r.calls().get(r.calls().size() - 1);
    for (AttachedCall c : r.calls()) {
      if (scope != null && scope.equals(c.sessionId())) {
        chosen = c;
      }
    }
    return List.of(new ResponseWriter.Pending(r.executionId(), chosen.callId(), f));
  }
}
