package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.app.demo.DemoTarget;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.Fingerprinter;
import io.onceport.frontend.gateway.ContractCallPreparation;
import io.onceport.frontend.gateway.PreparedCall;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.frontend.temporal.PayloadBudget;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile input through the whole gateway (embedded engine, real worker, demo target): oversized
 * arguments are refused at once with nothing started, the largest call within the budget still
 * completes, and numbers a double cannot hold reach the fingerprint, the record and the target
 * exactly as the client sent them.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class HostileInputEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A tool whose arguments are the request body, so the target's ledger shows the bytes sent. */
  static final String RECORD_AMOUNT = """
      tool: record_amount
      description: Record an amount (test tool; the arguments are the body).
      input_schema:
        type: object
        required: [amount]
        properties:
          amount: {type: number}
          ref: {type: string}
        additionalProperties: false
      channel: http
      http:
        method: POST
        url: http://127.0.0.1:8766/v1/notifications
        idempotency_header: Idempotency-Key
      replay:
        class: irreversible
        attach_window: PT1H
      """;

  /** Tools whose host is an argument (no credential, so they load): one side-effecting, one read. */
  static final String NOTIFY_HOST = """
      tool: notify_host
      description: Notify a host the agent names (test tool).
      input_schema:
        type: object
        required: [host]
        properties:
          host: {type: string}
      channel: http
      http:
        method: POST
        url: http://{{host}}:8766/v1/notifications
      replay:
        class: irreversible
      """;
  static final String READ_HOST = NOTIFY_HOST.replace("notify_host", "read_host").replace("POST", "GET")
      .replace("irreversible", "read_only");

  private static GatewayHarness h;
  private static McpClient client;

  @BeforeAll
  static void start() throws Exception {
    h = new GatewayHarness(true, Duration.ofSeconds(30), Map.of("record_amount.yaml", RECORD_AMOUNT,
        "notify_host.yaml", NOTIFY_HOST, "read_host.yaml", READ_HOST));
    client = h.client();
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
  }

  private static String callRaw(int id, String tool, String argumentsJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":" + argumentsJson + "}}";
  }

  private static JsonNode post(String body) throws Exception {
    HttpResponse<String> r = client.post(body);
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  private static List<DemoTarget.LedgerEntry> ledger(String path) {
    return h.target.ledger().stream().filter(e -> e.path().equals(path)).toList();
  }

  private static int executions() {
    return h.directory.list("agent:deployer", 1000).size();
  }

  @Test
  void argumentsOfOneAndAHalfAndThreeAndAHalfMegabytesAreRefusedAtOnceNamingTheLimit() throws Exception {
    int before = executions();
    int sent = ledger("/v1/releases").size();
    for (int size : List.of(1_500_000, 3_500_000)) {
      ObjectNode args = JSON.createObjectNode().put("service", "big-" + size).put("version", "1").put("reason", "x".repeat(size));
      long start = System.nanoTime();
      JsonNode r = post(McpClient.callBody(size, "create_release", args));
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertEquals(-32602, r.at("/error/code").asInt(), r.toString());
      String message = r.at("/error/message").asText();
      assertTrue(message.startsWith("Invalid params: call too large: its workflow input and attach request encode to "), message);
      assertTrue(message.contains("bytes; the limit is 1,048,576 bytes (1 MiB). Nothing was started"), message);
      assertTrue(millis < 10_000, "answered after " + millis + " ms");
    }
    assertEquals(before, executions(), "no execution was started");
    assertEquals(sent, ledger("/v1/releases").size(), "nothing reached the target");
  }

  /** A host no URL can carry is the agent's mistake: an invalid-arguments result, never an HTTP 500; nothing started. */
  @Test
  void anArgumentThatCannotBeAUrlsHostIsAnInvalidArgumentsResultNotAServerError() throws Exception {
    int before = executions();
    int id = 700;
    for (String tool : List.of("notify_host", "read_host")) {
      for (String host : List.of("a b", "", "exa_mple", "[::1")) {
        HttpResponse<String> r = client.post(McpClient.callBody(id++, tool, JSON.createObjectNode().put("host", host)));
        assertEquals(200, r.statusCode(), tool + " host '" + host + "': " + r.body());
        JsonNode m = JSON.readTree(r.body());
        assertTrue(m.at("/result/isError").asBoolean(), tool + " host '" + host + "': " + m);
        assertEquals("Invalid arguments for " + tool + ": host: the value makes no URL with a host (http.url)",
            m.at("/result/content/0/text").asText(), tool + " host '" + host + "': " + m);
      }
    }
    assertEquals(before, executions(), "no execution was started");
  }

  /** The budget's edge is still a call the workflow can carry: no workflow task over Temporal's limits. */
  @Test
  void theLargestCallWithinTheBudgetCompletes() throws Exception {
    ContractCallPreparation preparation = new ContractCallPreparation(new ContractLoader().load(h.dir.resolve("contracts")),
        new ArgumentValidator(), new Fingerprinter(FingerprintKey.loadOrCreate(h.data)), "auto");
    PayloadBudget budget = PayloadBudget.of(h.connection);
    int low = 0;
    int high = (int) PayloadBudget.DEFAULT_LIMIT; // PayloadBudget.of gives every connection this limit
    while (low < high) { // the largest reason whose call encodes within the budget, less 1 KiB for the call's own ids
      int mid = (low + high + 1) / 2;
      if (encodedSize(preparation, budget, mid) <= PayloadBudget.DEFAULT_LIMIT - 1024) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    assertTrue(low > 300_000, "budget admits only " + low + " bytes of argument");
    ObjectNode args = JSON.createObjectNode().put("service", "edge").put("version", "1").put("reason", "r".repeat(low));
    JsonNode r = client.call(1, "create_release", args);
    assertEquals("completed", r.at("/result/structuredContent/state").asText(), r.toString());
    // The run records the answer once its delivery is known (answered in band: within the delivery grace).
    ExecutionRecord rec = h.awaitRecord(r.at("/result/structuredContent/execution_id").asText(),
        x -> x.state() == ExecutionState.COMPLETED, java.time.Duration.ofSeconds(20));
    assertEquals(ExecutionState.COMPLETED, rec.state());
    assertEquals(1, ledger("/v1/releases").stream().filter(e -> e.body().contains("\"edge\"")).count());
    // What the workflow made of it: every event is a payload Temporal took, and the events a worker
    // recorded with one workflow-task completion travelled in one gRPC message.
    var location = h.directory.locate(rec.executionId()).orElseThrow();
    long largestEvent = 0;
    long largestTask = 0;
    long task = 0;
    for (var e : h.connection.client().fetchHistory(location.workflowId(), location.runId()).getHistory().getEventsList()) {
      largestEvent = Math.max(largestEvent, e.getSerializedSize());
      switch (e.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> task = 0;
        case EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EVENT_TYPE_WORKFLOW_TASK_STARTED -> {
          largestTask = Math.max(largestTask, task);
          task = 0;
        }
        default -> task += e.getSerializedSize();
      }
    }
    largestTask = Math.max(largestTask, task);
    System.out.printf("budget edge: reason %,d bytes -> call %,d bytes; largest history event %,d bytes; "
        + "largest workflow task's events %,d bytes%n", low, encodedSize(preparation, budget, low), largestEvent, largestTask);
    assertTrue(largestEvent < 2L * 1024 * 1024, "a payload over Temporal's 2 MiB blob limit: " + largestEvent);
    assertTrue(largestTask < PayloadBudget.GRPC_MESSAGE_LIMIT - 256 * 1024,
        "one workflow task's events near Temporal's 4 MiB message limit: " + largestTask);
  }

  private static long encodedSize(ContractCallPreparation preparation, PayloadBudget budget, int reason) {
    ObjectNode args = JSON.createObjectNode().put("service", "edge").put("version", "1").put("reason", "r".repeat(reason));
    PreparedCall p = preparation.prepare(new ToolCall("agent:deployer", "create_release", args, null, null,
        "mcp:0123456789abcdef0123456789abcdef", "1", "2025-06-18", "e2e-client/1.0", "127.0.0.1", 30_000));
    AttachRequest attach = new AttachRequest("call_00000000-0000-0000-0000-000000000000", p.input().fingerprint(), "1",
        "mcp:0123456789abcdef0123456789abcdef", null, null, "2025-06-18", "e2e-client/1.0", "127.0.0.1",
        "frontend:12345@host", "2026-01-01T00:00:00.000000Z", 30_000);
    return budget.encodedSize(p.input(), attach);
  }

  @Test
  void twoToThe53AndTwoToThe53PlusOneAreTwoExecutionsAndTheTargetGetsTheExactDigits() throws Exception {
    JsonNode a = post(callRaw(10, "record_amount", "{\"amount\":9007199254740992,\"ref\":\"pow\"}"));
    JsonNode b = post(callRaw(11, "record_amount", "{\"amount\":9007199254740993,\"ref\":\"pow\"}"));
    String first = a.at("/result/structuredContent/execution_id").asText();
    String second = b.at("/result/structuredContent/execution_id").asText();
    assertEquals("completed", a.at("/result/structuredContent/state").asText(), a.toString());
    assertEquals("completed", b.at("/result/structuredContent/state").asText(), b.toString());
    assertEquals(false, b.at("/result/structuredContent/attached").asBoolean(true), "2^53+1 must not attach to 2^53");
    assertNotEquals(first, second);
    assertNotEquals(h.record(first).fingerprint(), h.record(second).fingerprint());
    assertEquals("{\"amount\":9007199254740993,\"ref\":\"pow\"}", h.record(second).arguments());
    List<String> bodies = ledger("/v1/notifications").stream().map(DemoTarget.LedgerEntry::body)
        .filter(body -> body.contains("\"pow\"")).toList();
    assertEquals(List.of("{\"amount\":9007199254740992,\"ref\":\"pow\"}", "{\"amount\":9007199254740993,\"ref\":\"pow\"}"), bodies);
  }

  @Test
  void aDecimalWithManyDigitsReachesTheRecordAndTheTargetUnrounded() throws Exception {
    String pi = "3.14159265358979323846264338327950288";
    JsonNode r = post(callRaw(20, "record_amount", "{\"amount\":" + pi + ",\"ref\":\"pi\"}"));
    JsonNode rounded = post(callRaw(21, "record_amount", "{\"amount\":3.141592653589793,\"ref\":\"pi\"}"));
    String id = r.at("/result/structuredContent/execution_id").asText();
    assertEquals("completed", r.at("/result/structuredContent/state").asText(), r.toString());
    assertNotEquals(id, rounded.at("/result/structuredContent/execution_id").asText());
    assertEquals("{\"amount\":" + pi + ",\"ref\":\"pi\"}", h.record(id).arguments());
    List<String> bodies = ledger("/v1/notifications").stream().map(DemoTarget.LedgerEntry::body)
        .filter(body -> body.contains("\"pi\"")).toList();
    assertEquals(List.of("{\"amount\":" + pi + ",\"ref\":\"pi\"}", "{\"amount\":3.141592653589793,\"ref\":\"pi\"}"), bodies);
  }
}
