package io.onceport.app.cli;

import static io.onceport.app.cli.AgentCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.testing.UpstreamServers;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code contracts import-mcp} and {@code contracts check --upstream} against the TypeScript-SDK
 * upstreams: the Streamable HTTP ticket server (tools.idempotency advertised), the same server
 * without it, and the stdio notes server.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ImportMcpCommandTest {
  private static UpstreamServers.Http keyed;
  private static UpstreamServers.Http unkeyed;

  @TempDir Path tmp;

  @BeforeAll
  static void start() throws Exception {
    keyed = UpstreamServers.Http.start();
    unkeyed = UpstreamServers.Http.start("--no-idempotency");
  }

  @AfterAll
  static void stop() throws Exception {
    if (keyed != null) {
      keyed.close();
    }
    if (unkeyed != null) {
      unkeyed.close();
    }
  }

  @Test
  void importingTheHttpServerWritesOneContractPerToolThatCheckAccepts() throws Exception {
    AgentCommandTest.Run r = run("contracts", "import-mcp", "--url", keyed.url(), "--out", tmp.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().endsWith("imported 4 of 4 tools of ticket-server 1.4.0; review each file's replay class, then: "
        + "onceport contracts check " + tmp + "\n"), r.out());

    ContractSet set = new ContractLoader().load(tmp);
    assertEquals(ReplayClass.IDEMPOTENCY_KEY, set.find("create_ticket").orElseThrow().replayClass());
    assertEquals(ReplayClass.READ_ONLY, set.find("list_tickets").orElseThrow().replayClass());
    assertEquals(ReplayClass.IRREVERSIBLE, set.find("send_email").orElseThrow().replayClass());
    ToolContract create = set.find("create_ticket").orElseThrow();
    assertEquals(ToolContract.Channel.MCP, create.channel());
    assertEquals(keyed.url(), create.mcp().url());
    assertEquals("create_ticket", create.mcp().tool());
    assertEquals("Open a ticket in the tracker. Creates one ticket per call.", create.description());
    assertTrue(create.inputSchema().contains("\"priority\":{\"type\":\"string\",\"enum\":[\"low\",\"high\"],\"default\":\"low\"}"),
        create.inputSchema());
    assertTrue(create.outputSchema().contains("\"ticket_id\""), create.outputSchema());
    String email = set.find("send_email").orElseThrow().inputSchema();
    assertEquals("{\"type\":\"object\",\"properties\":{\"to\":{\"type\":\"string\"},\"subject\":{\"type\":\"string\"}},"
        + "\"required\":[\"to\",\"subject\"]}", email, "a draft-07 $schema and a vendor keyword are not JSON Schema 2020-12 keywords");
    String text = Files.readString(tmp.resolve("create_ticket.yaml"));
    assertTrue(text.contains("# Upstream annotations: {\"idempotentHint\":true,\"destructiveHint\":false}; tools.idempotency\n#   advertised."), text);
    assertTrue(text.contains("#   Check: that the server deduplicates this tool by params.idempotencyKey"), text);

    AgentCommandTest.Run check = run("contracts", "check", tmp.toString());
    assertEquals(0, check.exit(), check.err());
    assertEquals("ok  create_ticket  mcp  idempotency_key\nok  list_tickets  mcp  read_only\n"
        + "ok  send_email  mcp  irreversible\nok  ticket_status  mcp  read_only\n", check.out());
  }

  @Test
  void idempotentHintWithoutToolsIdempotencyIsProposedIrreversibleAndSaysWhy() throws Exception {
    AgentCommandTest.Run r = run("contracts", "import-mcp", "--url", unkeyed.url(), "--tool", "create_ticket", "--prefix", "t_",
        "--credential", "tickets", "--out", tmp.toString());
    assertEquals(0, r.exit(), r.err());
    ToolContract c = new ContractLoader().load(tmp).find("t_create_ticket").orElseThrow();
    assertEquals(ReplayClass.IRREVERSIBLE, c.replayClass());
    assertEquals("create_ticket", c.mcp().tool());
    assertEquals("tickets", c.mcp().credential());
    String text = Files.readString(tmp.resolve("t_create_ticket.yaml"));
    assertTrue(text.replaceAll("\n#\\s+", " ").contains("the tool says idempotentHint, but the server does not advertise tools.idempotency"), text);
    assertTrue(text.contains("#   tool: STATUS_TOOL"), "a status_query example to start from: " + text);
  }

  @Test
  void importingTheStdioServerWritesContractsThatCheckAccepts() throws Exception {
    UpstreamServers.Stdio stdio = new UpstreamServers.Stdio(tmp.resolve("server-files"));
    Files.createDirectories(stdio.dir);
    List<String> args = new ArrayList<>(List.of("contracts", "import-mcp", "--out", tmp.resolve("c").toString()));
    stdio.env().forEach((k, v) -> args.addAll(List.of("--env", k + "=" + v)));
    args.addAll(List.of("--working-dir", stdio.dir.toString()));
    args.add("--command");
    args.addAll(stdio.command);
    AgentCommandTest.Run r = run(args.toArray(String[]::new));
    assertEquals(0, r.exit(), r.err());

    AgentCommandTest.Run check = run("contracts", "check", tmp.resolve("c").toString());
    assertEquals(0, check.exit(), check.err());
    assertEquals("ok  append_note  mcp  irreversible\nok  note_status  mcp  read_only\nok  read_notes  mcp  read_only\n", check.out());
    ToolContract note = new ContractLoader().load(tmp.resolve("c")).find("append_note").orElseThrow();
    assertEquals(stdio.command, note.mcp().command());
    assertEquals(stdio.ledger.toString(), note.mcp().env().get("LEDGER_FILE"));
    assertEquals(stdio.dir.toString(), note.mcp().workingDir());
    assertEquals(List.of(), stdio.ledger(), "listing tools calls none");
  }

  /**
   * A hostile upstream (upstream-hostile.mjs, the TypeScript SDK over stdio) puts a character that
   * ends a line for some YAML reader, then a top-level key, into its server name and version, a tool
   * name, an annotation key and a description. The contracts hold what it said as text (quoted
   * scalars, escaped comments) and nothing else: no hidden key, no raw line break a terminal or the
   * loader would honour, and the tool that claims both readOnlyHint and destructiveHint is not
   * proposed read_only.
   */
  @ParameterizedTest(name = "break U+{0}")
  @ValueSource(strings = {"2028", "2029", "000D", "0085"})
  void upstreamTextNeverBecomesYamlStructureAndConflictingHintsAreNotReadOnly(String codePoint) throws Exception {
    String brk = String.valueOf((char) Integer.parseInt(codePoint, 16));
    Path out = tmp.resolve("c");
    List<String> args = new ArrayList<>(List.of("contracts", "import-mcp", "--out", out.toString(), "--env", "BREAK=" + brk,
        "--command", UpstreamServers.Stdio.node().toString(), UpstreamServers.Stdio.script("upstream-hostile.mjs").toString()));
    AgentCommandTest.Run r = run(args.toArray(String[]::new));
    assertEquals(0, r.exit(), r.err());
    assertTrue(!r.out().contains(brk) && !r.err().contains(brk), "the CLI output shows the break escaped: " + r.out());

    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    List<String> files;
    try (var list = Files.list(out)) {
      files = list.map(f -> f.getFileName().toString()).sorted().toList();
    }
    assertEquals(List.of("odd_http___method__GET___.yaml", "peek_item.yaml", "purge_item.yaml", "string_hint.yaml"), files);
    for (String f : files) {
      String text = Files.readString(out.resolve(f));
      assertTrue(!text.contains(brk), f + " holds the break only escaped:\n" + text);
      List<String> keys = new ArrayList<>();
      yaml.readTree(text).fieldNames().forEachRemaining(keys::add);
      assertEquals(List.of("tool", "description", "input_schema", "channel", "mcp", "replay"), keys, f + ":\n" + text);
      assertTrue(text.contains("notes" + escaped(brk) + "fingerprint: {ignore: [id]}" + escaped(brk) + "#"),
          "the server name is in the comment, escaped: " + text);
    }
    ContractSet set = new ContractLoader().load(out);
    assertEquals(ReplayClass.IRREVERSIBLE, set.find("purge_item").orElseThrow().replayClass(), "conflicting hints");
    assertEquals(ReplayClass.READ_ONLY, set.find("peek_item").orElseThrow().replayClass());
    assertEquals(ReplayClass.IRREVERSIBLE, set.find("string_hint").orElseThrow().replayClass(), "\"true\" is not true");
    ToolContract purge = set.find("purge_item").orElseThrow();
    assertEquals(List.of(), purge.fingerprintIgnore());
    assertEquals("Delete an item." + brk + "result: {format: text}" + brk + "#", purge.description(), "kept as the upstream said it");
    assertEquals(brk, purge.mcp().env().get("BREAK"));
    assertEquals("odd" + brk + "http: {method: GET}" + brk + "#", set.find("odd_http___method__GET___").orElseThrow().mcp().tool());
    String purgeText = Files.readString(out.resolve("purge_item.yaml"));
    assertTrue(purgeText.replaceAll("\n#\\s+", " ").contains("Why: the server marks the tool readOnlyHint but also destructiveHint"),
        purgeText);
    AgentCommandTest.Run check = run("contracts", "check", out.toString());
    assertEquals(0, check.exit(), check.err());
  }

  /** How InertText shows a character: named escapes for CR, else backslash-u and four hex digits. */
  private static String escaped(String c) {
    return c.equals("\r") ? "\\r" : String.format("\\u%04X", (int) c.charAt(0));
  }

  @Test
  void anUnreachableServerOrAnUnknownToolIsAOneLineErrorAndWritesNothing() throws Exception {
    AgentCommandTest.Run gone = run("contracts", "import-mcp", "--url", "http://127.0.0.1:1/mcp", "--out", tmp.resolve("x").toString());
    assertEquals(1, gone.exit());
    assertTrue(gone.err().startsWith("onceport: cannot list the tools of http://127.0.0.1:1/mcp: "), gone.err());
    assertTrue(!gone.err().contains("\tat "), gone.err());

    AgentCommandTest.Run unknown = run("contracts", "import-mcp", "--url", keyed.url(), "--tool", "nope", "--out", tmp.resolve("x").toString());
    assertEquals(1, unknown.exit());
    assertEquals("onceport: --tool nope: " + keyed.url() + " has no such tool (it lists create_ticket, list_tickets, send_email, "
        + "ticket_status)\n", unknown.err());
    assertTrue(!Files.exists(tmp.resolve("x")) || Files.list(tmp.resolve("x")).findAny().isEmpty());
  }

  @Test
  void aServerThatNeedsATokenIsListedWithTheTokenFromTheNamedEnvironmentVariable() throws Exception {
    // The test JVM cannot set its own environment: HOME stands in for a variable holding a token.
    String token = System.getenv("HOME");
    try (UpstreamServers.Http guarded = UpstreamServers.Http.start(0, java.util.Map.of("UPSTREAM_TOKEN", token),
        "--require-token-env", "UPSTREAM_TOKEN")) {
      AgentCommandTest.Run anonymous = run("contracts", "import-mcp", "--url", guarded.url(), "--out", tmp.resolve("a").toString());
      assertEquals(1, anonymous.exit());
      assertTrue(anonymous.err().contains("initialize was refused: HTTP 401"), anonymous.err());

      AgentCommandTest.Run withToken = run("contracts", "import-mcp", "--url", guarded.url(), "--token-env", "HOME",
          "--credential", "tickets", "--out", tmp.resolve("b").toString());
      assertEquals(0, withToken.exit(), withToken.err());
      assertTrue(!Files.readString(tmp.resolve("b/send_email.yaml")).contains(token), "the token is not written anywhere");
      assertEquals("tickets", new ContractLoader().load(tmp.resolve("b")).find("send_email").orElseThrow().mcp().credential());

      AgentCommandTest.Run unset = run("contracts", "import-mcp", "--url", guarded.url(), "--token-env", "ONCEPORT_NO_SUCH_VAR_42",
          "--out", tmp.resolve("c").toString());
      assertEquals("onceport: --token-env ONCEPORT_NO_SUCH_VAR_42: the variable is not set\n", unset.err());
    }
  }

  @Test
  void checkUpstreamReportsAToolListChangeAndNeverAppliesIt() throws Exception {
    UpstreamServers.Http changing = UpstreamServers.Http.start();
    try {
      assertEquals(0, run("contracts", "import-mcp", "--url", changing.url(), "--tool", "create_ticket", "send_email",
          "--out", tmp.toString()).exit());
      AgentCommandTest.Run before = run("contracts", "check", "--upstream", tmp.toString());
      assertEquals(0, before.exit(), before.out() + before.err());
      assertTrue(before.out().contains("upstream " + changing.url() + " (ticket-server 1.4.0): 2 contracts, 4 upstream tools, no changes"),
          before.out());

      changing.changeTools();
      AgentCommandTest.Run after = run("contracts", "check", "--upstream", tmp.toString());

      assertEquals(1, after.exit(), after.out());
      assertTrue(after.out().contains("  changed  create_ticket: input schema changed upstream"), after.out());
      assertTrue(after.out().contains("  note     close_ticket: a tool of the upstream that no contract names"), after.out());
      assertTrue(after.err().contains("1 upstream change not reflected in the contracts (nothing was applied; re-import to adopt them)"),
          after.err());
      assertTrue(new ContractLoader().load(tmp).find("create_ticket").orElseThrow().inputSchema().contains("\"additionalProperties\":false"),
          "the contract file is unchanged");
    } finally {
      changing.close();
    }
  }
}
