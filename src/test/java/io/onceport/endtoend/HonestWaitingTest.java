package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.app.demo.DemoTarget;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.Node22;
import io.onceport.testing.PythonMcp;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the default {@code --session-authorization operator}, a real SDK client (the official
 * Python MCP SDK) gets an answer to its first {@code tools/call} within seconds — a tool result
 * saying the session awaits authorization and the exact command to run — instead of waiting with
 * no output; after an operator runs that command, the same call in the same session succeeds,
 * attached to the same execution, and the target acted once. The gateway is a real {@code serve}
 * JVM with the shipped contracts, pointed at the demo target by {@code --set DEMO_TARGET=…}.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class HonestWaitingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern MCP_PORT = Pattern.compile("MCP endpoint http://127\\.0\\.0\\.1:(\\d+)/mcp");
  private static final Pattern AUTHORIZE = Pattern.compile("onceport sessions authorize (\\S+?)\\.?(\\s|$)");
  /**
   * How long serve's {@code tools/call} waits for an outcome before answering with the pending
   * state. Set well above {@link #FIRST_ANSWER_SECONDS}, so an answer in time can only be the early
   * answer for an operator wait, never the wait running out (the first call used to wait the whole
   * {@code --call-wait} or forever).
   */
  private static final Duration CALL_WAIT = Duration.ofSeconds(60);
  /**
   * "Within seconds": the first call of a fresh serve JVM, with headroom for a loaded 2-core CI
   * machine (7.5 s seen at load 28; a 5 s limit failed there), a third of {@link #CALL_WAIT}.
   */
  private static final double FIRST_ANSWER_SECONDS = 20;

  @TempDir Path dir;

  @Test
  void anSdkClientIsToldAtOnceWhatToRunAndTheSameCallSucceedsAfterSessionsAuthorize() throws Exception {
    Path python = PythonMcp.ready();
    Path data = dir.resolve("data");
    String token = new AgentRegistry(data).add("agent:first-hour");
    int engine = Cluster.freePort();
    try (DemoTarget target = DemoTarget.start("127.0.0.1", 0);
        ChildProcess serve = ChildProcess.onceport(Path.of("."), "serve", "--listen", "127.0.0.1:0",
            "--embedded-port", Integer.toString(engine), "--data", data.toString(), "--call-wait", CALL_WAIT.toString(),
            "--set", "DEMO_TARGET=http://127.0.0.1:" + target.port())) {
      serve.awaitLine("onceport: MCP endpoint", Duration.ofSeconds(90));
      assertTrue(serve.output().stream().anyMatch(l -> l.contains("session authorization operator")), serve.output().toString());
      int port = mcpPort(serve.output());

      Node22.Started client = Node22.start(List.of(python.toString(), "src/test/python/honest_waiting.py",
          "http://127.0.0.1:" + port + "/mcp", token), Path.of("."), Map.of());
      try (client) {
        JsonNode first = JSON.readTree(client.awaitLine("\"event\": \"first\"", Duration.ofSeconds(60)));
        String text = first.get("text").asText();
        assertTrue(first.get("seconds").asDouble() < FIRST_ANSWER_SECONDS,
            "the first call answered after " + first.get("seconds") + " s: " + first);
        assertFalse(first.get("isError").asBoolean(), "waiting is not a failure: " + first);
        assertEquals("awaiting_session_authorization", first.at("/structured/state").asText(), first.toString());
        assertTrue(text.contains("awaits authorization by an operator"), text);
        Matcher m = AUTHORIZE.matcher(text);
        assertTrue(m.find(), "the exact command: " + text);
        String session = m.group(1);
        assertTrue(session.startsWith("mcp:"), session);
        String executionId = first.at("/structured/execution_id").asText();
        assertEquals(0, dispatches(target), "nothing was sent before the authorization");

        // The operator: a key pair registered where serve's worker reads operators, the private key apart.
        Path key = dir.resolve("operator-keys/first-hour-operator.key");
        io.onceport.testing.Operators.register(data, "first-hour-operator").write(key, false);
        ChildProcess authorize = ChildProcess.onceport(Path.of("."), "sessions", "authorize", session, "--yes",
            "--temporal", "127.0.0.1:" + engine, "--data", data.toString(), "--key-file", key.toString());
        assertEquals(0, authorize.awaitExit(Duration.ofSeconds(60)), authorize.output().toString());

        OutputStream stdin = client.process().getOutputStream();
        stdin.write("\n".getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        JsonNode second = JSON.readTree(client.awaitLine("\"event\": \"second\"", Duration.ofSeconds(60)));
        assertFalse(second.get("isError").asBoolean(), second.toString());
        assertEquals("completed", second.at("/structured/state").asText(), second.toString());
        assertEquals(executionId, second.at("/structured/execution_id").asText(), "the same execution: " + second);
        assertEquals(1, dispatches(target), "the target acted once");
      }
    }
  }

  private static long dispatches(DemoTarget target) {
    return target.ledger().stream().filter(e -> e.path().equals("/v1/releases") && e.body().contains("honest-waiting")).count();
  }

  private static int mcpPort(List<String> output) {
    for (String line : output) {
      Matcher m = MCP_PORT.matcher(line);
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
    }
    throw new AssertionError("no MCP port in " + output);
  }
}
