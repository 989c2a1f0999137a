package io.onceport.frontend.mcp;

import io.onceport.shared.cli.CommandName;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import java.time.Duration;

/**
 * How execution records and contracts look on the wire: tool descriptors, {@code tools/call}
 * results and task objects. Every answer tells the truth about the execution: a result that is not
 * known yet is never reported as a failure.
 */
final class ToolResults {
  static final String STATUS_TOOL = "onceport_execution_status";

  private ToolResults() {}

  static ObjectNode descriptor(ToolContract c) {
    ObjectNode t = Json.object();
    t.put("name", c.tool());
    t.put("description", c.description() + "\n\n" + replayRule(c));
    JsonNode input = Json.parse(c.inputSchema());
    t.set("inputSchema", input == null ? Json.object().put("type", "object") : input);
    if (c.outputSchema() != null) {
      t.set("outputSchema", Json.parse(c.outputSchema()));
    }
    ObjectNode a = t.putObject("annotations");
    ReplayClass rc = c.replayClass();
    a.put("readOnlyHint", rc == ReplayClass.READ_ONLY);
    if (rc != ReplayClass.READ_ONLY) {
      a.put("destructiveHint", rc == ReplayClass.STATUS_QUERY || rc == ReplayClass.IRREVERSIBLE);
      a.put("idempotentHint", rc == ReplayClass.IDEMPOTENCY_KEY);
    }
    a.put("openWorldHint", true);
    t.putObject("execution").put("taskSupport", "optional");
    return t;
  }

  /**
   * What happens to a repeat of this tool's call, derived from its contract (so the description an
   * agent reads cannot promise more than the gateway does).
   */
  static String replayRule(ToolContract c) {
    ReplayClass rc = c.replayClass();
    String tail = c.replay().untilVerified()
        ? "An identical call is answered from the same execution and not sent again until its effect is verified, and for " + spoken(c.replay().verifiedWindow()) + " after; to act again, call with"
            + " a new params.idempotencyKey."
        : "An identical call within " + spoken(c.replay().dedupeAfterDelivery()) + " after the answer is answered"
            + " from the same execution and not sent again; to act again, call with a new params.idempotencyKey.";
    return switch (rc) {
      case READ_ONLY -> "Replay: read-only; a lost answer is read again. " + tail;
      case IDEMPOTENCY_KEY -> "Replay: sent with an idempotency key (the execution id); after a lost answer it may be sent"
          + " again under the same key, which the target deduplicates. " + tail;
      case STATUS_QUERY -> "Replay: sent at most once per execution; after a lost answer the target's status is queried"
          + " instead of sending again. " + tail;
      case IRREVERSIBLE -> "Replay: sent at most once per execution; after a lost answer an operator decides, it is never"
          + " sent again automatically. " + tail;
    };
  }

  /** "30 seconds", "5 minutes", "1 hour 30 minutes". */
  static String spoken(Duration d) {
    long s = d.getSeconds();
    StringBuilder out = new StringBuilder();
    long[] units = {86_400, 3_600, 60, 1};
    String[] names = {"day", "hour", "minute", "second"};
    for (int i = 0; i < units.length; i++) {
      long n = s / units[i];
      s %= units[i];
      if (n > 0) {
        out.append(out.length() == 0 ? "" : " ").append(n).append(' ').append(names[i]).append(n == 1 ? "" : "s");
      }
    }
    return out.length() == 0 ? "0 seconds" : out.toString();
  }

  static ObjectNode statusToolDescriptor() {
    ObjectNode t = Json.object();
    t.put("name", STATUS_TOOL);
    t.put("description", "Where one of your executions stands (state, outcome, delivery, target status), "
        + "by its execution_id. Read-only: asking never dispatches anything.");
    ObjectNode s = t.putObject("inputSchema");
    s.put("type", "object");
    s.putObject("properties").putObject("execution_id").put("type", "string")
        .put("description", "The act_... id from an earlier tools/call result");
    s.putArray("required").add("execution_id");
    s.put("additionalProperties", false);
    ObjectNode a = t.putObject("annotations");
    a.put("readOnlyHint", true);
    a.put("openWorldHint", false);
    t.putObject("execution").put("taskSupport", "forbidden");
    return t;
  }

  /**
   * True when a waiting caller is answered now: the record settled, or the execution waits for an
   * operator (the agent is told at once what to ask for, as the workflow's attach answers).
   */
  static boolean answersNow(ExecutionRecord r) {
    return r.isSettled() || r.state() == ExecutionState.AWAITING_APPROVAL
        || r.state() == ExecutionState.AWAITING_SESSION_AUTHORIZATION;
  }

  /** True when a response carrying this record carries the final result (delivery is reported). */
  static boolean carriesFinalResult(ExecutionRecord r) {
    return r.state() == ExecutionState.COMPLETED || r.state() == ExecutionState.FAILED
        || r.state() == ExecutionState.REJECTED;
  }

  /**
   * The execution summary used as structuredContent and in {@code _meta} of a call's answer: about
   * the execution and this call — whether this call started it or was answered from it ({@code
   * attached}), when it completed, and what a repeat would do — never the delivery of the response
   * that carries it (the status tool tells deliveries).
   */
  static ObjectNode summary(ExecutionRecord r, boolean attached) {
    return summary(r, attached, null);
  }

  static ObjectNode summary(ExecutionRecord r, boolean attached, ToolContract contract) {
    ObjectNode s = Json.object();
    s.put("execution_id", r.executionId());
    s.put("state", r.state().wireName());
    s.put("outcome", r.outcome().wireName());
    if (r.targetStatus() == null) {
      s.putNull("target_status");
    } else {
      s.put("target_status", r.targetStatus());
    }
    if (r.exitStatus() == null) {
      s.putNull("exit_status");
    } else {
      s.put("exit_status", r.exitStatus());
    }
    s.put("result_reference", r.resultReference());
    s.put("attached", attached);
    if (r.completedAt() != null) {
      s.put("completed_at", r.completedAt());
    }
    if (r.verification() != null) {
      // attach_window: until_verified — whether the effect is confirmed (the message says what that means).
      s.put("verification", r.verification().state());
    }
    if (contract != null && r.isSettled() && r.state() != ExecutionState.NEEDS_REVIEW) {
      s.put("repeat", repeat(r, contract));
    }
    s.put("message", attached ? answeredFrom(r) : message(r));
    return s;
  }

  /** What a repeat of this call would do: answered from this execution within its tail, or until its effect is verified. */
  static String repeat(ExecutionRecord r, ToolContract contract) {
    if (contract.replay().untilVerified() && r.verification() != null && r.state() == ExecutionState.COMPLETED) {
      return "an identical call is answered from execution " + r.executionId() + " and not sent again until its effect is "
          + "verified and for " + spoken(contract.replay().verifiedWindow()) + " after; to act again, send a new params.idempotencyKey";
    }
    return "an identical call within " + spoken(contract.replay().dedupeAfterDelivery()) + " after this answer is"
        + " answered from execution " + r.executionId() + " and not sent again; to act again, send a new params.idempotencyKey";
  }

  /** The message for a call answered from an execution an earlier call started. */
  static String answeredFrom(ExecutionRecord r) {
    String m = message(r);
    return switch (r.state()) {
      case COMPLETED, FAILED -> m + "; this call was answered from it (at " + r.completedAt() + "), nothing was sent again";
      default -> m + "; this call attached to it (started by an earlier call), nothing is sent twice";
    };
  }

  /** The {@code CallToolResult} for a record, as {@code tools/call} and {@code tasks/result} give it. */
  static ObjectNode callResult(ExecutionRecord r, boolean attached, ToolContract contract) {
    ObjectNode res = Json.object();
    ArrayNode content = res.putArray("content");
    String body = r.result() == null ? "" : r.result().body();
    String text = switch (r.state()) {
      case COMPLETED, FAILED -> body.isEmpty() ? message(r) : body;
      default -> message(r);
    };
    JsonNode blocks = contract != null && ToolContract.RESULT_MCP_CONTENT.equals(contract.resultFormat())
        && (r.state() == ExecutionState.COMPLETED || r.state() == ExecutionState.FAILED) ? parseOrNull(body) : null;
    if (blocks != null && blocks.path("content").isArray() && !blocks.path("content").isEmpty()) {
      // The target speaks MCP result shapes: its content blocks (image, audio, resource, ...) pass through.
      blocks.path("content").forEach(b -> content.add(b.deepCopy()));
    } else {
      content.addObject().put("type", "text").put("text", text);
    }
    ObjectNode summary = summary(r, attached, contract);
    JsonNode structured = summary;
    if (contract != null && contract.outputSchema() != null) {
      // The contract promises its own shape: structuredContent is the target's JSON body.
      structured = r.state() == ExecutionState.COMPLETED ? parseOrNull(body) : null;
      if (structured != null && contract.channel() == ToolContract.Channel.MCP) {
        // An upstream MCP tool's structured result is the structuredContent of its CallToolResult.
        structured = structured.get("structuredContent") instanceof ObjectNode o ? o : null;
      }
    }
    if (structured != null) {
      res.set("structuredContent", structured);
    }
    res.put("isError", isError(r));
    res.putObject("_meta").set("onceport/execution", summary);
    return res;
  }

  static boolean isError(ExecutionRecord r) {
    return r.state() == ExecutionState.FAILED || r.state() == ExecutionState.REJECTED
        || r.state() == ExecutionState.CANCELLED;
  }

  /** A refusal before anything executed (invalid arguments, intent key reuse), as a tool result. */
  static ObjectNode refusal(String message) {
    ObjectNode res = Json.object();
    res.putArray("content").addObject().put("type", "text").put("text", message);
    res.put("isError", true);
    return res;
  }

  /**
   * The engine turned this call away for now (in-flight update or rate limits) and the gateway's
   * own patience ran out: an honest "busy, retry", never a failure of the action. With an execution
   * id, the execution exists and goes on — a retry of the same call attaches to it; without one,
   * nothing was started for this call.
   */
  static ObjectNode busy(String executionId, String detail) {
    ObjectNode res = Json.object();
    String text = executionId == null
        ? "busy: the execution engine turned this call away and nothing was started for it; retry the same call"
            + " (" + detail + ")"
        : "execution " + executionId + " is busy: the execution engine turned this call away; the execution goes on"
            + " and nothing was sent again; retry the same call (it attaches to this execution) or call "
            + STATUS_TOOL + " with this execution_id (" + detail + ")";
    res.putArray("content").addObject().put("type", "text").put("text", text);
    ObjectNode s = res.putObject("structuredContent");
    if (executionId == null) {
      s.putNull("execution_id");
    } else {
      s.put("execution_id", executionId);
    }
    s.put("busy", true);
    s.put("retry", true);
    s.put("message", text);
    // Not a failure of the action: with an execution it may well complete; without one nothing ran.
    res.put("isError", executionId == null);
    return res;
  }

  /** One plain sentence on the record, safe to show the agent. */
  static String message(ExecutionRecord r) {
    String id = r.executionId();
    String extra = r.message() == null || r.message().isBlank() ? "" : " (" + CommandName.hint(r.message()) + ")";
    return switch (r.state()) {
      case ACCEPTED, AUTHORIZED -> "execution " + id + " is " + r.state().wireName()
          + ", outcome pending; call " + STATUS_TOOL + " with this execution_id" + extra;
      case AWAITING_APPROVAL, AWAITING_SESSION_AUTHORIZATION -> awaitingOperator(r);
      case DISPATCHED -> "execution " + id + " is dispatched, outcome pending; call " + STATUS_TOOL
          + " with this execution_id" + extra;
      case VERIFYING -> "execution " + id + " is dispatched, outcome unknown, the target's status is being queried;"
          + " do not retry with a new intent; call " + STATUS_TOOL + " with this execution_id" + extra;
      case NEEDS_REVIEW -> "execution " + id + ": outcome unknown, waiting for operator review; do not retry"
          + " (a retry attaches to this execution and is not sent again)" + extra;
      case COMPLETED -> "execution " + id + " completed" + status(r) + extra;
      case FAILED -> "execution " + id + " failed" + status(r) + extra;
      case REJECTED -> "execution " + id + " was rejected, nothing was sent" + extra;
      case CANCELLED -> "execution " + id + " was cancelled before dispatch, nothing was sent" + extra;
      case EXPIRED -> "execution " + id + " expired with outcome " + r.outcome().wireName()
          + (r.outcome() == Outcome.UNKNOWN ? "; it may have taken effect, ask an operator before retrying" : "")
          + extra;
    };
  }

  /**
   * An execution waiting for a person, said so that the agent (and the human reading its
   * transcript) knows the exact command that unblocks it. Nothing was sent; the same call again
   * attaches to this execution, so retrying never raises a second request.
   */
  static String awaitingOperator(ExecutionRecord r) {
    String id = r.executionId();
    String expires = r.authorization() == null || r.authorization().expiresAt() == null ? ""
        : " If nobody decides by " + r.authorization().expiresAt() + ", it is rejected.";
    String extra = r.message() == null || r.message().isBlank() ? "" : " (" + CommandName.hint(r.message()) + ")";
    String after = " Nothing was sent yet. Afterwards, call this tool again with the same arguments (it attaches to "
        + "this execution, it does not start a second one) or call " + STATUS_TOOL + " with this execution_id.";
    if (r.state() == ExecutionState.AWAITING_SESSION_AUTHORIZATION) {
      String session = r.sessionId() == null ? "SESSION_ID" : r.sessionId();
      return "execution " + id + " is waiting: this agent session (" + session + ") awaits authorization by an operator, "
          + "who runs: " + CommandName.command("sessions authorize " + session) + "." + after + expires + extra;
    }
    return "execution " + id + " is waiting: it awaits an operator's approval (its credential needs approval for each "
        + "use), who runs: " + CommandName.command("approve " + id) + " (or " + CommandName.command("deny " + id)
        + " --reason 'why')." + after + expires + extra;
  }

  private static String status(ExecutionRecord r) {
    if (r.targetStatus() != null) {
      return " with target status " + r.targetStatus();
    }
    if (r.exitStatus() != null) {
      return " with exit status " + r.exitStatus();
    }
    return "";
  }

  /** The 2025-11-25 task object for an execution (taskId = execution id). */
  static ObjectNode task(ExecutionRecord r, long ttlMillis, long pollMillis) {
    ObjectNode t = Json.object();
    t.put("taskId", r.executionId());
    t.put("status", taskStatus(r));
    t.put("statusMessage", message(r));
    t.put("createdAt", r.acceptedAt() == null ? "" : r.acceptedAt());
    String last = r.transitions().isEmpty() ? r.acceptedAt() : r.transitions().get(r.transitions().size() - 1).at();
    t.put("lastUpdatedAt", last == null ? "" : last);
    t.put("ttl", ttlMillis);
    t.put("pollInterval", pollMillis);
    return t;
  }

  /**
   * Task status of a record. An unknown outcome waiting on review is {@code working}, never
   * {@code failed}: the action may have happened. Only an operator's answer changes that.
   */
  static String taskStatus(ExecutionRecord r) {
    return switch (r.state()) {
      case AWAITING_APPROVAL, AWAITING_SESSION_AUTHORIZATION -> "input_required";
      case COMPLETED -> "completed";
      case FAILED, REJECTED -> "failed";
      case CANCELLED -> "cancelled";
      case EXPIRED -> r.outcome() == Outcome.NOT_EXECUTED ? "cancelled" : "failed";
      default -> "working";
    };
  }

  private static JsonNode parseOrNull(String body) {
    try {
      JsonNode n = Json.MAPPER.readTree(body);
      return n != null && n.isObject() ? n : null;
    } catch (Exception e) {
      return null;
    }
  }
}
