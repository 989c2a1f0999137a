package io.onceport.activity.http;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.onceport.frontend.ops.Metrics;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.ExecutionRecord;
import io.temporal.api.history.v1.HistoryEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11: a target that echoes request headers put the vault secret into Temporal history,
 * {@code executions show --json} and the agent's result. Through the real gateway (embedded
 * engine, worker, front end, MCP client) against an echoing target, with payload encryption off so
 * a leak in history would be plain text: the target gets the secret, and no history event, the
 * execution record or the tool result contains it — in clear or base64.
 */
@Timeout(120)
class EchoedSecretEndToEndTest {
  private static final String SECRET = "key-Wc7pR2-echoed-back-9d31";
  private static final String PASSPHRASE = "correct horse battery staple";

  @TempDir Path dir;

  @Test
  void aTargetEchoingTheCredentialLeavesNoSecretInHistoryTheRecordOrTheResult() throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    try (Vault vault = Vault.create(data, PASSPHRASE.toCharArray(), KdfParameters.forTests())) {
      vault.put(new Credential("deploy-key", Credential.Type.HEADER, "X-Api-Key", null, SECRET), false);
    }
    try (MockWebServer target = new MockWebServer()) {
      target.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          StringBuilder echo = new StringBuilder("{\"you_sent\":{");
          request.getHeaders().forEach(h -> echo.append('"').append(h.getFirst()).append("\":\"").append(h.getSecond()).append("\","));
          echo.setLength(echo.length() - 1);
          echo.append("}}");
          return new MockResponse.Builder().code(201).addHeader("Content-Type", "application/json")
              .addHeader("X-Request-Id", "echo-" + request.getHeaders().get("X-Api-Key")).body(echo.toString()).build();
        }
      });
      target.start(java.net.InetAddress.getLoopbackAddress(), 0);
      Path contracts = Files.createDirectories(dir.resolve("contracts"));
      Files.writeString(contracts.resolve("echo_release.yaml"), """
          tool: echo_release
          description: Deploy a release through an API that echoes what it received.
          input_schema:
            type: object
            required: [service]
            properties:
              service: {type: string}
          channel: http
          http:
            method: POST
            url: http://127.0.0.1:%d/v1/echo
            idempotency_header: Idempotency-Key
            credential: deploy-key
          replay:
            class: irreversible
            attach_window: PT1M
          """.formatted(target.getPort()));
      String token = new AgentRegistry(data).add("agent:deployer");
      Metrics metrics = new Metrics();
      try (EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
          TemporalConnection connection = TemporalConnection.connect(engine.target(), "default", true,
              io.onceport.shared.codec.Payloads.dataConverter(false, data), Duration.ofSeconds(10), metrics.metricsScope())) {
        connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
        VaultService service = VaultService.open(data, PassphraseSource.fromEnvironment(Map.of(PassphraseSource.ENV, PASSPHRASE)));
        try (WorkerRuntime worker = WorkerRuntime.start(connection, "echo", data, service, "auto", Duration.ofMinutes(1), "echo");
            FrontendRuntime frontend = FrontendRuntime.start(connection, "echo", data, new ContractLoader().load(contracts),
                FrontendSettings.loopback(Duration.ofSeconds(20), "auto"), metrics)) {
          McpClient client = new McpClient(frontend.port(), token).initialize();
          JsonNode response = client.call(1, "echo_release", new ObjectMapper().readTree("{\"service\":\"catalog\"}"));
          assertEquals("completed", response.at("/result/structuredContent/state").asText(), response.toString());
          assertEquals(SECRET, target.takeRequest().getHeaders().get("X-Api-Key"), "the target must get the credential");
          assertTrue(response.at("/result/content/0/text").asText().contains("\"X-Api-Key\":\"[redacted:deploy-key]\""),
              response.toString());

          String id = response.at("/result/structuredContent/execution_id").asText();
          ExecutionDirectory directory = new ExecutionDirectory(connection);
          // The run records the answer once its delivery is known (in band: within the delivery grace).
          ExecutionRecord record = directory.record(directory.locate(id).orElseThrow());
          for (long until = System.nanoTime() + 20_000_000_000L; record.result() == null && System.nanoTime() - until < 0; ) {
            Thread.sleep(50);
            record = directory.record(directory.locate(id).orElseThrow());
          }
          assertEquals(List.of("deploy-key"), record.result().redacted());
          assertEquals("echo-[redacted:deploy-key]", record.result().headers().get("x-request-id"));
          String base64 = Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8));
          List<String> hits = new ArrayList<>();
          for (HistoryEvent event : connection.client().fetchHistory(record.workflowId(), record.runId()).getEvents()) {
            String raw = new String(event.toByteArray(), StandardCharsets.ISO_8859_1);
            if (raw.contains(SECRET) || event.toString().contains(SECRET) || raw.contains(base64)) {
              hits.add("history event " + event.getEventId() + " " + event.getEventType());
            }
          }
          String recordJson = new ObjectMapper().writeValueAsString(record);
          if (recordJson.contains(SECRET)) {
            hits.add("execution record");
          }
          if (response.toString().contains(SECRET)) {
            hits.add("tool result");
          }
          assertTrue(recordJson.contains("[redacted:deploy-key]"), "the record shows where the secret was: " + recordJson);
          assertEquals(List.of(), hits);
        }
      }
    }
  }
}
