package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.demo.DemoTarget;
import io.onceport.testing.Conditions;
import io.onceport.testing.GatewayHarness;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The core promise, end to end over real HTTP: an MCP client calls the gateway, the gateway calls
 * the demo releases API, and whatever breaks in between, the target acts once.
 */
@Timeout(120)
class DuplicateCallsEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static GatewayHarness gateway;
  private static int version;

  @BeforeAll
  static void start() throws Exception {
    gateway = new GatewayHarness(true);
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  private static JsonNode release() throws Exception {
    return JSON.readTree("{\"service\":\"catalog\",\"version\":\"2026.07." + (++version) + "\"}");
  }

  /** POST requests under this key that reached the target: what was sent. */
  private static long sent(String path, String key) {
    return gateway.target.ledger().stream()
        .filter(e -> e.method().equals("POST") && e.path().equals(path) && key.equals(e.key())).count();
  }

  /** Of those, the ones that made the target act: what happened. */
  private static long acted(String path, String key) {
    return gateway.target.ledger().stream()
        .filter(e -> e.method().equals("POST") && e.path().equals(path) && key.equals(e.key()) && e.acted()).count();
  }

  private static void assertSentAndActedOnce(String path, String key) {
    assertEquals(1, sent(path, key), "requests the target received under " + key);
    assertEquals(1, acted(path, key), "actions the target took under " + key);
  }

  private static long postsReceived() {
    return gateway.target.ledger().stream().filter(e -> e.method().equals("POST")).count();
  }

  /**
   * Waits until the target has received the POST whose body carries {@code marker} (the request
   * is in flight, held by a delay fault, or done) and returns its key: the execution id.
   */
  private static String awaitAtTarget(String path, String marker) throws InterruptedException {
    Conditions.await("a POST " + path + " carrying " + marker + " reached the target", Duration.ofSeconds(60),
        () -> gateway.target.ledger().stream().anyMatch(e -> e.method().equals("POST") && e.path().equals(path) && e.body().contains(marker)));
    return gateway.target.ledger().stream().filter(e -> e.method().equals("POST") && e.path().equals(path) && e.body().contains(marker))
        .findFirst().orElseThrow().key();
  }

  private static String executionId(JsonNode response) {
    return response.at("/result/structuredContent/execution_id").asText();
  }

  @Test
  void retryWithNewJsonRpcIdWhileTheFirstIsInFlightGetsTheSameResultFromOneDispatch() throws Exception {
    McpClient client = gateway.client();
    JsonNode args = release();
    gateway.armFault("delay=1500", 1);
    CompletableFuture<JsonNode> first = CompletableFuture.supplyAsync(() -> call(client, 41, "create_release", args));
    awaitAtTarget("/v1/releases", args.get("version").asText()); // in flight: held at the target
    JsonNode retry = call(client, 42, "create_release", args);
    JsonNode original = first.get();
    String id = executionId(original);
    assertEquals(id, executionId(retry));
    assertEquals(original.at("/result/content/0/text").asText(), retry.at("/result/content/0/text").asText());
    assertEquals("completed", retry.at("/result/structuredContent/state").asText());
    assertEquals(201, retry.at("/result/structuredContent/target_status").asInt());
    assertSentAndActedOnce("/v1/releases", id);
    ExecutionRecord record = gateway.record(id);
    assertEquals(List.of("41", "42"), record.calls().stream().map(c -> c.jsonRpcId()).toList());
  }

  @Test
  void responseLostAfterTheTargetAcceptedIsReturnedToTheRetryWithoutASecondRequest() throws Exception {
    McpClient client = gateway.client();
    JsonNode args = release();
    gateway.armFault("delay=1500", 1);
    // The caller hangs up once its request is at the target (held there by the delay).
    client.callAndHangUp(7, "create_release", args, () -> awaitAtTarget("/v1/releases", args.get("version").asText()));
    // The execution goes on without the caller; wait for it to finish and fail to deliver.
    String first = awaitAtTarget("/v1/releases", args.get("version").asText());
    gateway.awaitRecord(first, r -> !r.calls().isEmpty() && "not_delivered".equals(r.calls().get(0).delivery()), Duration.ofSeconds(60));
    JsonNode retry = client.call(8, "create_release", args);
    String id = executionId(retry);
    assertEquals(first, id);
    assertSentAndActedOnce("/v1/releases", id);
    assertTrue(retry.at("/result/structuredContent/attached").asBoolean(), retry.toString());
    assertEquals("completed", retry.at("/result/structuredContent/state").asText());
    assertTrue(retry.at("/result/content/0/text").asText().contains("\"key\":\"" + id + "\""));
    ExecutionRecord record = gateway.awaitRecord(id, r -> r.calls().size() == 2 && r.calls().get(1).delivery() != null, Duration.ofSeconds(10));
    assertEquals("not_delivered", record.calls().get(0).delivery());
    assertEquals("delivered", record.calls().get(1).delivery());
  }

  @Test
  void identicalCallAfterTheLateArrivalTailIsANewExecution() throws Exception {
    McpClient client = gateway.client();
    JsonNode args = release();
    JsonNode firstAnswer = client.call(1, "create_release", args);
    String first = executionId(firstAnswer);
    assertFalse(firstAnswer.at("/result/structuredContent/attached").asBoolean(), firstAnswer.toString());
    gateway.awaitRecord(first, r -> r.delivery() == Delivery.DELIVERED, Duration.ofSeconds(10));
    JsonNode repeat = client.call(2, "create_release", args);
    assertEquals(first, executionId(repeat), "within the tail: answered from the execution");
    assertTrue(repeat.at("/result/structuredContent/attached").asBoolean(), repeat.toString());
    gateway.skipTime(ReplayClass.STATUS_QUERY.defaultDedupeAfterDelivery().plusSeconds(40));
    awaitClosed(first);
    String second = executionId(client.call(3, "create_release", args));
    assertNotEquals(first, second);
    assertSentAndActedOnce("/v1/releases", first);
    assertSentAndActedOnce("/v1/releases", second);
  }

  @Test
  void differentActorOrRunIdMakesSeparateExecutionsAndAChangedDefaultDoesNot() throws Exception {
    JsonNode args = release();
    McpClient deployer = gateway.client();
    McpClient other = new McpClient(gateway.frontend.port(), gateway.otherToken).initialize();
    gateway.armFault("delay=800", 3);
    CompletableFuture<JsonNode> a = CompletableFuture.supplyAsync(() -> call(deployer, 1, "create_release", args));
    CompletableFuture<JsonNode> b = CompletableFuture.supplyAsync(() -> call(other, 1, "create_release", args));
    JsonNode withDefault = args.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) withDefault).put("region", "us-east-1");
    Thread.sleep(200);
    JsonNode c = deployer.call(2, "create_release", withDefault);
    assertNotEquals(executionId(a.get()), executionId(b.get()));
    assertEquals(executionId(a.get()), executionId(c), "an explicit default is the same intent");
    JsonNode run = JSON.readTree(McpClient.callBody(3, "create_release", args));
    ((com.fasterxml.jackson.databind.node.ObjectNode) run.get("params")).putObject("_meta").put("onceport/run", "run-" + version);
    JsonNode inRun = JSON.readTree(deployer.post(run.toString()).body());
    assertNotEquals(executionId(a.get()), executionId(inRun));
  }

  @Test
  void intentKeyDecidesInsteadOfTheFingerprint() throws Exception {
    McpClient client = gateway.client();
    JsonNode args = release();
    String key = "intent-" + version;
    JsonNode a = JSON.readTree(client.post(McpClient.callBody(1, "create_release", args), "Idempotency-Key", key).body());
    JsonNode b = JSON.readTree(client.post(McpClient.callBody(2, "create_release", args), "Idempotency-Key", key).body());
    assertEquals(executionId(a), executionId(b));
    JsonNode fresh = JSON.readTree(client.post(McpClient.callBody(3, "create_release", args), "Idempotency-Key", key + "-2").body());
    assertNotEquals(executionId(a), executionId(fresh));
    long before = postsReceived();
    JsonNode changed = JSON.readTree(client.post(McpClient.callBody(4, "create_release", release()), "Idempotency-Key", key).body());
    assertTrue(changed.at("/result/isError").asBoolean(), changed.toString());
    assertTrue(changed.at("/result/content/0/text").asText().contains("for a different request"), changed.toString());
    assertEquals(before, postsReceived(), "nothing was sent");
  }

  @Test
  void targetDroppingTheConnectionAfterReadingIsResolvedByTheStatusEndpoint() throws Exception {
    McpClient client = gateway.client();
    gateway.armFault(DemoTarget.DROP_AFTER_ACCEPT, 1);
    JsonNode response = client.call(1, "create_release", release());
    String id = executionId(response);
    assertEquals("completed", response.at("/result/structuredContent/state").asText(), response.toString());
    assertEquals(200, response.at("/result/structuredContent/target_status").asInt());
    assertSentAndActedOnce("/v1/releases", id);
    ExecutionRecord record = gateway.record(id);
    assertEquals(1, record.dispatchAttempts());
    assertEquals("completed", record.statusChecks().get(0).verdict());
  }

  @Test
  void irreversibleToolWithAnUnknownOutcomeWaitsForReviewAndIsNeverResent() throws Exception {
    McpClient client = gateway.client();
    JsonNode args = JSON.readTree("{\"channel\":\"#ops\",\"message\":\"deploy " + (++version) + " done\"}");
    gateway.armFault(DemoTarget.DROP_AFTER_ACCEPT, 1);
    JsonNode first = client.call(1, "send_notification", args);
    String id = executionId(first);
    assertEquals("needs_review", first.at("/result/structuredContent/state").asText(), first.toString());
    assertEquals("unknown", first.at("/result/structuredContent/outcome").asText());
    assertFalse(first.at("/result/isError").asBoolean(), "an unknown outcome is not a failure");
    JsonNode retry = client.call(2, "send_notification", args);
    assertEquals(id, executionId(retry));
    assertEquals("needs_review", retry.at("/result/structuredContent/state").asText());
    assertSentAndActedOnce("/v1/notifications", id);
  }

  @Test
  void connectionRefusedBeforeAnyByteIsRetriedAndCompletes() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("refused");
    java.nio.file.Files.writeString(dir.resolve("late_release.yaml"), java.nio.file.Files.readString(
        java.nio.file.Path.of("contracts/create_release.yaml")).replace("127.0.0.1:8766", "127.0.0.1:" + port)
        .replace("tool: create_release", "tool: late_release"));
    var tools = new io.onceport.frontend.contract.ContractLoader().load(dir);
    try (var frontend = io.onceport.app.runtime.FrontendRuntime.start(gateway.connection, GatewayHarness.TASK_QUEUE,
        gateway.data, tools, io.onceport.app.runtime.FrontendSettings.loopback(Duration.ofSeconds(30), "auto"), gateway.metrics)) {
      McpClient client = new McpClient(frontend.port(), gateway.token).initialize();
      CompletableFuture<JsonNode> call = CompletableFuture.supplyAsync(() -> call(client, 1, "late_release", release0()));
      // The target comes up only after a send was refused (recorded as not sent).
      Conditions.await("a late_release send was refused", Duration.ofSeconds(60), () -> gateway.directory.list("agent:deployer", 200)
          .stream().map(gateway.directory::record).anyMatch(r -> r.tool().equals("late_release")
              && r.sends().stream().anyMatch(send -> ExecutionRecord.Send.NOT_SENT.equals(send.observed()))));
      try (DemoTarget late = DemoTarget.start("127.0.0.1", port)) {
        JsonNode response = call.get();
        assertEquals("completed", response.at("/result/structuredContent/state").asText(), response.toString());
        assertEquals(1, late.ledger().stream().filter(e -> e.method().equals("POST")).count(), late.ledger().toString());
        assertTrue(late.ledger().get(0).acted());
        assertTrue(gateway.record(executionId(response)).dispatchAttempts() >= 2);
      }
    }
  }

  @Test
  void invalidArgumentsNameTheFieldAndAnUnknownToolIsAProtocolError() throws Exception {
    McpClient client = gateway.client();
    JsonNode bad = client.call(1, "create_release", JSON.readTree("{\"service\":\"catalog\"}"));
    assertTrue(bad.at("/result/isError").asBoolean(), bad.toString());
    assertTrue(bad.at("/result/content/0/text").asText().contains("version"), bad.toString());
    JsonNode unknown = client.call(2, "no_such_tool", JSON.createObjectNode());
    assertEquals(-32602, unknown.at("/error/code").asInt(), unknown.toString());
  }

  @Test
  void investigateReadsTheSequenceFromTemporalWhenTheJournalIsElsewhere() throws Exception {
    McpClient client = gateway.client();
    JsonNode args = release();
    gateway.armFault("delay=1200", 1);
    CompletableFuture<JsonNode> first = CompletableFuture.supplyAsync(() -> call(client, 51, "create_release", args));
    Thread.sleep(300);
    String id = executionId(call(client, 52, "create_release", args));
    first.get();
    // After the fact: the send's activity completes once the answer's delivery is known (in band).
    gateway.awaitRecord(id, r -> r.delivery() == Delivery.DELIVERED, Duration.ofSeconds(15));
    java.nio.file.Path elsewhere = java.nio.file.Files.createTempDirectory("no-journal");
    // An operator's copy of the payload keys, without the worker's journal.
    java.nio.file.Path keys = java.nio.file.Files.createDirectories(elsewhere.resolve("keys/payload"));
    try (var files = java.nio.file.Files.list(gateway.data.resolve("keys/payload"))) {
      for (java.nio.file.Path f : files.toList()) {
        java.nio.file.Files.copy(f, keys.resolve(f.getFileName()));
      }
    }
    java.io.StringWriter out = new java.io.StringWriter();
    picocli.CommandLine cli = io.onceport.app.cli.OnceportCommand.commandLine();
    cli.setOut(new java.io.PrintWriter(out));
    int exit = cli.execute("investigate", id, "--data", elsewhere.toString(), "--temporal", gateway.engine.target());
    String report = out.toString();
    assertEquals(0, exit, report);
    assertTrue(report.contains("dispatched once"), report);
    assertTrue(report.contains("HTTP 201"), report);
    assertTrue(report.contains("attached"), report);
    assertEquals(1, cli.execute("investigate", id, "--data", elsewhere.toString()));
  }

  @Test
  void revision20260728ClientReissuingAfterACutStreamGetsTheFirstExecutionFromOneDispatch() throws Exception {
    String v = "2026-07-28";
    String args = "{\"service\":\"catalog\",\"version\":\"modern-" + (++version) + "\"}";
    java.util.function.IntFunction<String> body = id -> "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\","
        + "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" + v + "\","
        + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"modern-agent\",\"version\":\"2\"},"
        + "\"io.modelcontextprotocol/clientCapabilities\":{},\"onceport/run\":\"run-7\"},"
        + "\"name\":\"create_release\",\"arguments\":" + args + "}}";
    gateway.armFault("delay=1500", 1);
    byte[] first = body.apply(10).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", gateway.frontend.port())) {
      String head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
          + "Authorization: Bearer " + gateway.token + "\r\nMCP-Protocol-Version: " + v + "\r\nMcp-Method: tools/call\r\n"
          + "Mcp-Name: create_release\r\nContent-Length: " + first.length + "\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      socket.getOutputStream().write(first);
      socket.getOutputStream().flush();
      awaitAtTarget("/v1/releases", "modern-" + version); // the send is held at the target: cut the stream now
      socket.setSoLinger(true, 0);
    } // the response stream breaks; the client must re-issue the request with a new id
    McpClient modern = new McpClient(gateway.frontend.port(), gateway.token);
    JsonNode again = JSON.readTree(modern.post(body.apply(11), "MCP-Protocol-Version", v, "Mcp-Method", "tools/call",
        "Mcp-Name", "create_release").body());
    assertEquals(11, again.get("id").asInt(), again.toString());
    assertEquals("completed", again.at("/result/structuredContent/state").asText(), again.toString());
    assertTrue(again.at("/result/structuredContent/attached").asBoolean(), again.toString());
    String id = executionId(again);
    assertSentAndActedOnce("/v1/releases", id);
    ExecutionRecord record = gateway.record(id);
    assertEquals(List.of("10", "11"), record.calls().stream().map(c -> c.jsonRpcId()).toList());
    assertEquals("modern-agent/2", record.calls().get(1).clientInfo());
  }

  /**
   * The memo says what was asked from the start request on (the front end publishes it, so the
   * run writes no memo for a call that completes and is delivered: its state label says that).
   */
  @Test
  void theTemporalUiShowsAOneLineSummaryInTheMemo() throws Exception {
    McpClient client = gateway.client();
    String id = executionId(client.call(1, "create_release", JSON.readTree("{\"service\":\"catalog\",\"version\":\"memo-" + (++version) + "\"}")));
    ExecutionRecord record = gateway.awaitRecord(id, r -> r.delivery() == Delivery.DELIVERED, Duration.ofSeconds(10));
    long deadline = System.currentTimeMillis() + 10_000;
    String summary = null;
    while (System.currentTimeMillis() < deadline) {
      var info = gateway.connection.stubs().blockingStub().describeWorkflowExecution(
              io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
                  .setExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder()
                      .setWorkflowId(record.workflowId()).setRunId(record.runId())).build())
          .getWorkflowExecutionInfo();
      var payload = info.getMemo().getFieldsMap().get("summary");
      summary = payload == null ? null
          : gateway.connection.client().getOptions().getDataConverter().fromPayload(payload, String.class, String.class);
      String state = gateway.connection.client().newUntypedWorkflowStub(record.workflowId()).describe()
          .getTypedSearchAttributes().get(io.onceport.workflow.execution.ExecutionSearchAttributes.SA_STATE);
      if ("completed_result_delivered".equals(state)) {
        break;
      }
      Thread.sleep(100);
    }
    assertEquals("create_release region=us-east-1 service=catalog version=memo-" + version, summary);
  }

  private static JsonNode release0() {
    try {
      return release();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode call(McpClient client, Object id, String tool, JsonNode args) {
    try {
      return client.call(id, tool, args);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitClosed(String executionId) throws InterruptedException {
    io.onceport.testing.Records.awaitClosed(gateway.directory, executionId, Duration.ofSeconds(15));
  }

}
