package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.util.Iterator;
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
 * {@code xml}…) is rewritten into JSON Schema 2020-12 keywords.
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
    String tool = ContractYaml.toolName(prefix + id);
    if (!Set.of("GET", "POST", "PUT", "PATCH", "DELETE").contains(method)) {
      return new Result(null, tool, id, null, null, method + " is not a method contracts dispatch (GET, POST, PUT, PATCH, DELETE)");
    }
    List<Parameter> params = new ArrayList<>();
    if (item.getParameters() != null) {
      params.addAll(item.getParameters());
    }
    if (op.getParameters() != null) {
      params.addAll(op.getParameters());
    }
    ObjectNode schema = JSON.createObjectNode().put("type", "object");
    ObjectNode props = schema.putObject("properties");
    ArrayNode required = JSON.createArrayNode();
    StringBuilder query = new StringBuilder();
    Map<String, String> headers = new LinkedHashMap<>();
    String idempotencyHeader = null;
    List<String> notes = new ArrayList<>();
    for (Parameter prm : params) {
      String name = prm.getName();
      String in = prm.getIn();
      if ("header".equals(in) && name.equalsIgnoreCase("Idempotency-Key")) {
        idempotencyHeader = name;
        continue;
      }
      if ("cookie".equals(in)) {
        notes.add("cookie parameter " + name + " is not supported and was left out");
        continue;
      }
      ObjectNode ps = prm.getSchema() == null ? JSON.createObjectNode().put("type", "string") : jsonSchema(prm.getSchema());
      if (prm.getDescription() != null && !ps.has("description")) {
        ps.put("description", prm.getDescription());
      }
      boolean isRequired = Boolean.TRUE.equals(prm.getRequired()) || "path".equals(in);
      boolean hasDefault = ps.has("default");
      if (("query".equals(in) || "header".equals(in)) && !isRequired && !hasDefault) {
        notes.add(in + " parameter " + name + " is optional without a default and was left out (a template needs a value)");
        continue;
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
    boolean hasBody = false;
    RequestBody body = op.getRequestBody();
    if (body != null && body.getContent() != null) {
      MediaType json = body.getContent().entrySet().stream()
          .filter(c -> c.getKey().startsWith("application/json") || c.getKey().endsWith("+json"))
          .map(Map.Entry::getValue).findFirst().orElse(null);
      if (json == null) {
        notes.add("request body types " + body.getContent().keySet() + " are not JSON; the body was left out");
      } else {
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
    }
    if (!required.isEmpty()) {
      schema.set("required", required);
    }
    schema.put("additionalProperties", false);

    ReplayClass proposed = method.equals("GET") ? ReplayClass.READ_ONLY
        : idempotencyHeader != null ? ReplayClass.IDEMPOTENCY_KEY : ReplayClass.IRREVERSIBLE;
    StringBuilder y = new StringBuilder();
    List<String> head = new ArrayList<>();
    head.add(tool + ": imported from operation " + id + " (" + method + " " + path.replace("{{", "{").replace("}}", "}") + ") of "
        + (api.getInfo() == null ? location : api.getInfo().getTitle() + " " + api.getInfo().getVersion())
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
        head.add("  Why: the operation declares an " + idempotencyHeader + " header; Onceport sends the execution id in it and"
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
    for (String n : notes) {
      head.add("Note: " + n + ".");
    }
    y.append(ContractYaml.comment(String.join("\n", head)));
    y.append("tool: ").append(tool).append('\n');
    String description = op.getSummary() != null ? op.getSummary() : op.getDescription() != null ? op.getDescription() : id;
    if (op.getSummary() != null && op.getDescription() != null && !op.getDescription().equals(op.getSummary())) {
      description = op.getSummary() + " " + op.getDescription();
    }
    y.append("description: ").append(ContractYaml.scalar(description.strip())).append('\n');
    y.append(ContractYaml.block("input_schema", schema, 2));
    y.append("channel: http\n");
    y.append("http:\n");
    y.append("  method: ").append(method).append('\n');
    y.append("  url: ").append(ContractYaml.scalar(base + path + query)).append('\n');
    if (hasBody) {
      y.append("  body: \"{{body}}\"          # the argument body, sent as JSON\n");
    } else if (!method.equals("GET") && !method.equals("DELETE")) {
      y.append("  body: {}\n");
    }
    if (!headers.isEmpty()) {
      y.append("  headers:\n");
      headers.forEach((k, v) -> y.append("    ").append(k).append(": ").append(ContractYaml.scalar(v)).append('\n'));
    }
    if (idempotencyHeader != null) {
      y.append("  idempotency_header: ").append(idempotencyHeader).append("   # carries the execution id\n");
    }
    if (credential != null) {
      y.append("  credential: ").append(ContractYaml.scalar(credential)).append('\n');
    } else {
      y.append("  # credential: NAME          # a vault reference (bearer, basic or header)\n");
    }
    y.append("  timeout: PT30S\n");
    y.append("replay:\n");
    y.append("  class: ").append(proposed.wireName()).append("   # proposed; see the comment at the top\n");
    y.append("  attach_window: PT1H\n");
    return new Result(tool + ".yaml", tool, id, proposed, y.toString(), null);
  }

  /** A swagger model schema as JSON Schema 2020-12: OpenAPI-only keywords rewritten or dropped. */
  static ObjectNode jsonSchema(Schema<?> schema) {
    JsonNode tree = io.swagger.v3.core.util.Json.mapper().valueToTree(schema);
    return tree.isObject() ? SchemaDialect.clean((ObjectNode) tree, true) : JSON.createObjectNode();
  }
}
