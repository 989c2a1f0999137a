package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An SSH tool through the whole gateway (MCP front end, workflow, worker) against a real SSH server
 * with a real shell: the marker helper makes a worker killed mid-command harmless — the command
 * finishes once, the next worker's status query reads the marker, nothing runs twice.
 */
@Timeout(180)
class SshGatewayEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** The client key, the installed marker helper, its state dir and the file the command appends to. */
  private record Host(KeyPair client, Path keyFile, Path helper, Path state, Path ranFile) {}

  private Host host() throws Exception {
    KeyPair client = TestKeys.ec();
    Path keyFile = dir.resolve("id_test");
    Files.writeString(keyFile, TestKeys.openSshPrivateKey(client));
    return new Host(client, keyFile, SshFixture.installHelper(dir), Files.createDirectories(dir.resolve("state")),
        dir.resolve("ran.txt"));
  }

  private Path contracts(MinaServer server, Host host) throws Exception {
    Path contracts = Files.createDirectories(dir.resolve("ssh-contracts"));
    Files.writeString(contracts.resolve("migrate.yaml"), """
        tool: migrate
        description: Run a migration on the host (SSH end-to-end test).
        input_schema:
          type: object
          required: [version]
          properties:
            version: {type: string}
        channel: ssh
        ssh:
          host: 127.0.0.1
          port: %d
          user: deploy
          host_key: "%s"
          key_file: %s
          command: ["/bin/sh", "-c", "echo started >> '%s'; sleep 4; echo migrated to \\"$0\\"", "{{version}}"]
          marker: true
          helper_path: %s
          state_dir: %s
          timeout: PT1M
        replay:
          class: status_query
          attach_window: PT10M
        """.formatted(server.port(), server.hostKeyFingerprint(), host.keyFile(), host.ranFile(), host.helper(), host.state()));
    return contracts;
  }

  @Test
  void workerKilledMidCommandLeavesItToFinishOnceAndTheMarkerSettlesTheExecution() throws Exception {
    Host host = host();
    Path ranFile = host.ranFile();
    try (MinaServer server = new MinaServer(List.of(host.client()));
        GatewayHarness gateway = new GatewayHarness(false, Duration.ofSeconds(1));
        FrontendRuntime frontend = FrontendRuntime.start(gateway.connection, GatewayHarness.TASK_QUEUE, gateway.data,
            new ContractLoader().load(contracts(server, host)),
            FrontendSettings.loopback(Duration.ofSeconds(1), "auto"), gateway.metrics)) {
      String[] worker = {"worker", "--temporal", gateway.engine.target(), "--embedded-engine", "--task-queue",
          GatewayHarness.TASK_QUEUE, "--data", gateway.data.toString(), "--session-authorization", "auto"};
      McpClient mcp = new McpClient(frontend.port(), gateway.token).initialize();
      String id;
      try (ChildProcess first = ChildProcess.onceport(gateway.dir, worker).awaitLine("onceport: worker", Duration.ofSeconds(60))) {
        JsonNode pending = mcp.call(1, "migrate", JSON.readTree("{\"version\":\"2026.07.22; rm -rf /\"}"));
        id = pending.at("/result/structuredContent/execution_id").asText();
        long deadline = System.currentTimeMillis() + 30_000;
        while (!(Files.exists(ranFile) && Files.readString(ranFile).contains("started")) && System.currentTimeMillis() < deadline) {
          Thread.sleep(50);
        }
        assertTrue(Files.exists(ranFile), "the command started on the host");
        first.kill9();
      }
      try (ChildProcess second = ChildProcess.onceport(gateway.dir, worker).awaitLine("onceport: worker", Duration.ofSeconds(60))) {
        ExecutionRecord record = gateway.awaitRecord(id, r -> r.state() == ExecutionState.COMPLETED, Duration.ofSeconds(90));
        assertEquals(0, record.exitStatus());
        assertEquals(1, record.dispatchAttempts(), "never dispatched a second time");
        assertTrue(record.statusChecks().stream().anyMatch(c -> c.verdict().equals("completed")), record.statusChecks().toString());
        assertEquals(List.of("started"), Files.readAllLines(ranFile), "the command ran exactly once");
        JsonNode retry = mcp.call(2, "migrate", JSON.readTree("{\"version\":\"2026.07.22; rm -rf /\"}"));
        assertEquals(id, retry.at("/result/structuredContent/execution_id").asText());
        assertEquals("completed", retry.at("/result/structuredContent/state").asText());
        assertEquals(List.of("started"), Files.readAllLines(ranFile));
      }
    }
  }

  @Test
  void aCompletedSshCallReturnsTheCommandsOutputAndMetacharactersStayLiteral() throws Exception {
    Host host = host();
    Path ranFile = host.ranFile();
    try (MinaServer server = new MinaServer(List.of(host.client()));
        GatewayHarness gateway = new GatewayHarness(true, Duration.ofSeconds(30));
        FrontendRuntime frontend = FrontendRuntime.start(gateway.connection, GatewayHarness.TASK_QUEUE, gateway.data,
            new ContractLoader().load(contracts(server, host)),
            FrontendSettings.loopback(Duration.ofSeconds(30), "auto"), gateway.metrics)) {
      McpClient mcp = new McpClient(frontend.port(), gateway.token).initialize();
      JsonNode done = mcp.call(1, "migrate", JSON.readTree("{\"version\":\"$(touch /tmp/pwned) 'x' ; echo\"}"));
      assertEquals("completed", done.at("/result/structuredContent/state").asText(), done.toString());
      assertEquals(0, done.at("/result/structuredContent/exit_status").asInt());
      assertEquals("migrated to $(touch /tmp/pwned) 'x' ; echo", done.at("/result/content/0/text").asText().strip());
      assertEquals(List.of("started"), Files.readAllLines(ranFile));
    }
  }
}
