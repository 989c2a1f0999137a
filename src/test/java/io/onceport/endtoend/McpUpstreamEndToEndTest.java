package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.Node22;
import io.onceport.testing.UpstreamServers;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Existing MCP servers behind Onceport, end to end: the TypeScript-SDK ticket server (Streamable
 * HTTP, honours idempotencyKey) and notes server (stdio, run and supervised by the worker) are
 * imported with {@code contracts import-mcp} — the stdio note tool reviewed into {@code
 * status_query} with its status tool, as an operator would — and served by the whole gateway; an
 * official TypeScript SDK client calls through it. The upstreams' ledgers say what really happened.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class McpUpstreamEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static UpstreamServers.Http tickets;
  private static UpstreamServers.Stdio notes;
  private static GatewayHarness gateway;
  private static Path node;

  @BeforeAll
  static void start() throws Exception {
    node = Node22.ready().resolve("node");
    tickets = UpstreamServers.Http.start();
    Path dir = Files.createTempDirectory("onceport-mcp-e2e");
    notes = new UpstreamServers.Stdio(Files.createDirectories(dir.resolve("notes")));
    Path contracts = Files.createDirectories(dir.resolve("imported"));
    cli("contracts", "import-mcp", "--url", tickets.url(), "--out", contracts.toString());
    List<String> stdio = new ArrayList<>(List.of("contracts", "import-mcp", "--tool", "append_note", "note_status",
        "--out", contracts.toString()));
    notes.env().forEach((k, v) -> stdio.addAll(List.of("--env", k + "=" + v)));
    stdio.add("--command");
    stdio.addAll(notes.command);
    cli(stdio.toArray(String[]::new));
    // The operator's review: append_note can be settled by note_status, so it becomes status_query.
    Path note = contracts.resolve("append_note.yaml");
    Files.writeString(note, Files.readString(note).replaceAll("(?m)^  # .*\\n", "").replace("  class: irreversible",
        "  class: status_query\n  status:\n    tool: note_status\n    arguments: {key: \"{{execution_id}}\"}\n"
            + "    field: state\n    completed_when: [written]\n    not_executed_when: [not_found]\n  #"));
    gateway = new GatewayHarness(true, Duration.ofSeconds(20), UpstreamServers.contractFiles(contracts));
  }

  @AfterAll
  static void stop() throws Exception {
    if (gateway != null) {
      gateway.close();
    }
    if (tickets != null) {
      tickets.close();
    }
  }

  @Test
  void aCallWhoseAnswerIsLostIsRetriedAndTheRetryGetsTheResultOfTheOneUpstreamCall() throws Exception {
    tickets.fault("delay=4000", 1);
    String args = "{\"to\":\"ops@example.com\",\"subject\":\"lost answer\"}";

    JsonNode first = only(client("call", "send_email", args, "1000"), "gave-up");
    JsonNode retry = only(client("call", "send_email", args), "result").get("result");

    assertTrue(first.get("message").asText().contains("timed out"), first.toString());
    JsonNode execution = retry.at("/_meta/onceport~1execution");
    assertEquals("completed", execution.get("state").asText(), retry.toString());
    assertTrue(execution.get("attached").asBoolean(), "the retry attached to the first execution: " + retry);
    assertEquals("sent \"lost answer\" to ops@example.com", retry.at("/content/0/text").asText());
    assertFalse(retry.get("isError").asBoolean());
    List<JsonNode> calls = tickets.calls("send_email", "subject", "lost answer");
    assertEquals(1, calls.size(), "the upstream tool ran once: " + calls);
    assertEquals(execution.get("execution_id").asText(), calls.get(0).get("idempotencyKey").asText());
  }

  @Test
  void anIrreversibleToolWhoseUpstreamStreamIsCutWaitsForReviewAndIsNeverResent() throws Exception {
    tickets.fault("cut-after-call", 1);
    String args = "{\"to\":\"ops@example.com\",\"subject\":\"cut stream\"}";

    JsonNode result = only(client("call", "send_email", args), "result").get("result");
    JsonNode execution = result.at("/_meta/onceport~1execution");
    String id = execution.get("execution_id").asText();
    JsonNode again = only(client("call", "send_email", args), "result").get("result").at("/_meta/onceport~1execution");

    assertEquals("needs_review", execution.get("state").asText(), result.toString());
    assertEquals("unknown", execution.get("outcome").asText());
    assertEquals(id, again.get("execution_id").asText(), "the retry attached");
    assertEquals("needs_review", again.get("state").asText());
    assertEquals(1, tickets.calls("send_email", "subject", "cut stream").size(), "sent once, not re-sent");
    ExecutionRecord rec = gateway.record(id);
    assertEquals(1, rec.dispatchAttempts());
    assertTrue(rec.transitions().stream().anyMatch(t -> t.detail().contains("may have reached the server")
        || t.detail().contains("broke off")), rec.transitions().toString());
  }

  @Test
  void aStatusQueryToolWhoseStdioServerDiesMidCallIsSettledByItsStatusToolAfterTheRestart() throws Exception {
    notes.fault("die-after-call");

    JsonNode result = only(client("call", "append_note", "{\"text\":\"survives a crash\"}"), "result").get("result");

    JsonNode execution = result.at("/_meta/onceport~1execution");
    assertEquals("completed", execution.get("state").asText(), result.toString());
    ExecutionRecord rec = gateway.record(execution.get("execution_id").asText());
    assertEquals(Outcome.COMPLETED, rec.outcome());
    assertEquals(1, rec.dispatchAttempts(), "not re-sent: the status tool settled it");
    assertEquals("completed", rec.statusChecks().get(rec.statusChecks().size() - 1).verdict(), rec.statusChecks().toString());
    assertEquals(1, notes.calls("append_note", "survives a crash").size(), "the upstream tool ran once");
    assertEquals(1, notes.notes().stream().filter(n -> n.contains("survives a crash")).count());
    assertTrue(notes.ledger().stream().filter(e -> e.get("tool").asText().equals("note_status")).count() >= 1);
  }

  @Test
  void anIdempotencyKeyToolWhoseStreamIsCutIsResentWithTheSameKeyAndTheUpstreamActsOnce() throws Exception {
    tickets.fault("cut-after-call", 1);

    JsonNode result = only(client("call", "create_ticket", "{\"title\":\"keyed cut\"}"), "result").get("result");

    JsonNode execution = result.at("/_meta/onceport~1execution");
    assertEquals("completed", execution.get("state").asText(), result.toString());
    List<JsonNode> calls = tickets.calls("create_ticket", "title", "keyed cut");
    assertEquals(2, calls.size(), "the first send and one re-send: " + calls);
    assertEquals(calls.get(0).get("idempotencyKey"), calls.get(1).get("idempotencyKey"), "the same key");
    assertEquals(List.of(false, true), calls.stream().map(c -> c.get("replayed").asBoolean()).toList());
    assertTrue(result.at("/structuredContent/ticket_id").asText().startsWith("T-"), result.toString());
  }

  @Test
  void theGatewayListsImportedToolsWithAnnotationsFromTheirReplayClass() throws Exception {
    JsonNode tools = only(client("list"), "tools").get("tools");
    Map<String, JsonNode> byName = new java.util.HashMap<>();
    tools.forEach(t -> byName.put(t.get("name").asText(), t.get("annotations")));

    assertEquals(JSON.readTree("{\"readOnlyHint\":true,\"openWorldHint\":true}"), byName.get("list_tickets"));
    assertEquals(JSON.readTree("{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":true}"),
        byName.get("create_ticket"));
    assertEquals(JSON.readTree("{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":false,\"openWorldHint\":true}"),
        byName.get("send_email"));
    // append_note has no upstream annotations; as a status_query tool it is listed destructive, not idempotent
    assertEquals(JSON.readTree("{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":false,\"openWorldHint\":true}"),
        byName.get("append_note"));
    assertTrue(byName.containsKey("create_release"), "the HTTP contracts are listed beside them");
  }

  @Test
  void aClientsIdempotencyKeyNamesTheExecutionAndAReuseWithOtherArgumentsIsRefused() throws Exception {
    String args = "{\"to\":\"ops@example.com\",\"subject\":\"keyed by the client\"}";

    JsonNode first = only(client("call", "send_email", args, "", "client-key-1"), "result").get("result");
    JsonNode second = only(client("call", "send_email", args, "", "client-key-1"), "result").get("result");
    JsonNode other = only(client("call", "send_email", "{\"to\":\"ops@example.com\",\"subject\":\"other\"}", "", "client-key-1"),
        "result").get("result");

    String id = first.at("/_meta/onceport~1execution/execution_id").asText();
    assertEquals("completed", first.at("/_meta/onceport~1execution/state").asText(), first.toString());
    assertEquals(id, second.at("/_meta/onceport~1execution/execution_id").asText(), "same key, same execution");
    assertTrue(other.get("isError").asBoolean(), other.toString());
    assertTrue(other.at("/content/0/text").asText().contains("intent key client-key-1 was already used"), other.toString());
    assertEquals(1, tickets.calls("send_email", "subject", "keyed by the client").size());
    assertEquals(0, tickets.calls("send_email", "subject", "other").size(), "nothing dispatched for the refused reuse");
    assertEquals("client-key-1", gateway.record(id).intentKey());
  }

  // ---- helpers ----

  private static void cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute(args);
    if (exit != 0) {
      throw new AssertionError("onceport " + String.join(" ", args) + " exited " + exit + ":\n" + out + err);
    }
  }

  private static List<JsonNode> client(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(node.toString(), "upstream-client.mjs",
        "http://127.0.0.1:" + gateway.frontend.port() + "/mcp", gateway.token));
    cmd.addAll(List.of(args));
    Node22.Result r = Node22.start(cmd, Node22.PROJECT, Map.of()).await(Duration.ofSeconds(90));
    List<JsonNode> lines = new ArrayList<>();
    for (String l : r.output()) {
      if (l.startsWith("{")) {
        lines.add(JSON.readTree(l));
      }
    }
    return lines;
  }

  private static JsonNode only(List<JsonNode> lines, String event) {
    List<JsonNode> found = lines.stream().filter(l -> l.path("event").asText().equals(event)).toList();
    assertEquals(1, found.size(), "one '" + event + "' line expected: " + lines);
    return found.get(0);
  }
}
