package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.DeliveryReport;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Ids;
import io.onceport.workflow.execution.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory execution layer with the gateway's attach semantics: the same actor, tool,
 * arguments and intent scope attach to one execution until its result was delivered. Tools behave
 * by name: {@code echo} completes with the arguments as body, {@code slow} completes after
 * {@link #slowMillis}, {@code broken} fails with 500, {@code unsure} ends in needs_review,
 * {@code hang} stays dispatched, {@code gated} waits for approval. Each step is a new record version.
 */
final class FakeGateway implements ExecutionGateway {
  record Report(String executionId, DeliveryReport report) {}

  final List<Report> reports = new CopyOnWriteArrayList<>();
  final List<ToolCall> calls = new CopyOnWriteArrayList<>();
  final List<String> dispatches = new CopyOnWriteArrayList<>();
  volatile long slowMillis = 600;
  private final Map<String, ExecutionRecord> byId = new LinkedHashMap<>();
  private final Map<String, String> byIntent = new LinkedHashMap<>();
  private final ScheduledExecutorService steps = Executors.newSingleThreadScheduledExecutor(); // one thread: steps run in order
  private final Random random = new Random(7);

  @Override
  public List<ToolContract> tools() {
    List<ToolContract> out = new ArrayList<>();
    for (String t : List.of("slow", "echo", "broken", "unsure", "hang", "gated")) {
      ReplayClass rc = switch (t) {
        case "echo" -> ReplayClass.IDEMPOTENCY_KEY;
        case "unsure" -> ReplayClass.IRREVERSIBLE;
        case "hang" -> ReplayClass.READ_ONLY;
        default -> ReplayClass.STATUS_QUERY;
      };
      StatusSpec status = rc == ReplayClass.STATUS_QUERY
          ? new StatusSpec("GET", "http://127.0.0.1:9/s/{{execution_id}}", List.of(200), List.of(404)) : null;
      out.add(new ToolContract(t, "Test tool " + t,
          "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}", null, ToolContract.Channel.HTTP,
          new HttpSpec("POST", "http://127.0.0.1:9/" + t, null, Map.of(), "Idempotency-Key", null, 5000), null,
          new ReplaySpec(rc, Duration.ofHours(1), status), List.of(), List.of()));
    }
    out.sort(Comparator.comparing(ToolContract::tool));
    return out;
  }

  /** Thrown by the next call instead of attaching (then cleared): the execution layer refusing a call. */
  volatile GatewayException refuseNext;

  @Override
  public CallResult call(ToolCall call) {
    calls.add(call);
    GatewayException refusal = refuseNext;
    if (refusal != null) {
      refuseNext = null;
      throw refusal;
    }
    if (tools().stream().noneMatch(c -> c.tool().equals(call.tool()))) {
      throw new GatewayException(GatewayException.Kind.UNKNOWN_TOOL, "Unknown tool: " + call.tool());
    }
    JsonNode n = call.arguments() == null ? null : call.arguments().get("n");
    if (n != null && !n.isIntegralNumber()) {
      throw new GatewayException(GatewayException.Kind.INVALID_ARGUMENTS, "Invalid arguments: n must be an integer");
    }
    String intent = call.actor() + "|" + call.tool() + "|" + call.arguments() + "|"
        + (call.intentKey() != null ? "key:" + call.intentKey() : "run:" + call.runId());
    String callId = "call_" + UUID.randomUUID();
    String now = Instant.now().toString();
    ExecutionRecord rec;
    boolean attached;
    synchronized (this) {
      String existing = byIntent.get(intent);
      attached = existing != null && byId.get(existing).delivery() != Delivery.DELIVERED;
      if (attached) {
        rec = byId.get(existing);
      } else {
        String id = Ids.executionId(System.currentTimeMillis(), random);
        rec = record(id, call, ExecutionState.ACCEPTED, Outcome.PENDING, List.of(), null, 1, now);
        byIntent.put(intent, id);
        schedule(id, call.tool());
      }
      AttachedCall ac = new AttachedCall(callId, call.jsonRpcId(), call.sessionId(), call.runId(), call.intentKey(),
          call.protocolVersion(), call.clientInfo(), call.remoteAddress(), "test", now, attached,
          rec.state().wireName(), null, null);
      List<AttachedCall> cs = new ArrayList<>(rec.calls());
      cs.add(ac);
      rec = with(rec, rec.state(), rec.outcome(), rec.delivery(), cs, rec.result(), rec.message());
      byId.put(rec.executionId(), rec);
      notifyAll();
    }
    ExecutionRecord settled = waitFor(rec.executionId(), Duration.ofMillis(call.waitMillis()));
    return new CallResult(settled, callId, attached);
  }

  private void schedule(String id, String tool) {
    long step = tool.equals("slow") ? slowMillis / 3 : 20;
    steps.schedule(() -> set(id, ExecutionState.AUTHORIZED, Outcome.PENDING, null, "authorized"), step, TimeUnit.MILLISECONDS);
    if (tool.equals("gated")) {
      steps.schedule(() -> set(id, ExecutionState.AWAITING_APPROVAL, Outcome.PENDING, null, "awaiting approval"),
          2 * step, TimeUnit.MILLISECONDS);
      return;
    }
    steps.schedule(() -> {
      dispatches.add(id);
      set(id, ExecutionState.DISPATCHED, Outcome.PENDING, null, "dispatched");
    }, 2 * step, TimeUnit.MILLISECONDS);
    Runnable last = switch (tool) {
      case "broken" -> () -> set(id, ExecutionState.FAILED, Outcome.FAILED,
          DispatchResult.http(500, Map.of(), "{\"error\":\"boom\"}", false, 5), "target answered 500");
      case "unsure" -> () -> set(id, ExecutionState.NEEDS_REVIEW, Outcome.UNKNOWN, null, "connection dropped after send");
      case "hang" -> null;
      default -> () -> set(id, ExecutionState.COMPLETED, Outcome.COMPLETED,
          DispatchResult.http(200, Map.of(), "{\"ok\":true,\"tool\":\"" + tool + "\"}", false, 5), "target answered 200");
    };
    if (last != null) {
      steps.schedule(last, 3 * step, TimeUnit.MILLISECONDS);
    }
  }

  private synchronized void set(String id, ExecutionState state, Outcome outcome, DispatchResult result, String msg) {
    ExecutionRecord r = byId.get(id);
    if (r.state().isTerminal()) {
      return;
    }
    byId.put(id, with(r, state, outcome, r.delivery(), r.calls(), result, msg));
    notifyAll();
  }

  private synchronized ExecutionRecord waitFor(String id, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (!byId.get(id).isSettled()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return byId.get(id);
  }

  @Override
  public synchronized Optional<ExecutionRecord> find(String executionId) {
    return Optional.ofNullable(byId.get(executionId));
  }

  @Override
  public synchronized ExecutionRecord awaitChange(String executionId, long afterVersion, Duration wait) {
    ExecutionRecord r = byId.get(executionId);
    if (r == null) {
      throw new GatewayException(GatewayException.Kind.NOT_FOUND, "No execution " + executionId);
    }
    long deadline = System.nanoTime() + wait.toNanos();
    while (byId.get(executionId).version() <= afterVersion) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return byId.get(executionId);
  }

  @Override
  public synchronized void reportDelivery(String executionId, DeliveryReport report) {
    reports.add(new Report(executionId, report));
    ExecutionRecord r = byId.get(executionId);
    if (r.delivery() == Delivery.DELIVERED) {
      return;
    }
    byId.put(executionId, with(r, r.state(), r.outcome(), report.delivered() ? Delivery.DELIVERED : Delivery.NOT_DELIVERED,
        r.calls(), r.result(), r.message()));
    notifyAll();
  }

  @Override
  public synchronized ExecutionRecord cancel(String executionId, CancelRequest request) {
    ExecutionRecord r = byId.get(executionId);
    if (r.state().mayHaveCrossedDispatch() || r.state().isTerminal()) {
      return r;
    }
    ExecutionRecord c = with(r, ExecutionState.CANCELLED, Outcome.NOT_EXECUTED, r.delivery(), r.calls(), null,
        "cancelled by " + request.by());
    byId.put(executionId, c);
    notifyAll();
    return c;
  }

  @Override
  public synchronized List<ExecutionRecord> listByActor(String actor, int limit) {
    List<ExecutionRecord> out = new ArrayList<>();
    for (ExecutionRecord r : byId.values()) {
      if (r.actor().equals(actor)) {
        out.add(0, r);
      }
    }
    return out.subList(0, Math.min(limit, out.size()));
  }

  /** Waits (bounded) until {@code n} calls arrived. */
  void awaitCalls(int n) throws InterruptedException {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
    while (calls.size() < n && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  /** Waits (bounded) until the execution reaches {@code state}; tests then act on a known state. */
  void awaitState(String executionId, ExecutionState state) throws InterruptedException {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
    while (find(executionId).map(ExecutionRecord::state).orElse(null) != state && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  /** Reports for the execution once at least {@code n} arrived (they follow the write, so may lag it). */
  List<Report> awaitReports(String executionId, int n) throws InterruptedException {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(5).toNanos();
    while (reportsFor(executionId).size() < n && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return reportsFor(executionId);
  }

  synchronized List<Report> reportsFor(String executionId) {
    return reports.stream().filter(r -> r.executionId().equals(executionId)).toList();
  }

  void close() {
    steps.shutdownNow();
  }

  private static ExecutionRecord record(String id, ToolCall call, ExecutionState state, Outcome outcome,
      List<AttachedCall> calls, DispatchResult result, long version, String now) {
    return new ExecutionRecord(id, "wf-" + id, "run-" + id, "hmac-sha256:00", call.intentKey(), call.tool(), call.actor(),
        call.runId() == null ? call.actor() : call.runId(), call.sessionId(), "http", "http://127.0.0.1:9",
        "POST", null, "status_query", String.valueOf(call.arguments()), state, outcome, Delivery.PENDING, now,
        null, null, null, null, result == null ? null : result.status(), null, null, result, null, null, 0,
        List.of(), calls, List.of(new ExecutionRecord.Transition(state.wireName(), now, "")), null, null, "", version);
  }

  private static ExecutionRecord with(ExecutionRecord r, ExecutionState state, Outcome outcome, Delivery delivery,
      List<AttachedCall> calls, DispatchResult result, String message) {
    String now = Instant.now().toString();
    List<ExecutionRecord.Transition> ts = new ArrayList<>(r.transitions());
    if (state != r.state()) {
      ts.add(new ExecutionRecord.Transition(state.wireName(), now, message));
    }
    return new ExecutionRecord(r.executionId(), r.workflowId(), r.runId(), r.fingerprint(), r.intentKey(), r.tool(), r.actor(),
        r.intentScope(), r.sessionId(), r.channel(), r.target(), r.method(), r.credentialRef(), r.replayClass(),
        r.arguments(), state, outcome, delivery, r.acceptedAt(), r.authorizedAt(),
        state == ExecutionState.DISPATCHED ? now : r.dispatchedAt(),
        state.isTerminal() ? now : r.completedAt(), delivery == Delivery.DELIVERED ? now : r.deliveredAt(),
        result == null ? r.targetStatus() : result.status(), r.exitStatus(),
        result == null ? r.resultReference() : "res_" + r.executionId().substring(4),
        result == null ? r.result() : result, r.authorization(), r.review(), r.dispatchAttempts(), r.statusChecks(),
        calls, ts, r.attachableUntil(), r.cancellation(), message, r.version() + 1);
  }
}
