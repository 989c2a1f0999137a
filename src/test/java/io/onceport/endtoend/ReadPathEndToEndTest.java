package io.onceport.endtoend;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.KdfParameters;
import io.onceport.activity.vault.PassphraseSource;
import io.onceport.activity.vault.Vault;
import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.ops.Metrics;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.testing.McpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read path end to end: a real engine, a real worker with a vault, two real front ends — one as
 * {@code serve} wires it (the worker's vault and journal in the same JVM), one as a frontend-only
 * process has it (no vault) — and a recording HTTP target. A read hits the target every time, starts
 * no workflow and pays for no execution identity; a credentialed read is answered directly only where
 * the vault is, and takes the durable path from a front end without one.
 */
@Timeout(150)
class ReadPathEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "rd-tok-7Hq2-never-in-a-file";
  private static final String PASSPHRASE = "correct horse battery staple";
  private static final String TASK_QUEUE = "onceport-reads";

  @TempDir static Path dir;
  static MockWebServer target;
  static final ConcurrentLinkedQueue<RecordedRequest> seen = new ConcurrentLinkedQueue<>();
  static EmbeddedEngine engine;
  static TemporalConnection connection;
  static WorkerRuntime worker;
  static FrontendRuntime serve;
  static FrontendRuntime frontendOnly;
  static ExecutionDirectory directory;
  static Metrics metrics;
  static String serveToken;
  static String frontendToken;
  static String otherToken;

  @BeforeAll
  static void start() throws Exception {
    target = new MockWebServer();
    target.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        seen.add(request);
        String path = request.getUrl().encodedPath();
        if (path.startsWith("/missing/")) {
          return new MockResponse.Builder().code(404).body("{\"error\":\"no such item\"}").build();
        }
        return new MockResponse.Builder().code(path.startsWith("/items") && request.getMethod().equals("POST") ? 201 : 200)
            .addHeader("Content-Type", "application/json").body("{\"path\":\"" + path + "\"}").build();
      }
    });
    target.start(java.net.InetAddress.getLoopbackAddress(), 0);
    String base = target.url("/").toString().replaceAll("/$", "");
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    try (Vault vault = Vault.create(data, PASSPHRASE.toCharArray(), KdfParameters.forTests())) {
      vault.put(new Credential("reader", Credential.Type.BEARER, null, null, SECRET), false);
    }
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    Files.writeString(contracts.resolve("read_item.yaml"), read("read_item", base + "/items/{{id}}", "PT5S", null));
    Files.writeString(contracts.resolve("read_missing.yaml"), read("read_missing", base + "/missing/{{id}}", "PT5S", null));
    Files.writeString(contracts.resolve("read_secret_item.yaml"), read("read_secret_item", base + "/secret/{{id}}", "PT5S", "reader"));
    Files.writeString(contracts.resolve("read_slow_item.yaml"), read("read_slow_item", base + "/slow/{{id}}", "PT1M", null));
    Files.writeString(contracts.resolve("create_item.yaml"), """
        tool: create_item
        description: Create an item (the side-effecting control).
        input_schema:
          type: object
          required: [id]
          properties:
            id: {type: string}
          additionalProperties: false
        channel: http
        http:
          method: POST
          url: %s/items
          idempotency_header: Idempotency-Key
          timeout: PT5S
        replay:
          class: idempotency_key
          attach_window: PT1M
        """.formatted(base));
    ContractSet tools = new ContractLoader().load(contracts);
    AgentRegistry agents = new AgentRegistry(data);
    serveToken = agents.add("agent:serve-reader");
    frontendToken = agents.add("agent:frontend-reader");
    otherToken = agents.add("agent:control");
    engine = EmbeddedEngine.start("127.0.0.1", 0);
    metrics = new Metrics();
    connection = TemporalConnection.connect(engine.target(), "default", true,
        io.onceport.shared.codec.Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope());
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    VaultService vault = VaultService.open(data, PassphraseSource.fromEnvironment(Map.of(PassphraseSource.ENV, PASSPHRASE)));
    worker = WorkerRuntime.start(connection, TASK_QUEUE, data, vault, "auto", Duration.ofMinutes(1), "reads");
    FrontendSettings settings = FrontendSettings.loopback(Duration.ofSeconds(20), "auto");
    serve = FrontendRuntime.start(connection, TASK_QUEUE, data, tools, settings, metrics, worker.readAccess());
    frontendOnly = FrontendRuntime.start(connection, TASK_QUEUE, data, tools, settings, metrics, FrontendRuntime.ReadAccess.NONE);
    directory = new ExecutionDirectory(connection);
  }

  private static String read(String tool, String url, String timeout, String credential) {
    return """
        tool: %s
        description: Read one item.
        input_schema:
          type: object
          required: [id]
          properties:
            id: {type: string}
          additionalProperties: false
        channel: http
        http:
          method: GET
          url: %s
          timeout: %s
        %s
        replay:
          class: read_only
          attach_window: PT1M
        """.formatted(tool, url, timeout, credential == null ? "" : "  credential: " + credential);
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {frontendOnly, serve, worker, connection, engine, target}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception ignored) {
          // best effort
        }
      }
    }
  }

  @BeforeEach
  void forget() {
    seen.clear();
  }

  static List<RecordedRequest> requestsTo(String pathPrefix) {
    return seen.stream().filter(r -> r.getUrl().encodedPath().startsWith(pathPrefix)).toList();
  }

  static JsonNode args(String id) throws Exception {
    return JSON.readTree("{\"id\":\"" + id + "\"}");
  }

  static int executionsOf(String actor) {
    return directory.list(actor, 1000).size();
  }

  @Test
  void aReadHitsTheTargetEachTimeItIsCalledAndStartsNoWorkflow() throws Exception {
    McpClient client = new McpClient(serve.port(), serveToken).initialize();
    Set<String> readIds = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      JsonNode r = client.call(i + 1, "read_item", args("a1")).path("result");
      assertFalse(r.path("isError").asBoolean(), r.toString());
      assertEquals("{\"path\":\"/items/a1\"}", r.at("/content/0/text").asText());
      JsonNode summary = r.path("_meta").path("onceport/execution");
      assertTrue(summary.path("execution_id").isNull(), "no execution identity: " + summary);
      assertEquals("completed", summary.path("state").asText());
      assertEquals(200, summary.path("target_status").asInt());
      assertEquals("not_tracked", summary.path("delivery").asText());
      readIds.add(summary.path("read_id").asText());
    }
    // identical reads at the same time are not coalesced either: each one is asked
    List<CompletableFuture<JsonNode>> concurrent = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      int id = 10 + i;
      concurrent.add(CompletableFuture.supplyAsync(() -> {
        try {
          return client.call(id, "read_item", args("a1"));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    for (CompletableFuture<JsonNode> f : concurrent) {
      JsonNode r = f.get().path("result");
      assertFalse(r.path("isError").asBoolean(), r.toString());
      readIds.add(r.path("_meta").path("onceport/execution").path("read_id").asText());
    }
    assertEquals(7, requestsTo("/items/a1").size(), "the target saw every one of the 7 identical reads");
    assertEquals(7, readIds.size(), "each read has its own correlation id");
    assertEquals(0, executionsOf("agent:serve-reader"), "no ToolExecution workflow for a read");

    // the control: a side-effecting call of the same actor does start one, so the count above can fail
    JsonNode created = client.call(20, "create_item", args("c1")).path("result");
    assertEquals("completed", created.at("/structuredContent/state").asText(), created.toString());
    assertEquals(1, executionsOf("agent:serve-reader"));
    assertTrue(metrics.scrape().contains("onceport_reads_total{outcome=\"completed\",tool=\"read_item\"}"), "reads are counted");
  }

  @Test
  void aCredentialedReadInServeIsAnsweredDirectlyAndJournalledWithoutTheSecret() throws Exception {
    McpClient client = new McpClient(serve.port(), serveToken).initialize();
    int before = executionsOf("agent:serve-reader");
    JsonNode r = client.call(1, "read_secret_item", args("s1")).path("result");
    assertFalse(r.path("isError").asBoolean(), r.toString());
    assertTrue(r.path("_meta").path("onceport/execution").path("execution_id").isNull(), r.toString());
    List<RecordedRequest> sent = requestsTo("/secret/s1");
    assertEquals(1, sent.size());
    assertEquals("Bearer " + SECRET, sent.get(0).getHeaders().get("Authorization"), "the worker's vault, in this JVM");
    assertEquals(before, executionsOf("agent:serve-reader"), "no workflow");
    assertFalse(r.toString().contains(SECRET));

    worker.journals().activity().checkpoint();
    Path segment = worker.journals().activity().segment();
    String journal = Files.readString(segment, StandardCharsets.UTF_8);
    assertFalse(journal.contains(SECRET), "no secret in the journal");
    JsonNode entry = null;
    for (String line : journal.split("\n")) {
      JsonNode e = JSON.readTree(line);
      if ("read".equals(e.path("transition").asText())
          && r.path("_meta").path("onceport/execution").path("read_id").asText().equals(e.at("/detail/read_id").asText())) {
        entry = e;
      }
    }
    assertTrue(entry != null, "one read entry in the activity journal:\n" + journal);
    assertEquals("reader", entry.at("/detail/credential").asText());
    assertEquals("agent:serve-reader", entry.at("/detail/actor").asText());
    assertEquals(200, entry.at("/detail/target_status").asInt());
    assertTrue(entry.path("execution_id").isNull());
  }

  @Test
  void aCredentialedReadFromAFrontEndWithoutTheVaultTakesTheDurablePath() throws Exception {
    McpClient client = new McpClient(frontendOnly.port(), frontendToken).initialize();
    JsonNode r = client.call(1, "read_secret_item", args("s2")).path("result");
    JsonNode summary = r.path("_meta").path("onceport/execution");
    assertEquals("completed", summary.path("state").asText(), r.toString());
    assertTrue(summary.path("execution_id").asText().startsWith("act_"), "an execution resolved the credential: " + summary);
    List<RecordedRequest> sent = requestsTo("/secret/s2");
    assertEquals(1, sent.size());
    assertEquals("Bearer " + SECRET, sent.get(0).getHeaders().get("Authorization"), "resolved by the worker");
    assertEquals(1, executionsOf("agent:frontend-reader"));

    // a read without a credential from the same front end needs no vault: answered directly
    JsonNode plain = client.call(2, "read_item", args("p2")).path("result");
    assertTrue(plain.path("_meta").path("onceport/execution").path("execution_id").isNull(), plain.toString());
    assertEquals(1, executionsOf("agent:frontend-reader"));
  }

  @Test
  void aReadThatMayOutlastTheCallWaitOrNamesAnIntentKeepsAnExecution() throws Exception {
    McpClient client = new McpClient(serve.port(), otherToken).initialize();
    JsonNode slow = client.call(1, "read_slow_item", args("w1")).path("result");
    assertTrue(slow.path("_meta").path("onceport/execution").path("execution_id").asText().startsWith("act_"),
        "a read whose timeout exceeds the call wait can be followed as an execution: " + slow);
    HttpResponse<String> keyed = client.post(McpClient.callBody(2, "read_item", args("k1")), "Idempotency-Key", "intent-k1");
    JsonNode keyedResult = McpClient.json(keyed.body()).path("result");
    assertTrue(keyedResult.path("_meta").path("onceport/execution").path("execution_id").asText().startsWith("act_"),
        "a client that names its intent gets an execution: " + keyedResult);
    assertEquals(2, executionsOf("agent:control"));
  }

  @Test
  void aTargetErrorIsAnErrorResultAndInvalidArgumentsReachNoTarget() throws Exception {
    McpClient client = new McpClient(serve.port(), serveToken).initialize();
    JsonNode missing = client.call(1, "read_missing", args("m1")).path("result");
    assertTrue(missing.path("isError").asBoolean(), missing.toString());
    assertEquals(404, missing.at("/_meta/onceport~1execution/target_status").asInt());
    assertEquals("failed", missing.at("/_meta/onceport~1execution/state").asText());
    assertEquals("{\"error\":\"no such item\"}", missing.at("/content/0/text").asText());

    JsonNode invalid = client.call(2, "read_item", JSON.readTree("{\"id\":7}")).path("result");
    assertTrue(invalid.path("isError").asBoolean(), invalid.toString());
    assertTrue(invalid.at("/content/0/text").asText().startsWith("Invalid arguments for read_item: "), invalid.toString());
    assertEquals(1, seen.size(), "only the 404 read reached the target: " + seen);
  }

  @Test
  void aStreamedReadReportsItsStepsAsProgressThenItsResult() throws Exception {
    McpClient client = new McpClient(serve.port(), serveToken).initialize();
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serve.port() + "/mcp"))
        .header("Authorization", "Bearer " + serveToken).header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Mcp-Session-Id", client.session()).header("MCP-Protocol-Version", "2025-06-18")
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"read_item\",\"arguments\":{\"id\":\"p1\"},\"_meta\":{\"progressToken\":\"tok-1\"}}}"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertEquals("text/event-stream", r.headers().firstValue("Content-Type").orElse("").split(";")[0], r.body());
    List<JsonNode> messages = new ArrayList<>();
    for (String line : r.body().split("\n")) {
      if (line.startsWith("data: ")) {
        messages.add(JSON.readTree(line.substring(6)));
      }
      assertFalse(line.startsWith("id:"), "no event ids: there is no execution to resume");
    }
    List<JsonNode> progress = messages.stream().filter(m -> "notifications/progress".equals(m.path("method").asText())).toList();
    assertEquals(3, progress.size(), r.body());
    for (int i = 0; i < 3; i++) {
      assertEquals("tok-1", progress.get(i).at("/params/progressToken").asText());
      assertEquals(i + 1, progress.get(i).at("/params/progress").asInt());
    }
    assertTrue(progress.get(0).at("/params/message").asText().startsWith("read accepted"), progress.get(0).toString());
    assertTrue(progress.get(1).at("/params/message").asText().startsWith("read authorized"), progress.get(1).toString());
    assertEquals("sent to the target", progress.get(2).at("/params/message").asText());
    JsonNode last = messages.get(messages.size() - 1);
    assertEquals(5, last.path("id").asInt());
    assertEquals("{\"path\":\"/items/p1\"}", last.at("/result/content/0/text").asText());
    assertEquals(1, requestsTo("/items/p1").size());
  }
}
