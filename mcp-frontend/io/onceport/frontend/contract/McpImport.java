package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.contract.ReplayClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns an upstream MCP server's {@code tools/list} into contract files: one commented contract per
 * tool with its description, input (and output) schema, and a replay class proposed from what the
 * server says — {@code readOnlyHint} (and not destructive) → {@code read_only}; {@code
 * idempotentHint} on a server that advertises {@code tools.idempotency} → {@code idempotency_key};
 * anything else → {@code irreversible} — with a comment saying why and what the operator must
 * check. Annotations are the server's hints, not guarantees, so nothing here is more permissive
 * than they are. Files are written by {@link ContractDocument}: what the server says stays text.
 */
public final class McpImport {
  private static final ObjectMapper JSON = new ObjectMapper();

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

  /**
   * The replay class the rules above propose for a tool with these annotations. {@code read_only}
   * only when the tool says {@code readOnlyHint: true} (the JSON boolean: {@code "true"} is not
   * true) and does not also say it is destructive — the MCP schema's {@code destructiveHint}
   * defaults to true and is meant only for tools that are not read-only, so a tool claiming both
   * contradicts itself, and a "delete" it proposed as read_only was sent four times after a lost
   * answer. Contradicting hints propose {@code irreversible}, the class that never re-sends.
   */
  public static ReplayClass propose(JsonNode annotations, boolean serverIdempotency) {
    if (isTrue(annotations.path("readOnlyHint")) && !conflicting(annotations)) {
      return ReplayClass.READ_ONLY;
    }
    if (isTrue(annotations.path("idempotentHint")) && serverIdempotency && !conflicting(annotations)) {
      return ReplayClass.IDEMPOTENCY_KEY;
    }
    return ReplayClass.IRREVERSIBLE;
  }

  /** readOnlyHint with a destructiveHint that is there and not {@code false}. */
  private static boolean conflicting(JsonNode annotations) {
    JsonNode destructive = annotations.path("destructiveHint");
    return isTrue(annotations.path("readOnlyHint")) && !destructive.isMissingNode()
        && !(destructive.isBoolean() && !destructive.booleanValue());
  }

  private static boolean isTrue(JsonNode hint) {
    return hint.isBoolean() && hint.booleanValue();
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
    String name = ContractDocument.toolName(prefix + upstreamTool);
    JsonNode annotations = tool.path("annotations");
    ReplayClass proposed = propose(annotations, idempotency);
    ContractDocument doc = new ContractDocument().header(header(upstreamTool, name, annotations, proposed));
    ObjectNode y = doc.root();
    y.put("tool", name);
    String description = tool.path("description").asText("");
    if (description.isEmpty()) {
      description = tool.path("title").asText(upstreamTool);
    }
    y.put("description", description);
    y.set("input_schema", inputSchema(tool));
    if (tool.path("outputSchema").isObject()) {
      y.set("output_schema", SchemaDialect.clean((ObjectNode) tool.get("outputSchema"), false));
      doc.before("output_schema", "The upstream declares an output schema: results carry its structuredContent.");
    }
    y.put("channel", "mcp");
    mcpSection(doc, upstreamTool);
    replaySection(doc, proposed);
    return new Contract(name + ".yaml", name, upstreamTool, proposed, doc.toYaml());
  }

  /** The {@code mcp:} section: how the worker reaches the upstream, and the upstream tool's name. */
  private void mcpSection(ContractDocument doc, String upstreamTool) {
    ObjectNode m = doc.root().putObject("mcp");
    if (upstream.url() != null) {
      m.put("url", upstream.url());
    } else {
      upstream.command().forEach(m.putArray("command")::add);
      doc.inline("mcp.command", "started and supervised by the worker (stdio)");
      if (!upstream.env().isEmpty()) {
        ObjectNode env = m.putObject("env");
        upstream.env().forEach(env::put);
      }
      if (upstream.workingDir() != null) {
        m.put("working_dir", upstream.workingDir());
      }
    }
    m.put("tool", upstreamTool);
    doc.inline("mcp.tool", "the upstream tool's name");
    if (upstream.credential() != null) {
      m.put("credential", upstream.credential());
      doc.inline("mcp.credential", "vault reference, sent as Authorization: Bearer");
    } else if (upstream.url() != null) {
      doc.before("mcp.timeout", "credential: NAME          # a vault bearer credential, if the server needs one");
    }
    m.put("timeout", "PT60S");
  }

  /** The {@code replay:} section with the proposed class (and, for irreversible, how to switch to status_query). */
  private static void replaySection(ContractDocument doc, ReplayClass proposed) {
    ObjectNode r = doc.root().putObject("replay");
    r.put("class", proposed.wireName());
    doc.inline("replay.class", "proposed; see the comment at the top");
    r.put("attach_window", "PT1H");
    if (proposed == ReplayClass.IRREVERSIBLE) {
      doc.after("replay", String.join("\n",
          "If a read-only upstream tool can tell whether a call took effect (Onceport sends the",
          "execution id as _meta \"onceport/execution_id\" and as idempotencyKey), switch replay to:",
          "  class: status_query",
          "  status:",
          "    tool: STATUS_TOOL",
          "    arguments: {key: \"{{execution_id}}\"}",
          "    field: state                  # in its structuredContent",
          "    completed_when: [done]",
          "    not_executed_when: [not_found]"));
    }
  }

  /**
   * The comment at the top. Text from the server (its name, the tool's name, the annotations) is
   * made inert first, so it can neither end a comment line nor start one of its own.
   */
  private String header(String upstreamTool, String name, JsonNode annotations, ReplayClass proposed) {
    List<String> lines = new ArrayList<>();
    lines.add(name + ": imported from MCP server " + InertText.of(serverName) + " (" + InertText.of(upstream.describe())
        + ") by `onceport contracts import-mcp`." + (name.equals(upstreamTool) ? "" : " Upstream tool name: "
        + InertText.of(upstreamTool) + "."));
    lines.add("Review this file before serving it: the replay class below is a proposal, not a fact.");
    lines.add("");
    lines.add("Upstream annotations: " + (annotations.isObject() && !annotations.isEmpty() ? InertText.of(annotations.toString()) : "none")
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
        if (conflicting(annotations)) {
          lines.add("  Why: the server marks the tool readOnlyHint but also destructiveHint (" + InertText.of(
              annotations.path("destructiveHint").toString()) + "): the hints contradict each other, so Onceport takes"
              + " the careful one and never sends a call again whose answer was lost: it waits for an operator"
              + " (needs_review).");
        } else if (!annotations.path("readOnlyHint").isMissingNode() && !annotations.path("readOnlyHint").isBoolean()) {
          lines.add("  Why: the tool's readOnlyHint is " + InertText.of(annotations.path("readOnlyHint").toString())
              + ", not the boolean true, so nothing says it is read-only; a call whose answer was lost is never sent"
              + " again: it waits for an operator (needs_review).");
        } else if (isTrue(annotations.path("idempotentHint"))) {
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
