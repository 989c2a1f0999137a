package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.contract.ReplayClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns an upstream MCP server's {@code tools/list} into contract files: one commented contract per
 * tool with its description, input (and output) schema, and a replay class proposed from what the
 * server says — {@code readOnlyHint} → {@code read_only}; {@code idempotentHint} on a server that
 * advertises {@code tools.idempotency} → {@code idempotency_key}; anything else → {@code
 * irreversible} — with a comment saying why and what the operator must check. Annotations are the
 * server's hints, not guarantees, so nothing here is more permissive than they are.
 */
public final class McpImport {
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  /** Where the server is, as the contract's {@code mcp} section will say it. */
  public record Upstream(String url, List<String> command, Map<String, String> env, String workingDir, String credential) {
    public Upstream {
      command = command == null ? List.of() : List.copyOf(command);
      env = env == null ? Map.of() : Map.copyOf(env);
      if ((url == null) == command.isEmpty()) {
        throw new IllegalArgumentException("give a url or a command");
      }
    }

    String describe() {
      return url != null ? url : "stdio: " + String.join(" ", command);
    }
  }

  /** One contract to write: its file name, its tool name and the YAML text. */
  public record Contract(String fileName, String tool, String upstreamTool, ReplayClass replayClass, String yaml) {}

  private final Upstream upstream;
  private final String serverName;
  private final boolean idempotency;
  private final String prefix;

  /**
   * @param serverName "name version" from the server's {@code initialize}
   * @param idempotency whether the server advertised {@code tools.idempotency}
   * @param prefix prepended to every contract's tool name (may be empty)
   */
  public McpImport(Upstream upstream, String serverName, boolean idempotency, String prefix) {
    this.upstream = Objects.requireNonNull(upstream, "upstream == null");
    this.serverName = Objects.requireNonNull(serverName, "serverName == null");
    this.idempotency = idempotency;
    this.prefix = prefix == null ? "" : prefix;
  }

  /** The replay class the rules above propose for a tool with these annotations. */
  public static ReplayClass propose(JsonNode annotations, boolean serverIdempotency) {
    if (annotations.path("readOnlyHint").asBoolean(false)) {
      return ReplayClass.READ_ONLY;
    }
    if (annotations.path("idempotentHint").asBoolean(false) && serverIdempotency) {
      return ReplayClass.IDEMPOTENCY_KEY;
    }
    return ReplayClass.IRREVERSIBLE;
  }

  /** The input schema as a contract holds it: an object schema in JSON Schema 2020-12 keywords ({@link SchemaDialect}). */
  public static ObjectNode inputSchema(JsonNode tool) {
    JsonNode s = tool.path("inputSchema");
    ObjectNode schema = s.isObject() ? SchemaDialect.clean((ObjectNode) s, false) : JSON.createObjectNode().put("type", "object");
    if (!schema.has("type")) {
      schema.put("type", "object");
    }
    return schema;
  }

  public Contract contract(JsonNode tool) {
    String upstreamTool = tool.path("name").asText();
    String name = ContractYaml.toolName(prefix + upstreamTool);
    JsonNode annotations = tool.path("annotations");
    ReplayClass proposed = propose(annotations, idempotency);
    StringBuilder y = new StringBuilder();
    y.append(ContractYaml.comment(header(tool, upstreamTool, name, annotations, proposed)));
    y.append("tool: ").append(name).append('\n');
    String description = tool.path("description").asText("");
    if (description.isEmpty()) {
      description = tool.path("title").asText(upstreamTool);
    }
    y.append("description: ").append(ContractYaml.scalar(description)).append('\n');
    y.append(ContractYaml.block("input_schema", inputSchema(tool), 2));
    if (tool.path("outputSchema").isObject()) {
      ObjectNode out = SchemaDialect.clean((ObjectNode) tool.get("outputSchema"), false);
      y.append("# The upstream declares an output schema: results carry its structuredContent.\n");
      y.append(ContractYaml.block("output_schema", out, 2));
    }
    y.append("channel: mcp\n");
    y.append("mcp:\n");
    if (upstream.url() != null) {
      y.append("  url: ").append(ContractYaml.scalar(upstream.url())).append('\n');
    } else {
      y.append("  command: [");
      for (int i = 0; i < upstream.command().size(); i++) {
        y.append(i == 0 ? "" : ", ").append(ContractYaml.scalar(upstream.command().get(i)));
      }
      y.append("]            # started and supervised by the worker (stdio)\n");
      if (!upstream.env().isEmpty()) {
        y.append("  env:\n");
        upstream.env().forEach((k, v) -> y.append("    ").append(k).append(": ").append(ContractYaml.scalar(v)).append('\n'));
      }
      if (upstream.workingDir() != null) {
        y.append("  working_dir: ").append(ContractYaml.scalar(upstream.workingDir())).append('\n');
      }
    }
    y.append("  tool: ").append(ContractYaml.scalar(upstreamTool)).append("            # the upstream tool's name\n");
    if (upstream.credential() != null) {
      y.append("  credential: ").append(ContractYaml.scalar(upstream.credential())).append("   # vault reference, sent as Authorization: Bearer\n");
    } else if (upstream.url() != null) {
      y.append("  # credential: NAME          # a vault bearer credential, if the server needs one\n");
    }
    y.append("  timeout: PT60S\n");
    y.append("replay:\n");
    y.append("  class: ").append(proposed.wireName()).append("   # proposed; see the comment at the top\n");
    y.append("  attach_window: PT1H\n");
    if (proposed == ReplayClass.IRREVERSIBLE) {
      y.append("  # If a read-only upstream tool can tell whether a call took effect (Onceport sends the\n")
          .append("  # execution id as _meta \"onceport/execution_id\" and as idempotencyKey), switch to:\n")
          .append("  # class: status_query\n")
          .append("  # status:\n")
          .append("  #   tool: STATUS_TOOL\n")
          .append("  #   arguments: {key: \"{{execution_id}}\"}\n")
          .append("  #   field: state                  # in its structuredContent\n")
          .append("  #   completed_when: [done]\n")
          .append("  #   not_executed_when: [not_found]\n");
    }
    return new Contract(name + ".yaml", name, upstreamTool, proposed, y.toString());
  }

  private String header(JsonNode tool, String upstreamTool, String name, JsonNode annotations, ReplayClass proposed) {
    List<String> lines = new ArrayList<>();
    lines.add(name + ": imported from MCP server " + serverName + " (" + upstream.describe() + ") by `onceport contracts"
        + " import-mcp`." + (name.equals(upstreamTool) ? "" : " Upstream tool name: " + upstreamTool + "."));
    lines.add("Review this file before serving it: the replay class below is a proposal, not a fact.");
    lines.add("");
    lines.add("Upstream annotations: " + (annotations.isObject() && !annotations.isEmpty() ? annotations.toString() : "none")
        + "; tools.idempotency " + (idempotency ? "advertised" : "not advertised") + ".");
    lines.add("Proposed replay class: " + proposed.wireName() + ".");
    switch (proposed) {
      case READ_ONLY -> {
        lines.add("  Why: the server marks the tool readOnlyHint: it does not change anything, so Onceport retries it, also"
            + " after an unknown outcome.");
        lines.add("  Check: that calling it really has no side effect. Annotations are hints; a tool that writes must"
            + " not be read_only.");
      }
      case IDEMPOTENCY_KEY -> {
        lines.add("  Why: the tool says idempotentHint and the server advertises tools.idempotency, so after an unknown"
            + " outcome Onceport sends the call again with the same idempotencyKey (the execution id) and the server"
            + " answers with the first result instead of acting again.");
        lines.add("  Check: that the server deduplicates this tool by params.idempotencyKey (the same key twice: one"
            + " effect, the first result), for at least the attach window.");
      }
      default -> {
        if (annotations.path("idempotentHint").asBoolean(false)) {
          lines.add("  Why: the tool says idempotentHint, but the server does not advertise tools.idempotency, so nothing"
              + " says it deduplicates a re-send by idempotencyKey; a re-send could act twice.");
        } else {
          lines.add("  Why: the server gives no read-only or idempotency answer for this tool, so a call whose answer"
              + " was lost is never sent again: it waits for an operator (needs_review).");
        }
        lines.add("  Check: whether a read-only upstream tool can say if a call took effect; then use status_query"
            + " (example below). Do not make it read_only to silence reviews.");
      }
    }
    return String.join("\n", lines);
  }
}
