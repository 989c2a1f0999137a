package io.onceport.frontend.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code mcp} section of a contract: what loads, and every error naming file, line and field. */
class McpContractLoaderTest {
  private static final String HEAD = "tool: create_ticket\ndescription: Open a ticket.\n"
      + "input_schema:\n  type: object\n  properties:\n    title: {type: string}\nchannel: mcp\n";

  @TempDir Path tmp;

  private ContractSet load(String yaml) throws Exception {
    Files.writeString(tmp.resolve("c.yaml"), yaml);
    return new ContractLoader().load(tmp);
  }

  private List<String> errors(String yaml) throws Exception {
    Files.writeString(tmp.resolve("c.yaml"), yaml);
    return assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp)).errors();
  }

  @Test
  void aStreamableHttpUpstreamLoadsWithCredentialAndTimeout() throws Exception {
    ToolContract c = load(HEAD + "mcp:\n  url: http://127.0.0.1:9000/mcp\n  tool: create_ticket_v2\n  credential: tickets\n"
        + "  timeout: PT5S\nreplay:\n  class: idempotency_key\n").find("create_ticket").orElseThrow();
    assertEquals(ToolContract.Channel.MCP, c.channel());
    assertEquals("http://127.0.0.1:9000/mcp", c.mcp().url());
    assertEquals("create_ticket_v2", c.mcp().tool());
    assertEquals("tickets", c.credentialRef());
    assertEquals(5000, c.requestTimeoutMillis());
    assertEquals(ReplayClass.IDEMPOTENCY_KEY, c.replayClass());
    assertEquals(ToolContract.RESULT_MCP_CONTENT, c.resultFormat());
  }

  @Test
  void aStdioUpstreamWithAStatusToolLoads() throws Exception {
    ToolContract c = load(HEAD + "mcp:\n  command: [node, server.mjs, --quiet]\n  env: {MODE: test}\n  working_dir: /srv\n"
        + "  tool: create_ticket\nreplay:\n  class: status_query\n  status:\n    tool: ticket_status\n"
        + "    arguments: {key: \"{{execution_id}}\", title: \"{{title}}\"}\n    field: job.state\n"
        + "    completed_when: [done]\n    failed_when: [error]\n    not_executed_when: [not_found]\n")
        .find("create_ticket").orElseThrow();
    assertEquals(List.of("node", "server.mjs", "--quiet"), c.mcp().command());
    assertEquals("test", c.mcp().env().get("MODE"));
    assertEquals("stdio:node server.mjs --quiet", c.mcp().target());
    assertEquals(ContractLoader.DEFAULT_MCP_TIMEOUT.toMillis(), c.mcp().timeoutMillis());
    assertEquals("ticket_status", c.mcp().status().tool());
    assertEquals("{\"key\":\"{{execution_id}}\",\"title\":\"{{title}}\"}", c.mcp().status().arguments());
    assertEquals("job.state", c.mcp().status().field());
    assertEquals(List.of("done"), c.mcp().status().completedWhen());
    assertEquals(List.of("error"), c.mcp().status().failedWhen());
    assertEquals(List.of("not_found"), c.mcp().status().notExecutedWhen());
  }

  @Test
  void everyMistakeInTheMcpSectionIsNamedWithItsLine() throws Exception {
    List<String> e = errors(HEAD + "mcp:\n  url: http://h/mcp\n  command: [node]\n  tool: x\n  credentail: t\n"
        + "replay:\n  class: irreversible\n");
    String file = tmp.resolve("c.yaml").toString();
    assertTrue(e.contains(file + ":10: mcp.command: give url or command, not both"), e.toString());
    assertTrue(e.stream().anyMatch(s -> s.startsWith(file + ":12: mcp.credentail: unknown field (did you mean 'credential'?)")), e.toString());

    e = errors(HEAD + "mcp:\n  command: [node]\n  credential: t\nreplay:\n  class: irreversible\n");
    assertTrue(e.contains(file + ":8: mcp.tool: required"), e.toString());
    assertTrue(e.contains(file + ":10: mcp.credential: only for an HTTP upstream (url): it is sent as Authorization: Bearer"), e.toString());

    e = errors(HEAD + "mcp:\n  tool: x\nreplay:\n  class: irreversible\n");
    assertTrue(e.contains(file + ":8: mcp.url: required: url (a Streamable HTTP endpoint) or command (an argv the worker runs over stdio)"),
        e.toString());
  }

  @Test
  void aStatusQueryToolWithoutAStatusToolDoesNotLoad() throws Exception {
    List<String> e = errors(HEAD + "mcp:\n  url: http://h/mcp\n  tool: x\nreplay:\n  class: status_query\n");
    assertTrue(e.stream().anyMatch(s -> s.contains(": replay.status: required for class status_query: tool")), e.toString());

    e = errors(HEAD + "mcp:\n  url: http://h/mcp\n  tool: x\nreplay:\n  class: status_query\n  status:\n    tool: s\n"
        + "    arguments: {key: \"{{nope}}\"}\n    field: state\n    completed_when: [done]\n    not_executed_when: [done]\n");
    assertTrue(e.stream().anyMatch(s -> s.contains("replay.status.arguments.key: placeholder {{nope}} is not a property")), e.toString());
    assertTrue(e.stream().anyMatch(s -> s.contains("replay.status.not_executed_when: 'done' is also in completed_when")), e.toString());
  }

  @Test
  void aSideEffectingUpstreamToolWithoutAReplaySectionDoesNotLoad() throws Exception {
    List<String> e = errors(HEAD + "mcp:\n  url: http://h/mcp\n  tool: x\n");
    assertTrue(e.stream().anyMatch(s -> s.endsWith(": replay: required (class: read_only | idempotency_key | status_query | irreversible)")),
        e.toString());
  }

  @Test
  void otherChannelSectionsAndResultFormatAreRefusedOnChannelMcp() throws Exception {
    List<String> e = errors(HEAD + "mcp:\n  url: http://h/mcp\n  tool: x\nhttp:\n  method: GET\n  url: http://h/\n"
        + "result:\n  format: text\nreplay:\n  class: read_only\n");
    assertTrue(e.stream().anyMatch(s -> s.contains(": http: not allowed with channel mcp")), e.toString());
    assertTrue(e.stream().anyMatch(s -> s.contains(": result: not used with channel mcp")), e.toString());
  }
}
