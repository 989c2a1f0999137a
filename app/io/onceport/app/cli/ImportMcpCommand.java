package io.onceport.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.activity.mcp.McpFailure;
import io.onceport.activity.mcp.McpSession;
import io.onceport.activity.mcp.McpUpstream;
import io.onceport.activity.mcp.McpUpstreams;
import io.onceport.frontend.contract.McpImport;
import io.onceport.shared.text.InertText;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code onceport contracts import-mcp}: one commented contract per tool of an upstream MCP server. */
@Command(
    name = "import-mcp",
    mixinStandardHelpOptions = true,
    description = "List the tools of an MCP server (Streamable HTTP --url, or stdio --command) and write one commented "
        + "contract per tool into --out: description, input schema, and a replay class proposed from its annotations "
        + "(readOnlyHint: read_only; idempotentHint on a server advertising tools.idempotency: idempotency_key; else "
        + "irreversible). Every file is loaded back before it is kept; existing files are not overwritten without --force.")
final class ImportMcpCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  static final class Source {
    @CommandLine.Option(names = "--url", paramLabel = "URL", description = "The server's Streamable HTTP endpoint.")
    String url;

    @CommandLine.Option(names = "--command", arity = "1..*", paramLabel = "ARGV",
        description = "The server's argv, run over stdio (extends to the next option of this command: put it last).")
    List<String> command;
  }

  @CommandLine.Option(names = "--tool", arity = "1..*", paramLabel = "NAME",
      description = "Import only these upstream tools (default: all).")
  List<String> tools = new ArrayList<>();

  @CommandLine.Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory to write contracts into.")
  Path out;

  @CommandLine.Option(names = "--env", paramLabel = "KEY=VALUE", description = "Environment of a stdio server (repeatable; written into the contracts).")
  Map<String, String> env = new LinkedHashMap<>();

  @CommandLine.Option(names = "--working-dir", paramLabel = "DIR", description = "Working directory of a stdio server.")
  String workingDir;

  @CommandLine.Option(names = "--prefix", paramLabel = "P", defaultValue = "",
      description = "Prefix for the contracts' tool names, e.g. tickets_ (the upstream name stays in mcp.tool).")
  String prefix;

  @CommandLine.Option(names = "--credential", paramLabel = "REF",
      description = "Vault credential the contracts send as a bearer token (HTTP servers).")
  String credential;

  @CommandLine.Option(names = "--token-env", paramLabel = "VAR",
      description = "Environment variable holding a bearer token for listing the tools now (never on the command line).")
  String tokenEnv;

  @CommandLine.Option(names = "--timeout", defaultValue = "PT30S", paramLabel = "DURATION", description = "Per request (default ${DEFAULT-VALUE}).")
  Duration timeout;

  @CommandLine.Option(names = "--force", description = "Overwrite contracts that already exist in --out.")
  boolean force;

  @Override
  public void run() {
    PrintWriter o = spec.commandLine().getOut();
    if (source.url != null && (!env.isEmpty() || workingDir != null)) {
      throw new CliException("--env and --working-dir are for a stdio server (--command), not --url");
    }
    if (credential != null && source.url == null) {
      throw new CliException("--credential is sent as a bearer token and needs an HTTP server (--url)");
    }
    McpImport.Upstream where = new McpImport.Upstream(source.url, source.command, env, workingDir, credential);
    Map<String, String> headers = UpstreamAccess.bearer(tokenEnv);
    try (McpUpstream upstream = UpstreamAccess.open(where)) {
      McpSession session;
      List<JsonNode> listed;
      try {
        session = upstream.session(headers, timeout.toMillis());
        listed = upstream.listTools(session, headers, timeout.toMillis());
      } catch (McpFailure e) {
        throw new CliException("cannot list the tools of " + upstream.describe() + ": " + e.getMessage());
      }
      List<JsonNode> chosen = UpstreamAccess.choose(listed, tools, upstream.describe());
      McpImport importer = new McpImport(where, session.describeServer(), session.advertisesIdempotency(), prefix);
      List<ContractFiles.File> files = new ArrayList<>();
      for (JsonNode t : chosen) {
        McpImport.Contract c = importer.contract(t);
        files.add(new ContractFiles.File(c.fileName(), c.yaml(),
            c.replayClass().wireName() + "  (upstream tool " + c.upstreamTool() + ")"));
      }
      ContractFiles.writeChecked(files, out, force, o);
      o.println(InertText.of("imported " + files.size() + " of " + listed.size() + " tools of " + session.describeServer()
          + "; review each file's replay class, then: onceport contracts check " + out));
      o.flush();
    }
  }

  /** Opening an upstream for the CLI, and choosing tools. */
  static final class UpstreamAccess {
    private UpstreamAccess() {}

    static McpUpstream open(McpImport.Upstream where) {
      return where.url() != null ? McpUpstreams.http(where.url())
          : McpUpstreams.stdio(where.command(), where.env(), where.workingDir());
    }

    static Map<String, String> bearer(String tokenEnv) {
      if (tokenEnv == null) {
        return Map.of();
      }
      String token = System.getenv(tokenEnv);
      if (token == null || token.isBlank()) {
        throw new CliException("--token-env " + tokenEnv + ": the variable is not set");
      }
      return Map.of("Authorization", "Bearer " + token.strip());
    }

    static List<JsonNode> choose(List<JsonNode> listed, List<String> wanted, String where) {
      if (wanted.isEmpty()) {
        return listed;
      }
      List<JsonNode> chosen = new ArrayList<>();
      List<String> names = listed.stream().map(t -> t.path("name").asText()).toList();
      for (String w : wanted) {
        int i = names.indexOf(w);
        if (i < 0) {
          throw new CliException("--tool " + w + ": " + where + " has no such tool (it lists " + String.join(", ", names) + ")");
        }
        chosen.add(listed.get(i));
      }
      return chosen;
    }
  }
}
