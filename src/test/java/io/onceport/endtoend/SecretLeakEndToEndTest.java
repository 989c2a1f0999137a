package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import io.onceport.frontend.temporal.TemporalConnection;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.ExecutionRecord;
import io.temporal.api.history.v1.HistoryEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A full call with a vault credential, then a search for the secret everywhere it must not be: the
 * Temporal history (every event, every payload — with payload encryption off, so a leak would be
 * plain text), the execution record, the journals, every file of the data directory and the logs.
 */
@Timeout(120)
class SecretLeakEndToEndTest {
  private static final String SECRET = "tok-Zq8vN3-do-not-leak-41f9";
  private static final String PASSPHRASE = "correct horse battery staple";

  @TempDir Path dir;

  @Test
  void theCredentialReachesTheTargetAndNothingElse() throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    try (Vault vault = Vault.create(data, PASSPHRASE.toCharArray(), KdfParameters.forTests())) {
      vault.put(new Credential("deploy-api", Credential.Type.BEARER, null, null, SECRET), false);
    }
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ch.qos.logback.classic.Level previous = root.getLevel();
    root.setLevel(ch.qos.logback.classic.Level.DEBUG);
    logs.setContext(context);
    logs.start();
    root.addAppender(logs);
    try (MockWebServer target = new MockWebServer()) {
      target.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"rel_1\"}").build());
      target.start(java.net.InetAddress.getLoopbackAddress(), 0);
      Path contracts = Files.createDirectories(dir.resolve("contracts"));
      Files.writeString(contracts.resolve("create_release.yaml"), """
          tool: create_release
          description: Deploy a release (secret-leak test).
          input_schema:
            type: object
            required: [service, version]
            properties:
              service: {type: string}
              version: {type: string}
          channel: http
          http:
            method: POST
            url: %s/v1/releases
            idempotency_header: Idempotency-Key
            credential: deploy-api
          replay:
            class: irreversible
            attach_window: PT1M
          """.formatted(target.url("/").toString().replaceAll("/$", "")));
      String token = new AgentRegistry(data).add("agent:deployer");
      Metrics metrics = new Metrics();
      try (EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
          TemporalConnection connection = TemporalConnection.connect(engine.target(), "default", true,
              io.onceport.shared.codec.Payloads.dataConverter(false, data), Duration.ofSeconds(10), metrics.metricsScope())) {
        connection.registerSearchAttributes();
        VaultService service = VaultService.open(data, PassphraseSource.fromEnvironment(Map.of(PassphraseSource.ENV, PASSPHRASE)));
        try (WorkerRuntime worker = WorkerRuntime.start(connection, "leak", data, service, "auto", Duration.ofMinutes(1), "leak");
            FrontendRuntime frontend = FrontendRuntime.start(connection, "leak", data, new ContractLoader().load(contracts),
                FrontendSettings.loopback(Duration.ofSeconds(20), "auto"), metrics)) {
          McpClient client = new McpClient(frontend.port(), token).initialize();
          JsonNode response = client.call(1, "create_release", new ObjectMapper().readTree("{\"service\":\"catalog\",\"version\":\"1\"}"));
          assertEquals("completed", response.at("/result/structuredContent/state").asText(), response.toString());
          RecordedRequest sent = target.takeRequest();
          assertEquals("Bearer " + SECRET, sent.getHeaders().get("Authorization"), "the target must get the credential");

          String id = response.at("/result/structuredContent/execution_id").asText();
          ExecutionDirectory directory = new ExecutionDirectory(connection);
          ExecutionRecord record = directory.record(directory.locate(id).orElseThrow());
          List<String> hits = new ArrayList<>();
          for (HistoryEvent event : connection.client().fetchHistory(record.workflowId(), record.runId()).getEvents()) {
            if (new String(event.toByteArray(), StandardCharsets.ISO_8859_1).contains(SECRET) || event.toString().contains(SECRET)) {
              hits.add("history event " + event.getEventId() + " " + event.getEventType());
            }
          }
          if (new ObjectMapper().writeValueAsString(record).contains(SECRET)) {
            hits.add("execution record");
          }
          if (response.toString().contains(SECRET)) {
            hits.add("tool result");
          }
          worker.journals().activity().checkpoint();
          try (var files = Files.walk(data)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
              String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
              if (text.contains(SECRET)) {
                hits.add("file " + data.relativize(f));
              }
            }
          }
          assertTrue(Files.list(data.resolve("journal/activity")).findAny().isPresent(), "the journal was written");
          for (ILoggingEvent e : logs.list) {
            String line = e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage());
            if (line.contains(SECRET)) {
              hits.add("log " + e.getLoggerName());
            }
          }
          assertTrue(logs.list.size() > 10, "logs were captured: " + logs.list.size());
          assertEquals(List.of(), hits);
        }
      }
    } finally {
      root.detachAppender(logs);
      root.setLevel(previous);
    }
  }
}
