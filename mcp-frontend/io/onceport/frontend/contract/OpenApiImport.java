package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.contract.ReplayClass;
import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns operations of an OpenAPI document (parsed by swagger-parser, references resolved) into
 * {@code channel: http} contracts: an input schema from the parameters and the JSON request body
 * (under the argument {@code body}), the method and URL template, {@code idempotency_header} when
 * the operation declares an {@code Idempotency-Key} header, and a proposed replay class — GET →
 * {@code read_only}; a declared idempotency key → {@code idempotency_key}; otherwise {@code
 * irreversible} with a comment. OpenAPI 3.0 schema dialect ({@code nullable}, {@code example},
 * {@code xml}…) is rewritten into JSON Schema 2020-12 keywords. Files are written by {@link
 * ContractDocument}: the document's titles, paths and names stay text.
 */
public final class OpenApiImport {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One contract to write, or an operation skipped with the reason. */
  public record Result(String fileName, String tool, String operationId, ReplayClass replayClass, String yaml, String skipped) {}

  private final OpenAPI api;
  private final String location;
  private final List<String> parseMessages;

  private OpenApiImport(OpenAPI api, String location, List<String> messages) {
    this.api = api;
    this.location = location;
    this.parseMessages = messages;
  }

  /** Parses a document (file path or URL); throws {@link IllegalArgumentException} with the parser's messages when it cannot. */
  public static OpenApiImport parse(String location) {
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    options.setResolveFully(true);
    // OpenAPI 3.x through the v3 parser; only a document that says swagger: "2.0" goes through the
    // converter (which otherwise also tries Swagger 1.x and logs stack traces for anything else).
    SwaggerParseResult r = isSwagger2(location)
        ? new OpenAPIParser().readLocation(location, null, options)
        : new io.swagger.v3.parser.OpenAPIV3Parser().readLocation(location, null, options);
    List<String> messages = r.getMessages() == null ? List.of() : List.copyOf(r.getMessages());
    if (r.getOpenAPI() == null || r.getOpenAPI().getPaths() == null) {
      throw new IllegalArgumentException(location + ": not an OpenAPI document"
          + (messages.isEmpty() ? "" : " (" + String.join("; ", messages) + ")"));
    }
    return new OpenApiImport(r.getOpenAPI(), location, messages);
  }

  private static boolean isSwagger2(String location) {
    if (location.startsWith("http://") || location.startsWith("https://")) {
      return false;
    }
    try {
      String text = java.nio.file.Files.readString(java.nio.file.Path.of(location));
      return java.util.regex.Pattern.compile("(?m)^[\"']?swagger[\"']?\\s*:\\s*[\"']?2").matcher(text).find();
    } catch (java.io.IOException | RuntimeException e) {
      return false;
    }
  }

  public List<String> parseMessages() {
    return parseMessages;
  }

  /** Every operation id in document order. */
  public List<String> operationIds() {
    List<String> ids = new ArrayList<>();
    api.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((m, op) -> ids.add(operationId(path, m, op))));
    return ids;
  }

  /** The server URL the document names first (may be relative), or null. */
  public String server() {
    return api.getServers() == null || api.getServers().isEmpty() ? null : api.getServers().get(0).getUrl();
  }

  private static String operationId(String path, PathItem.HttpMethod method, Operation op) {
    if (op.getOperationId() != null && !op.getOperationId().isBlank()) {
      return op.getOperationId();
    }
    return method.name().toLowerCase(Locale.ROOT) + path.replaceAll("[^A-Za-z0-9]+", "_");
  }

  /**
   * Contracts for the chosen operation ids (all when empty).
   *
   * @param server absolute base URL; the document's first server when null (it must then be absolute)
   */
  public List<Result> contracts(List<String> chosen, String server, String credential, String prefix) {
    String base = server != null ? server : server();
    if (base == null || !(base.startsWith("http://") || base.startsWith("https://"))) {
      throw new IllegalArgumentException(location + ": the document's server URL is " + (base == null ? "missing" : "'" + base + "'")
          + "; give an absolute one with --server");
    }
    base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    List<String> known = operationIds();
    for (String c : chosen) {
      if (!known.contains(c)) {
        throw new IllegalArgumentException("--operation " + c + ": " + location + " has no such operation (it has "
            + String.join(", ", known) + ")");
      }
    }
    List<Result> out = new ArrayList<>();
    for (Map.Entry<String, PathItem> p : api.getPaths().entrySet()) {
      for (Map.Entry<PathItem.HttpMethod, Operation> e : p.getValue().readOperationsMap().entrySet()) {
        String id = operationId(p.getKey(), e.getKey(), e.getValue());
        if (chosen.isEmpty() || chosen.contains(id)) {
          out.add(contract(base, p.getKey(), p.getValue(), e.getKey(), e.getValue(), id, credential, prefix == null ? "" : prefix));
        }
      }
    }
    return out;
  }

  private Result contract(String base, String path, PathItem item, PathItem.HttpMethod httpMethod, Operation op, String id,
      String credential, String prefix) {
    String method = httpMethod.name();
    String tool = ContractDocument.toolName(prefix + id);
    if (!Set.of("GET", "POST", "PUT", "PATCH", "DELETE").contains(method)) {
      return new Result(null, tool, id, null, null, method + " is not a method contracts dispatch (GET, POST, PUT, PATCH, DELETE)");
    }
    Inputs in = new Inputs(path);
    if (item.getParameters() != null) {
      item.getParameters().forEach(in::parameter);
    }
    if (op.getParameters() != null) {
      op.getParameters().forEach(in::parameter);
    }
    in.body(op.getRequestBody());
    ReplayClass proposed = method.equals("GET") ? ReplayClass.READ_ONLY
        : in.idempotencyHeader != null ? ReplayClass.IDEMPOTENCY_KEY : ReplayClass.IRREVERSIBLE;
    ContractDocument doc = new ContractDocument().header(header(tool, id, method, op, in, proposed));
    body(doc, tool, id, method, base, op, in, credential, proposed);
    String yaml = doc.toYaml();
    return new Result(tool + ".yaml", tool, id, proposed, yaml, null);
  }

  /**
   * What an operation's parameters and JSON request body become: the input schema (the body under
   * the argument {@code body}), the path, query and header templates, the idempotency header, and
   * notes on what was left out.
   */
  private static final class Inputs {
    final ObjectNode schema = JSON.createObjectNode().put("type", "object");
    final ObjectNode props = schema.putObject("properties");
    final ArrayNode required = JSON.createArrayNode();
    final StringBuilder query = new StringBuilder();
    final Map<String, String> headers = new LinkedHashMap<>();
    final List<String> notes = new ArrayList<>();
    String path;
    String idempotencyHeader;
    boolean hasBody;

    Inputs(String path) {
      this.path = path;
    }

    void parameter(Parameter prm) {
      String name = prm.getName();
      String in = prm.getIn();
      if ("header".equals(in) && name.equalsIgnoreCase("Idempotency-Key")) {
        idempotencyHeader = name;
        return;
      }
      if ("cookie".equals(in)) {
        notes.add("cookie parameter " + name + " is not supported and was left out");
        return;
      }
      ObjectNode ps = prm.getSchema() == null ? JSON.createObjectNode().put("type", "string") : jsonSchema(prm.getSchema());
      if (prm.getDescription() != null && !ps.has("description")) {
        ps.put("description", prm.getDescription());
      }
      boolean isRequired = Boolean.TRUE.equals(prm.getRequired()) || "path".equals(in);
      if (("query".equals(in) || "header".equals(in)) && !isRequired && !ps.has("default")) {
        notes.add(in + " parameter " + name + " is optional without a default and was left out (a template needs a value)");
        return;
      }
      props.set(name, ps);
      if (isRequired) {
        required.add(name);
      }
      switch (in) {
        case "path" -> path = path.replace("{" + name + "}", "{{" + name + "}}");
        case "query" -> query.append(query.length() == 0 ? "?" : "&").append(name).append("={{").append(name).append("}}");
        case "header" -> headers.put(name, "{{" + name + "}}");
        default -> notes.add("parameter " + name + " in " + in + " was left out");
      }
    }

    void body(RequestBody body) {
      if (body == null || body.getContent() == null) {
        return;
      }
      MediaType json = body.getContent().entrySet().stream()
          .filter(c -> c.getKey().startsWith("application/json") || c.getKey().endsWith("+json"))
          .map(Map.Entry::getValue).findFirst().orElse(null);
      if (json == null) {
        notes.add("request body types " + body.getContent().keySet() + " are not JSON; the body was left out");
        return;
      }
      ObjectNode bs = json.getSchema() == null ? JSON.createObjectNode() : jsonSchema(json.getSchema());
      if (body.getDescription() != null && !bs.has("description")) {
        bs.put("description", body.getDescription());
      }
      props.set("body", bs);
      hasBody = true;
      if (Boolean.TRUE.equals(body.getRequired())) {
        required.add("body");
      }
    }

    /** The input schema, complete. */
    ObjectNode inputSchema() {
      ObjectNode out = schema.deepCopy();
      if (!required.isEmpty()) {
        out.set("required", required);
      }
      out.put("additionalProperties", false);
      return out;
    }
  }

  /** The comment at the top: where the contract came from, the proposed class, why, and what to check. */
  private String header(String tool, String id, String method, Operation op, Inputs in, ReplayClass proposed) {
    List<String> head = new ArrayList<>();
    head.add(tool + ": imported from operation " + InertText.of(id) + " (" + method + " "
        + InertText.of(in.path.replace("{{", "{").replace("}}", "}")) + ") of "
        + InertText.of(api.getInfo() == null ? location : api.getInfo().getTitle() + " " + api.getInfo().getVersion())
        + " by `onceport contracts import-openapi`.");
    head.add("Review this file before serving it: the replay class below is a proposal, not a fact.");
    head.add("");
    head.add("Proposed replay class: " + proposed.wireName() + ".");
    switch (proposed) {
      case READ_ONLY -> {
        head.add("  Why: GET must not change anything (RFC 9110), so Onceport retries it, also after an unknown outcome.");
        head.add("  Check: that this endpoint really is safe; a GET that changes state must not be read_only.");
      }
      case IDEMPOTENCY_KEY -> {
        head.add("  Why: the operation declares an " + InertText.of(in.idempotencyHeader) + " header; Onceport sends the execution id in it and"
            + " re-sends with the same key after an unknown outcome.");
        head.add("  Check: that the API returns the first result for a repeated key (and refuses a reused key with another"
            + " body) for at least the attach window.");
      }
      default -> {
        head.add("  Why: " + method + " without a declared Idempotency-Key header: nothing says a re-send is safe, so a call whose"
            + " answer was lost waits for an operator (needs_review) and is never sent again.");
        head.add("  Check: if the API can say whether a call took effect (a lookup by a key Onceport sends), use status_query"
            + " with replay.status; if it honours an idempotency header, add http.idempotency_header and use idempotency_key.");
      }
    }
    if (op.getSecurity() != null && !op.getSecurity().isEmpty() || api.getSecurity() != null && !api.getSecurity().isEmpty()) {
      head.add("");
      head.add("The operation requires authentication: set http.credential to a vault reference.");
    }
    for (String n : in.notes) {
      head.add("Note: " + InertText.of(n) + ".");
    }
    return String.join("\n", head);
  }

  /** The contract's fields after the comment. */
  private static void body(ContractDocument doc, String tool, String id, String method, String base, Operation op, Inputs in,
      String credential, ReplayClass proposed) {
    ObjectNode y = doc.root();
    y.put("tool", tool);
    String description = op.getSummary() != null ? op.getSummary() : op.getDescription() != null ? op.getDescription() : id;
    if (op.getSummary() != null && op.getDescription() != null && !op.getDescription().equals(op.getSummary())) {
      description = op.getSummary() + " " + op.getDescription();
    }
    y.put("description", description.strip());
    y.set("input_schema", in.inputSchema());
    y.put("channel", "http");
    ObjectNode http = y.putObject("http");
    http.put("method", method);
    http.put("url", base + in.path + in.query);
    if (in.hasBody) {
      http.put("body", "{{body}}");
      doc.inline("http.body", "the argument body, sent as JSON");
    } else if (!method.equals("GET") && !method.equals("DELETE")) {
      http.putObject("body");
    }
    if (!in.headers.isEmpty()) {
      ObjectNode headers = http.putObject("headers");
      in.headers.forEach(headers::put);
    }
    if (in.idempotencyHeader != null) {
      http.put("idempotency_header", in.idempotencyHeader);
      doc.inline("http.idempotency_header", "carries the execution id");
    }
    if (credential != null) {
      http.put("credential", credential);
    } else {
      doc.before("http.timeout", "credential: NAME          # a vault reference (bearer, basic or header)");
    }
    http.put("timeout", "PT30S");
    ObjectNode replay = y.putObject("replay");
    replay.put("class", proposed.wireName());
    doc.inline("replay.class", "proposed; see the comment at the top");
    replay.put("attach_window", "PT1H");
  }

  /** A swagger model schema as JSON Schema 2020-12: OpenAPI-only keywords rewritten or dropped. */
  static ObjectNode jsonSchema(Schema<?> schema) {
    JsonNode tree = io.swagger.v3.core.util.Json.mapper().valueToTree(schema);
    return tree.isObject() ? SchemaDialect.clean((ObjectNode) tree, true) : JSON.createObjectNode();
  }
}
