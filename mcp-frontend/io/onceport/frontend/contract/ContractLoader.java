package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.McpSpec;
import io.onceport.workflow.contract.McpStatusSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Loads {@code contracts/*.yaml} (one tool per file) into {@link ToolContract}s.
 *
 * <p>The loader is strict on purpose: the replay section decides whether a lost response may lead
 * to a second dispatch, so a typo must never silently turn a rule off. Unknown fields are errors
 * (at every level, with a "did you mean" hint), a side-effecting tool without a complete replay
 * section does not load, and every error names file, line and field. All errors of all files are
 * reported at once.
 */
public final class ContractLoader {
  /** Name of the built-in status tool; no contract may define it. */
  public static final String RESERVED_TOOL = "onceport_execution_status";

  public static final Duration DEFAULT_HTTP_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_SSH_TIMEOUT = Duration.ofMinutes(5);
  public static final Duration DEFAULT_MCP_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_ATTACH_WINDOW = Duration.ofHours(1);
  public static final String DEFAULT_HELPER_PATH = "onceport-run";
  /** The placeholder every template may use besides the input_schema properties. */
  public static final String EXECUTION_ID = "execution_id";

  static final Pattern TOOL_NAME = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");
  static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^{}]*)}}");
  private static final Set<String> HTTP_METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");

  private static final List<String> TOP =
      List.of("tool", "description", "input_schema", "output_schema", "channel", "http", "ssh", "replay", "fingerprint", "result",
          "mcp");
  private static final List<String> HTTP =
      List.of("method", "url", "body", "headers", "idempotency_header", "credential", "timeout");
  private static final List<String> SSH =
      List.of("host", "port", "user", "host_key", "credential", "key_file", "command", "working_dir", "marker",
          "helper_path", "state_dir", "timeout");
  private static final List<String> REPLAY = List.of("class", "attach_window", "status");
  private static final List<String> STATUS = List.of("method", "url", "completed_when", "not_executed_when", "settle");
  private static final List<String> FINGERPRINT = List.of("ignore", "secret");
  private static final List<String> MCP = List.of("url", "command", "env", "working_dir", "tool", "credential", "timeout");
  private static final List<String> MCP_STATUS =
      List.of("tool", "arguments", "field", "completed_when", "failed_when", "not_executed_when");

  private final ContractVariables variables;

  /** A loader expanding {@code ${NAME}} from the process environment. */
  public ContractLoader() {
    this(ContractVariables.fromEnvironment());
  }

  /** A loader expanding {@code ${NAME}} from {@code variables} ({@code --set} over the environment). */
  public ContractLoader(ContractVariables variables) {
    this.variables = java.util.Objects.requireNonNull(variables, "variables == null");
  }

  /**
   * Loads every {@code *.yaml} / {@code *.yml} file directly in {@code dir}. File names in
   * messages are {@code dir.resolve(name)} as given, e.g. {@code contracts/create_release.yaml}.
   *
   * @throws ContractLoadException with every error found, if any file does not load
   */
  public ContractSet load(Path dir) throws ContractLoadException {
    if (!Files.isDirectory(dir)) {
      throw new ContractLoadException(List.of(dir + ": not a directory"));
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files =
          s.filter(p -> p.getFileName().toString().endsWith(".yaml") || p.getFileName().toString().endsWith(".yml"))
              .filter(Files::isRegularFile)
              .sorted()
              .collect(Collectors.toList());
    } catch (IOException e) {
      throw new ContractLoadException(List.of(dir + ": cannot list: " + e.getMessage()));
    }
    List<String> errors = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    Map<String, Path> seen = new HashMap<>();
    List<ToolContract> contracts = new ArrayList<>();
    if (files.isEmpty()) {
      warnings.add(dir + ": no contracts (*.yaml) found");
    }
    for (Path file : files) {
      FileResult r = loadFile(file);
      errors.addAll(r.errors);
      warnings.addAll(r.warnings);
      if (r.contract != null) {
        Path first = seen.putIfAbsent(r.contract.tool(), file);
        if (first != null) {
          errors.add(
              file + ":" + r.toolLine + ": tool: duplicate tool name '" + r.contract.tool() + "' (also defined in "
                  + first + ")");
        } else {
          contracts.add(r.contract);
        }
      }
    }
    if (!errors.isEmpty()) {
      throw new ContractLoadException(errors);
    }
    return new ContractSet(contracts, warnings);
  }

  /** Result of one file: the contract (null when it has errors), its errors and warnings. */
  static final class FileResult {
    ToolContract contract;
    int toolLine = 1;
    final List<String> errors = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();
  }

  FileResult loadFile(Path file) {
    FileResult r = new FileResult();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      r.errors.add(file + ":1: cannot read: " + e.getMessage());
      return r;
    }
    YamlTree tree;
    try {
      tree = YamlTree.parse(text, variables);
    } catch (YamlTree.SyntaxException e) {
      r.errors.add(file + ":" + e.line + ": " + e.getMessage());
      return r;
    }
    if (!tree.variableProblems.isEmpty()) {
      // The unexpanded text would only add follow-up errors (a URL "${X}/v1" is no URL).
      tree.variableProblems.forEach(problem -> r.errors.add(file + ":" + problem));
      return r;
    }
    if (tree.root == null || !tree.root.isObject()) {
      r.errors.add(file + ":1: expected a mapping with the fields tool, description, input_schema, channel, replay");
      return r;
    }
    Reader in = new Reader(file, tree, r);
    r.toolLine = tree.lineOf("tool");
    try {
      r.contract = in.contract((ObjectNode) tree.root);
    } catch (IllegalArgumentException | NullPointerException e) {
      // The record constructors guard what the reader missed; report it rather than crash.
      r.errors.add(file + ":1: " + e.getMessage());
    }
    if (!r.errors.isEmpty()) {
      r.contract = null;
    }
    return r;
  }

  /** Reads one file's tree, recording errors instead of stopping at the first. */
  private static final class Reader {
    private final Path file;
    private final YamlTree tree;
    private final FileResult result;
    private Set<String> properties = Set.of();

    Reader(Path file, YamlTree tree, FileResult result) {
      this.file = file;
      this.tree = tree;
      this.result = result;
    }

    void error(String path, String message) {
      result.errors.add(file + ":" + tree.lineOf(path) + ": " + path + ": " + message);
    }

    void warn(String path, String message) {
      result.warnings.add(file + ":" + tree.lineOf(path) + ": " + path + ": " + message);
    }

    ToolContract contract(ObjectNode root) {
      known(root, "", TOP);
      String tool = string(root, "", "tool", true);
      if (tool != null) {
        if (!TOOL_NAME.matcher(tool).matches()) {
          error("tool", "'" + tool + "' is not a valid tool name (1-64 of a-z A-Z 0-9 _ -)");
        } else if (tool.equals(RESERVED_TOOL)) {
          error("tool", "'" + RESERVED_TOOL + "' is reserved for the built-in status tool");
        }
      }
      String description = string(root, "", "description", false);
      String inputSchema = schema(root, "input_schema", true);
      String outputSchema = schema(root, "output_schema", false);

      String channelName = string(root, "", "channel", true);
      ToolContract.Channel channel = null;
      if ("http".equals(channelName)) {
        channel = ToolContract.Channel.HTTP;
      } else if ("ssh".equals(channelName)) {
        channel = ToolContract.Channel.SSH;
      } else if ("mcp".equals(channelName)) {
        channel = ToolContract.Channel.MCP;
      } else if (channelName != null) {
        error("channel", "must be http, ssh or mcp, not '" + channelName + "'");
      }
      HttpSpec http = null;
      SshSpec ssh = null;
      if (channel == ToolContract.Channel.HTTP) {
        http = http(section(root, "", "http", true));
        if (root.has("ssh")) {
          error("ssh", "not allowed with channel http");
        }
      } else if (channel == ToolContract.Channel.SSH) {
        ssh = ssh(section(root, "", "ssh", true));
        if (root.has("http")) {
          error("http", "not allowed with channel ssh");
        }
      }
      McpSpec mcp = null;
      if (channel == ToolContract.Channel.MCP) {
        mcp = mcp(section(root, "", "mcp", true));
        for (String other : List.of("http", "ssh")) {
          if (root.has(other)) {
            error(other, "not allowed with channel mcp");
          }
        }
      } else if (root.has("mcp") && channel != null) {
        error("mcp", "not allowed with channel " + channelName);
      }
      ObjectNode replaySection = section(root, "", "replay", true);
      ReplaySpec replay = replay(replaySection, channel, http, ssh);
      if (mcp != null) {
        mcp = mcpReplay(replaySection, replay, mcp);
      }
      List<String> ignore = List.of();
      List<String> secret = List.of();
      ObjectNode fp = section(root, "", "fingerprint", false);
      if (fp != null) {
        known(fp, "fingerprint", FINGERPRINT);
        ignore = argumentNames(fp, "fingerprint", "ignore");
        secret = argumentNames(fp, "fingerprint", "secret");
        for (String s : secret) {
          if (ignore.contains(s)) {
            error("fingerprint.secret", "'" + s + "' is also in fingerprint.ignore");
          }
        }
      }
      String resultFormat = ToolContract.RESULT_TEXT;
      ObjectNode res = section(root, "", "result", false);
      if (res != null && channel == ToolContract.Channel.MCP) {
        error("result", "not used with channel mcp (the upstream's MCP content blocks pass through as they are)");
      } else if (res != null) {
        known(res, "result", List.of("format"));
        String format = string(res, "result", "format", false);
        if (format != null) {
          if (format.equals(ToolContract.RESULT_TEXT) || format.equals(ToolContract.RESULT_MCP_CONTENT)) {
            resultFormat = format;
          } else {
            error("result.format", "must be text or mcp_content, not '" + format + "'");
          }
        }
      }
      if (!result.errors.isEmpty()) {
        return null;
      }
      if (channel == ToolContract.Channel.MCP) {
        return ToolContract.mcp(tool, description, inputSchema, outputSchema, mcp, replay, ignore, secret);
      }
      return new ToolContract(tool, description, inputSchema, outputSchema, channel, http, ssh, replay, ignore, secret, resultFormat);
    }

    private String schema(ObjectNode root, String field, boolean required) {
      JsonNode node = root.get(field);
      if (node == null || node.isNull()) {
        if (required) {
          error(field, "required (a JSON Schema with type: object)");
        }
        return null;
      }
      if (!node.isObject()) {
        error(field, "must be a JSON Schema object");
        return null;
      }
      // Unknown keywords first: a validator ignores them (with a library warning on every start),
      // and tools/list would show them to every client.
      List<SchemaKeywords.Unknown> unknown = SchemaKeywords.unknown(field, node);
      unknown.forEach(u -> error(u.path(), u.message()));
      List<String> metaErrors = JsonSchemas.metaSchemaErrors(field, node);
      for (String e : metaErrors) {
        int colon = e.indexOf(": ");
        error(e.substring(0, colon), "not a valid JSON Schema (draft 2020-12): " + e.substring(colon + 2));
      }
      if (metaErrors.isEmpty() && unknown.isEmpty()) {
        String problem = JsonSchemas.compileProblem(node);
        if (problem != null) {
          error(field, "cannot be compiled: " + problem);
        }
      }
      if (field.equals("input_schema")) {
        if (!"object".equals(node.path("type").asText(null))) {
          error("input_schema.type", "must be object (tool arguments are a JSON object)");
        }
        Set<String> names = new LinkedHashSet<>();
        node.path("properties").fieldNames().forEachRemaining(names::add);
        properties = names;
      }
      return node.toString();
    }

    private HttpSpec http(ObjectNode h) {
      if (h == null) {
        return null;
      }
      int before = result.errors.size();
      known(h, "http", HTTP);
      String method = string(h, "http", "method", true);
      if (method != null) {
        method = method.toUpperCase(Locale.ROOT);
        if (!HTTP_METHODS.contains(method)) {
          error("http.method", "must be one of GET, POST, PUT, PATCH, DELETE, not '" + h.get("method").asText() + "'");
        }
      }
      String url = string(h, "http", "url", true);
      if (url != null) {
        url("http.url", url, false);
      }
      String body = null;
      JsonNode b = h.get("body");
      if (b != null && !b.isNull()) {
        placeholdersIn("http.body", b, false);
        body = b.toString();
      }
      Map<String, String> headers = new LinkedHashMap<>();
      ObjectNode hs = section(h, "http", "headers", false);
      if (hs != null) {
        for (Iterator<Map.Entry<String, JsonNode>> it = hs.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          String path = "http.headers." + e.getKey();
          if (!e.getValue().isTextual()) {
            error(path, "must be a string");
          } else {
            placeholders(path, e.getValue().asText(), false);
            headers.put(e.getKey(), e.getValue().asText());
          }
        }
      }
      String idem = string(h, "http", "idempotency_header", false);
      String credential = string(h, "http", "credential", false);
      Duration timeout = duration(h, "http", "timeout", DEFAULT_HTTP_TIMEOUT);
      if (result.errors.size() == before) {
        return new HttpSpec(method, url, body, headers, idem, credential, timeout.toMillis());
      }
      return null;
    }

    private SshSpec ssh(ObjectNode s) {
      if (s == null) {
        return null;
      }
      int before = result.errors.size();
      known(s, "ssh", SSH);
      String host = string(s, "ssh", "host", true);
      int port = 22;
      JsonNode p = s.get("port");
      if (p != null) {
        // A port from a variable (port: ${SSH_PORT}) arrives as text.
        boolean digits = p.isTextual() && p.asText().matches("[0-9]{1,5}");
        if (!(p.isIntegralNumber() || digits) || p.asInt() < 1 || p.asInt() > 65535) {
          error("ssh.port", "must be a port number 1-65535");
        } else {
          port = p.asInt();
        }
      }
      String user = string(s, "ssh", "user", true);
      String hostKey = string(s, "ssh", "host_key", false);
      if (!s.has("host_key")) {
        error("ssh.host_key", "required (the pinned host key, e.g. SHA256:...; an unknown key is never accepted)");
      }
      String credential = string(s, "ssh", "credential", false);
      String keyFile = string(s, "ssh", "key_file", false);
      if (credential == null && keyFile == null && !s.has("credential") && !s.has("key_file")) {
        error("ssh.credential", "required (a vault reference), or key_file for development");
      } else if (credential != null && keyFile != null) {
        error("ssh.key_file", "give credential or key_file, not both");
      }
      List<String> command = new ArrayList<>();
      JsonNode c = s.get("command");
      if (c == null || c.isNull()) {
        error("ssh.command", "required (an argv list, e.g. [\"/opt/app/bin/migrate\", \"--to\", \"{{version}}\"])");
      } else if (!c.isArray() || c.isEmpty()) {
        error("ssh.command", "must be a non-empty list of strings (argv)");
      } else {
        for (int i = 0; i < c.size(); i++) {
          JsonNode el = c.get(i);
          if (!el.isTextual() && !el.isNumber()) {
            error("ssh.command[" + i + "]", "must be a string");
          } else {
            placeholders("ssh.command[" + i + "]", el.asText(), false);
            command.add(el.asText());
          }
        }
      }
      String workingDir = string(s, "ssh", "working_dir", false);
      boolean marker = false;
      JsonNode m = s.get("marker");
      if (m != null && !m.isNull()) {
        if (!m.isBoolean()) {
          error("ssh.marker", "must be true or false");
        } else {
          marker = m.asBoolean();
        }
      }
      String helper = string(s, "ssh", "helper_path", false);
      String stateDir = string(s, "ssh", "state_dir", false);
      Duration timeout = duration(s, "ssh", "timeout", DEFAULT_SSH_TIMEOUT);
      if (result.errors.size() == before) {
        return new SshSpec(host, port, user, hostKey, credential, keyFile, command, workingDir, marker,
            helper == null ? DEFAULT_HELPER_PATH : helper, stateDir, timeout.toMillis());
      }
      return null;
    }

    private ReplaySpec replay(ObjectNode r, ToolContract.Channel channel, HttpSpec http, SshSpec ssh) {
      if (r == null) {
        return null;
      }
      int before = result.errors.size();
      known(r, "replay", REPLAY);
      String className = string(r, "replay", "class", true);
      ReplayClass replayClass = null;
      if (className != null) {
        try {
          replayClass = ReplayClass.fromWireName(className);
        } catch (IllegalArgumentException e) {
          error("replay.class", e.getMessage());
        }
      }
      Duration window = duration(r, "replay", "attach_window", DEFAULT_ATTACH_WINDOW);
      StatusSpec status = null;
      ObjectNode st = section(r, "replay", "status", false);
      if (st != null && channel == ToolContract.Channel.SSH) {
        error("replay.status", "not used with channel ssh (the remote marker answers status queries)");
      } else if (st != null && channel == ToolContract.Channel.MCP) {
        // an upstream status tool: read by mcpReplay
      } else if (st != null) {
        status = status(st);
        if (replayClass != null && replayClass != ReplayClass.STATUS_QUERY) {
          warn("replay.status", "ignored for class " + replayClass.wireName() + " (only status_query uses it)");
        }
      } else if (replayClass == ReplayClass.STATUS_QUERY && channel == ToolContract.Channel.HTTP && !r.has("status")) {
        error("replay.status", "required for class status_query");
      }
      if (replayClass == ReplayClass.IDEMPOTENCY_KEY && channel == ToolContract.Channel.HTTP && http != null
          && http.idempotencyHeader() == null) {
        error("http.idempotency_header", "required for class idempotency_key (the header that carries the execution id)");
      }
      if (ssh != null && !ssh.marker() && replayClass != null && replayClass != ReplayClass.IRREVERSIBLE) {
        warn("ssh.marker", "not true: replay class forced to irreversible (contract says " + replayClass.wireName()
            + "); set marker: true and install the helper to allow status queries");
        replayClass = ReplayClass.IRREVERSIBLE;
      }
      if (replayClass == null || window == null || result.errors.size() != before) {
        return null;
      }
      return new ReplaySpec(replayClass, window, status);
    }

    // ---- channel: mcp ----

    private McpSpec mcp(ObjectNode m) {
      if (m == null) {
        return null;
      }
      int before = result.errors.size();
      known(m, "mcp", MCP);
      String url = string(m, "mcp", "url", false);
      if (url != null) {
        url("mcp.url", url, false);
        if (PLACEHOLDER.matcher(url).find()) {
          error("mcp.url", "placeholders are not allowed in an upstream server's URL");
        }
      }
      List<String> command = new ArrayList<>();
      JsonNode c = m.get("command");
      if (c != null && !c.isNull()) {
        if (!c.isArray() || c.isEmpty()) {
          error("mcp.command", "must be a non-empty list of strings (argv, e.g. [\"node\", \"server.mjs\"])");
        } else {
          for (int i = 0; i < c.size(); i++) {
            if (!c.get(i).isTextual() || c.get(i).asText().isEmpty()) {
              error("mcp.command[" + i + "]", "must be a non-empty string");
            } else {
              command.add(c.get(i).asText());
            }
          }
        }
      }
      if (url == null && command.isEmpty() && !m.has("url") && !m.has("command")) {
        error("mcp.url", "required: url (a Streamable HTTP endpoint) or command (an argv the worker runs over stdio)");
      } else if (url != null && !command.isEmpty()) {
        error("mcp.command", "give url or command, not both");
      }
      Map<String, String> env = new LinkedHashMap<>();
      ObjectNode e = section(m, "mcp", "env", false);
      if (e != null) {
        if (command.isEmpty()) {
          error("mcp.env", "only for a stdio upstream (command)");
        }
        e.fields().forEachRemaining(f -> {
          if (!f.getValue().isTextual() && !f.getValue().isNumber() && !f.getValue().isBoolean()) {
            error("mcp.env." + f.getKey(), "must be a string");
          } else {
            env.put(f.getKey(), f.getValue().asText());
          }
        });
      }
      String workingDir = string(m, "mcp", "working_dir", false);
      if (workingDir != null && command.isEmpty()) {
        error("mcp.working_dir", "only for a stdio upstream (command)");
      }
      String upstreamTool = string(m, "mcp", "tool", true);
      String credential = string(m, "mcp", "credential", false);
      if (credential != null && url == null) {
        error("mcp.credential", "only for an HTTP upstream (url): it is sent as Authorization: Bearer");
      }
      Duration timeout = duration(m, "mcp", "timeout", DEFAULT_MCP_TIMEOUT);
      if (result.errors.size() != before || upstreamTool == null || timeout == null) {
        return null;
      }
      return new McpSpec(url, command, env, workingDir, upstreamTool, credential, timeout.toMillis(), null);
    }

    /** The replay rules an mcp tool adds: {@code replay.status} names an upstream status tool. */
    private McpSpec mcpReplay(ObjectNode r, ReplaySpec replay, McpSpec mcp) {
      ObjectNode st = r == null ? null : section(r, "replay", "status", false);
      ReplayClass replayClass = replay == null ? null : replay.replayClass();
      if (st == null) {
        if (replayClass == ReplayClass.STATUS_QUERY) {
          error("replay.status", "required for class status_query: tool (a read-only upstream tool), arguments, field, "
              + "completed_when, not_executed_when");
        }
        return mcp;
      }
      if (replayClass != null && replayClass != ReplayClass.STATUS_QUERY) {
        warn("replay.status", "ignored for class " + replayClass.wireName() + " (only status_query uses it)");
      }
      known(st, "replay.status", MCP_STATUS);
      String statusTool = string(st, "replay.status", "tool", true);
      String arguments = "{}";
      JsonNode a = st.get("arguments");
      if (a != null && !a.isNull()) {
        if (!a.isObject()) {
          error("replay.status.arguments", "must be a mapping (the status tool's arguments)");
        } else {
          placeholdersIn("replay.status.arguments", a, true);
          arguments = a.toString();
        }
      }
      String field = string(st, "replay.status", "field", true);
      List<String> completed = values(st, "completed_when", true);
      List<String> failed = values(st, "failed_when", false);
      List<String> notExecuted = values(st, "not_executed_when", false);
      for (String v : notExecuted) {
        if (completed.contains(v) || failed.contains(v)) {
          error("replay.status.not_executed_when", "'" + v + "' is also in completed_when or failed_when");
        }
      }
      for (String v : failed) {
        if (completed.contains(v)) {
          error("replay.status.failed_when", "'" + v + "' is also in completed_when");
        }
      }
      if (mcp == null || statusTool == null || field == null || completed.isEmpty()) {
        return mcp;
      }
      return new McpSpec(mcp.url(), mcp.command(), mcp.env(), mcp.workingDir(), mcp.tool(), mcp.credential(),
          mcp.timeoutMillis(), new McpStatusSpec(statusTool, arguments, field, completed, failed, notExecuted));
    }

    private List<String> values(ObjectNode st, String field, boolean required) {
      String path = "replay.status." + field;
      JsonNode n = st.get(field);
      List<String> out = new ArrayList<>();
      if (n == null || n.isNull()) {
        if (required) {
          error(path, "required (a list of values of the status field, e.g. [completed])");
        }
        return out;
      }
      if (!n.isArray() || (required && n.isEmpty())) {
        error(path, "must be a " + (required ? "non-empty " : "") + "list of values of the status field");
        return out;
      }
      for (int i = 0; i < n.size(); i++) {
        JsonNode v = n.get(i);
        if (!v.isValueNode() || v.isNull()) {
          error(path + "[" + i + "]", "must be a string, number or boolean");
        } else {
          out.add(v.asText());
        }
      }
      return out;
    }

    private StatusSpec status(ObjectNode st) {
      known(st, "replay.status", STATUS);
      String method = string(st, "replay.status", "method", true);
      if (method != null) {
        method = method.toUpperCase(Locale.ROOT);
        if (!method.equals("GET") && !method.equals("HEAD")) {
          error("replay.status.method", "must be GET or HEAD (a status query must not change anything)");
        }
      }
      String url = string(st, "replay.status", "url", true);
      if (url != null) {
        url("replay.status.url", url, true);
      }
      List<Integer> completed = statusCodes(st, "completed_when", true);
      List<Integer> notExecuted = statusCodes(st, "not_executed_when", false);
      for (Integer code : notExecuted) {
        if (completed.contains(code)) {
          error("replay.status.not_executed_when", code + " is also in completed_when");
        }
      }
      Duration settle = settle(st);
      return method == null || url == null ? null : new StatusSpec(method, url, completed, notExecuted, settle);
    }

    /**
     * {@code replay.status.settle}: the least time between a send's end and a status answer that may
     * cause a re-send; absent means the HTTP timeout (null here). Zero is allowed (a target that
     * finishes before it answers); negative and malformed durations are errors.
     */
    private Duration settle(ObjectNode st) {
      JsonNode n = st.get("settle");
      if (n == null || n.isNull()) {
        return null;
      }
      try {
        Duration d = Duration.parse(n.asText());
        if (d.isNegative()) {
          error("replay.status.settle", "must not be negative, not " + n.asText());
          return null;
        }
        return d;
      } catch (DateTimeParseException e) {
        error("replay.status.settle", "'" + n.asText() + "' is not an ISO-8601 duration (e.g. PT30S, PT2M)");
        return null;
      }
    }

    private List<Integer> statusCodes(ObjectNode st, String field, boolean required) {
      String path = "replay.status." + field;
      JsonNode n = st.get(field);
      List<Integer> out = new ArrayList<>();
      if (n == null || n.isNull()) {
        if (required) {
          error(path, "required (a list of HTTP status codes, e.g. [200])");
        }
        return out;
      }
      if (!n.isArray()) {
        error(path, "must be a list of HTTP status codes");
        return out;
      }
      if (required && n.isEmpty()) {
        error(path, "must name at least one HTTP status code");
      }
      for (int i = 0; i < n.size(); i++) {
        JsonNode c = n.get(i);
        if (!c.isIntegralNumber() || c.asInt() < 100 || c.asInt() > 599) {
          error(path + "[" + i + "]", "must be an HTTP status code (100-599)");
        } else {
          out.add(c.asInt());
        }
      }
      return out;
    }

    private List<String> argumentNames(ObjectNode fp, String section, String field) {
      String path = section + "." + field;
      JsonNode n = fp.get(field);
      List<String> out = new ArrayList<>();
      if (n == null || n.isNull()) {
        return out;
      }
      if (!n.isArray()) {
        error(path, "must be a list of argument names");
        return out;
      }
      for (int i = 0; i < n.size(); i++) {
        String name = n.get(i).asText();
        if (!n.get(i).isTextual()) {
          error(path + "[" + i + "]", "must be an argument name");
        } else if (!properties.contains(name)) {
          error(path + "[" + i + "]", "'" + name + "' is not a property of input_schema");
        } else {
          out.add(name);
        }
      }
      return out;
    }

    private void url(String path, String url, boolean status) {
      placeholders(path, url, status);
      String probe = PLACEHOLDER.matcher(url).replaceAll("x");
      try {
        URI u = new URI(probe);
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
          error(path, "must be an http:// or https:// URL");
        } else if (u.getHost() == null) {
          error(path, "has no host");
        }
      } catch (URISyntaxException e) {
        error(path, "not a valid URL: " + e.getReason());
      }
    }

    private void placeholdersIn(String path, JsonNode node, boolean status) {
      if (node.isTextual()) {
        placeholders(path, node.asText(), status);
      } else if (node.isObject()) {
        node.fields().forEachRemaining(e -> {
          placeholders(path + "." + e.getKey(), e.getKey(), status);
          placeholdersIn(path + "." + e.getKey(), e.getValue(), status);
        });
      } else if (node.isArray()) {
        for (int i = 0; i < node.size(); i++) {
          placeholdersIn(path + "[" + i + "]", node.get(i), status);
        }
      }
    }

    private void placeholders(String path, String text, boolean status) {
      Matcher m = PLACEHOLDER.matcher(text);
      while (m.find()) {
        String name = m.group(1);
        // {{execution_id}} names the execution in the body, headers, status query and SSH argv, as
        // HttpTemplates and RemoteCommand render them. Not in http.url: the dispatch URL is part of
        // the fingerprint (its target), computed before the execution and its id exist.
        if (name.equals(EXECUTION_ID) && path.equals("http.url")) {
          error(path, "{{execution_id}} cannot be part of the dispatch URL: the URL is the fingerprint's target, "
              + "computed before the execution exists; send it in a header, the body or idempotency_header");
          continue;
        }
        if (properties.contains(name) || name.equals(EXECUTION_ID)) {
          continue;
        }
        error(path, "placeholder {{" + name + "}} is not a property of input_schema (nor execution_id)");
      }
    }

    private void known(ObjectNode obj, String path, List<String> allowed) {
      obj.fieldNames().forEachRemaining(name -> {
        if (!allowed.contains(name)) {
          String field = path.isEmpty() ? name : path + "." + name;
          String hint = closest(name, allowed);
          error(field, "unknown field" + (hint == null ? "" : " (did you mean '" + hint + "'?)")
              + "; known: " + String.join(", ", allowed));
        }
      });
    }

    private ObjectNode section(ObjectNode parent, String path, String field, boolean required) {
      String p = path.isEmpty() ? field : path + "." + field;
      JsonNode n = parent.get(field);
      if (n == null || n.isNull()) {
        if (required) {
          error(p, "required" + (field.equals("replay")
              ? " (class: read_only | idempotency_key | status_query | irreversible)" : ""));
        }
        return null;
      }
      if (!n.isObject()) {
        error(p, "must be a mapping");
        return null;
      }
      return (ObjectNode) n;
    }

    private String string(ObjectNode obj, String path, String field, boolean required) {
      String p = path.isEmpty() ? field : path + "." + field;
      JsonNode n = obj.get(field);
      if (n == null || n.isNull()) {
        if (required) {
          error(p, "required");
        }
        return null;
      }
      if (!n.isTextual() || n.asText().isBlank()) {
        error(p, "must be a non-empty string");
        return null;
      }
      return n.asText();
    }

    private Duration duration(ObjectNode obj, String path, String field, Duration dflt) {
      String p = path + "." + field;
      JsonNode n = obj.get(field);
      if (n == null || n.isNull()) {
        return dflt;
      }
      try {
        Duration d = Duration.parse(n.asText());
        if (d.isZero() || d.isNegative()) {
          error(p, "must be positive, not " + n.asText());
          return null;
        }
        return d;
      } catch (DateTimeParseException e) {
        error(p, "'" + n.asText() + "' is not an ISO-8601 duration (e.g. PT30S, PT1H)");
        return null;
      }
    }

    private static String closest(String name, List<String> candidates) {
      String best = null;
      int bestDistance = 3;
      String lower = name.toLowerCase(Locale.ROOT);
      for (String c : candidates) {
        if (lower.length() >= 4 && (c.startsWith(lower) || lower.startsWith(c))) {
          return c;
        }
      }
      for (String c : candidates) {
        int d = distance(lower, c);
        if (d < bestDistance) {
          best = c;
          bestDistance = d;
        }
      }
      return best;
    }

    private static int distance(String a, String b) {
      int[] prev = new int[b.length() + 1];
      int[] cur = new int[b.length() + 1];
      for (int j = 0; j <= b.length(); j++) {
        prev[j] = j;
      }
      for (int i = 1; i <= a.length(); i++) {
        cur[0] = i;
        for (int j = 1; j <= b.length(); j++) {
          int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
          cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
        }
        int[] t = prev;
        prev = cur;
        cur = t;
      }
      return prev[b.length()];
    }
  }
}
