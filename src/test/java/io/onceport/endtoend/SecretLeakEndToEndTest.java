package io.onceport.endtoend;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
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
import io.onceport.shared.temporal.TemporalConnection;
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
        connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
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
          root.detachAppender(logs); // background threads still log: stop collecting before reading the list
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

  /**
   * A {@code fingerprint.secret} argument that cannot be a header value — an {@code é}, a CR/LF —
   * was quoted by the HTTP client's error into the journal, the log, the record and the agent's
   * answer. Now the call is refused as invalid arguments without quoting it, and the secret is
   * nowhere: not in history, records, files, logs or any answer.
   */
  @Test
  void aSecretArgumentThatCannotBeAHeaderValueIsRefusedWithoutBeingQuotedAnywhere() throws Exception {
    List<String> secrets = List.of("pin-\u00e9-Zq8vN3-do-not-leak", "pin-Zq8vN3\r\nX-Injected: do-not-leak-2");
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Logger onceport = context.getLogger("io.onceport");
    ch.qos.logback.classic.Level previous = root.getLevel();
    ch.qos.logback.classic.Level previousOnceport = onceport.getLevel();
    // Onceport's own logs at DEBUG, libraries at INFO (Onceport's default is WARN): at DEBUG Jetty
    // logs the bytes of every request, arguments and all, which is Jetty's debugging aid, not a log.
    root.setLevel(ch.qos.logback.classic.Level.INFO);
    onceport.setLevel(ch.qos.logback.classic.Level.DEBUG);
    logs.setContext(context);
    logs.start();
    root.addAppender(logs);
    try (MockWebServer target = new MockWebServer()) {
      target.start(java.net.InetAddress.getLoopbackAddress(), 0);
      Path contracts = Files.createDirectories(dir.resolve("contracts"));
      Files.writeString(contracts.resolve("unlock.yaml"), """
          tool: unlock
          description: Unlock a door with a PIN (secret-argument test).
          input_schema:
            type: object
            required: [door, pin]
            properties:
              door: {type: string}
              pin: {type: string}
          channel: http
          http:
            method: POST
            url: %s/v1/doors/{{door}}/unlock
            headers: {X-Pin: "{{pin}}"}
            body: {door: "{{door}}"}
          replay:
            class: irreversible
          fingerprint:
            secret: [pin]
          """.formatted(target.url("/").toString().replaceAll("/$", "")));
      String token = new AgentRegistry(data).add("agent:deployer");
      Metrics metrics = new Metrics();
      try (EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
          TemporalConnection connection = TemporalConnection.connect(engine.target(), "default", true,
              io.onceport.shared.codec.Payloads.dataConverter(false, data), Duration.ofSeconds(10), metrics.metricsScope())) {
        connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
        try (WorkerRuntime worker = WorkerRuntime.start(connection, "leak", data, null, "auto", Duration.ofMinutes(1), "leak");
            FrontendRuntime frontend = FrontendRuntime.start(connection, "leak", data, new ContractLoader().load(contracts),
                FrontendSettings.loopback(Duration.ofSeconds(20), "auto"), metrics)) {
          McpClient client = new McpClient(frontend.port(), token).initialize();
          List<JsonNode> answers = new ArrayList<>();
          int id = 1;
          for (String secret : secrets) {
            JsonNode args = new ObjectMapper().createObjectNode().put("door", "front").put("pin", secret);
            JsonNode answer = client.call(id++, "unlock", args);
            answers.add(answer);
            assertTrue(answer.at("/result/isError").asBoolean(), answer.toString());
            assertEquals("Invalid arguments for unlock: pin: a header value cannot carry a line break, another control "
                + "character or a non-ASCII character (http.headers.X-Pin); the value is not shown", answer.at("/result/content/0/text").asText(),
                answer.toString());
          }
          assertEquals(0, target.getRequestCount(), "nothing was sent");
          // A call that is sent: the journal is written, so the search below covers a journal too.
          target.enqueue(new MockResponse.Builder().code(200).body("{\"unlocked\":true}").build());
          JsonNode sent = client.call(id, "unlock", new ObjectMapper().createObjectNode().put("door", "back").put("pin", "1234"));
          assertEquals("completed", sent.at("/result/structuredContent/state").asText("failed"), sent.toString());
          worker.journals().activity().checkpoint();

          List<String> hits = new ArrayList<>();
          ExecutionDirectory directory = new ExecutionDirectory(connection);
          for (var location : directory.list(null, 100)) {
            ExecutionRecord record = directory.record(location);
            String recordJson = new ObjectMapper().writeValueAsString(record);
            for (HistoryEvent event : connection.client().fetchHistory(record.workflowId(), record.runId()).getEvents()) {
              String text = new String(event.toByteArray(), StandardCharsets.UTF_8) + event;
              secrets.forEach(secret -> {
                if (text.contains(secret) || text.contains(distinctive(secret))) {
                  hits.add("history of " + record.executionId() + " event " + event.getEventId());
                }
              });
            }
            secrets.forEach(secret -> {
              if (recordJson.contains(distinctive(secret))) {
                hits.add("record " + record.executionId());
              }
            });
          }
          for (JsonNode answer : answers) {
            secrets.forEach(secret -> {
              if (answer.toString().contains(distinctive(secret))) {
                hits.add("answer " + answer.get("id"));
              }
            });
          }
          try (var files = Files.walk(data)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
              String text = new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
              secrets.forEach(secret -> {
                if (text.contains(distinctive(secret))) {
                  hits.add("file " + data.relativize(f));
                }
              });
            }
          }
          assertTrue(Files.list(data.resolve("journal/activity")).findAny().isPresent(), "the journal was written");
          root.detachAppender(logs);
          for (ILoggingEvent e : logs.list) {
            String line = e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage());
            secrets.forEach(secret -> {
              if (line.contains(distinctive(secret))) {
                hits.add("log " + e.getLoggerName());
              }
            });
          }
          assertTrue(logs.list.size() > 10, "logs were captured: " + logs.list.size());
          assertEquals(List.of(), hits);
        }
      }
    } finally {
      root.detachAppender(logs);
      root.setLevel(previous);
      onceport.setLevel(previousOnceport);
    }
  }

  /** The part of each secret that no text has for another reason (found also when the rest of it is escaped). */
  private static String distinctive(String secret) {
    return secret.substring(secret.indexOf("Zq8vN3"), secret.indexOf("Zq8vN3") + 6);
  }
}
