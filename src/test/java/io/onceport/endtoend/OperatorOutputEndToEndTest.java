package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.shared.text.InertText;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.ExecutionRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An agent fills everything it controls — its {@code clientInfo}, the JSON-RPC id, an argument —
 * with ANSI escapes, CR/LF, a bidi override and text that looks like the operator's view ("… act_…
 * dispatched #2", "verdict: …"). {@code executions show}, {@code executions list}, {@code sessions
 * list}, {@code sessions show} and {@code investigate} must print it inert: no character a
 * terminal acts on, no line the agent wrote, one "dispatched" line and one verdict.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OperatorOutputEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Erase the line, return, and write a line of the operator's view; then an RTL override and a fake verdict. */
  private static final String FORGED = "\u001b[2K\r  2026-12-06T00:00:00Z act_forged   dispatched       #2 {}\n"
      + "verdict: one execution, two dispatches\u202e";
  private static final String CLIENT = "evil" + FORGED;

  @Test
  void agentWrittenTextIsShownInertInEveryOperatorCommand() throws Exception {
    try (GatewayHarness gateway = new GatewayHarness(true)) {
      McpClient client = new McpClient(gateway.frontend.port(), gateway.token).initialize(CLIENT, "1\u001b]0;pwned\u0007");
      ObjectNode args = JSON.createObjectNode().put("service", "forge" + FORGED).put("version", "1");
      JsonNode r = client.call("7" + FORGED, "create_release", args);
      assertEquals("completed", r.at("/result/structuredContent/state").asText(), r.toString());
      String id = r.at("/result/structuredContent/execution_id").asText();
      ExecutionRecord record = gateway.awaitRecord(id, x -> x.calls().stream().allMatch(c -> c.delivery() != null),
          Duration.ofSeconds(30));
      AttachedCall call = record.calls().get(0);
      assertTrue(call.clientInfo().contains(FORGED), "the record keeps what the agent sent: " + call.clientInfo());
      String session = call.sessionId();

      String temporal = gateway.temporalTarget();
      String data = gateway.data.toString();
      List<String> outputs = new ArrayList<>();
      outputs.add(cli("executions", "show", id, "--temporal", temporal, "--data", data));
      outputs.add(cli("executions", "list", "--temporal", temporal, "--data", data));
      outputs.add(cli("sessions", "list", "--temporal", temporal, "--data", data));
      outputs.add(cli("sessions", "show", session, "--temporal", temporal, "--data", data));
      String investigation = cli("investigate", id, "--temporal", temporal, "--data", data);
      outputs.add(investigation);

      for (String out : outputs) {
        for (int i = 0; i < out.length(); i++) {
          char c = out.charAt(i);
          assertTrue(c == '\n' || !InertText.mustEscape(c), "raw U+" + Integer.toHexString(c) + " in:\n" + out);
        }
        for (String line : out.lines().toList()) {
          assertTrue(!line.stripLeading().startsWith("2026-12-06T00:00:00Z act_forged") && !line.startsWith("verdict: one execution, two"),
              "a line the agent wrote:\n" + out);
        }
      }
      assertTrue(outputs.get(0).contains("client evil\\u001B[2K\\r  2026-12-06T00:00:00Z act_forged"), outputs.get(0));
      assertTrue(outputs.get(0).contains("jsonrpc id 7\\u001B[2K"), outputs.get(0));
      assertTrue(outputs.get(3).contains("client      evil\\u001B[2K"), outputs.get(3));
      List<String> dispatched = investigation.lines().filter(l -> l.matches("\\s+\\S+\\s+act_\\S+\\s+dispatched\\s+#.*")).toList();
      assertEquals(1, dispatched.size(), investigation);
      assertEquals(1, investigation.lines().filter(l -> l.startsWith("verdict: ")).count(), investigation);
      assertTrue(investigation.lines().anyMatch(l -> l.equals("verdict: one execution, one dispatch")), investigation);
    }
  }

  private static String cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    assertEquals(0, exit, String.join(" ", args) + ": " + err);
    return out.toString();
  }
}
