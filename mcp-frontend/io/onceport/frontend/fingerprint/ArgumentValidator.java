package io.onceport.frontend.fingerprint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import io.onceport.frontend.contract.JsonSchemas;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.UrlTemplate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;

/**
 * Validates tool arguments against the contract's input schema (JSON Schema 2020-12) and returns
 * them normalized: a copy with every declared {@code default} materialized, at the top level and
 * inside nested objects whose properties the schema declares. Materializing (rather than omitting)
 * defaults is what makes {@code {}} and {@code {"region": "us-east-1"}} the same action when
 * {@code us-east-1} is the default. Defaults behind {@code $ref}, {@code allOf} and the like are
 * not materialized. Compiled schemas are cached per schema text. Thread-safe.
 *
 * <p>Numbers stay exact through validation: schema and arguments cross to the validator's Jackson 3
 * trees with big integers and decimals kept (not doubles), so {@code maximum: 9007199254740992}
 * refuses {@code 9007199254740993}, and the normalized arguments keep the digits the client sent.
 */
public final class ArgumentValidator {
  private static final ObjectMapper JSON = ExactJson.newMapper();
  private static final tools.jackson.databind.json.JsonMapper V3 = tools.jackson.databind.json.JsonMapper.builder()
      .enable(tools.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .configure(tools.jackson.databind.cfg.JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
      .build();
  private final Map<String, Compiled> cache = new ConcurrentHashMap<>();

  private record Compiled(JsonNode schemaV2, Schema schema) {}

  /**
   * @param arguments the {@code tools/call} arguments; null or missing is treated as {@code {}}
   * @return the normalized arguments (a new object; the input is not modified)
   * @throws InvalidArgumentsException naming every invalid field
   */
  public ObjectNode validate(ToolContract contract, JsonNode arguments) throws InvalidArgumentsException {
    if (contract.inputSchema() == null) {
      throw new IllegalArgumentException("contract " + contract.tool() + " has no input schema");
    }
    Compiled c = cache.computeIfAbsent(contract.inputSchema(), ArgumentValidator::compile);
    if (arguments == null || arguments.isNull() || arguments.isMissingNode()) {
      arguments = JsonNodeFactory.instance.objectNode();
    }
    if (!arguments.isObject()) {
      throw new InvalidArgumentsException(List.of("arguments: must be an object"));
    }
    ObjectNode normalized = ((ObjectNode) arguments).deepCopy();
    materializeDefaults(c.schemaV2(), normalized);
    List<Error> errors = c.schema().validate(V3.readTree(normalized.toString()));
    if (!errors.isEmpty()) {
      Set<String> messages = new LinkedHashSet<>();
      for (Error e : errors) {
        messages.add(describe(e));
      }
      throw new InvalidArgumentsException(new ArrayList<>(messages));
    }
    List<String> urlErrors = urlErrors(contract, normalized);
    urlErrors.addAll(headerErrors(contract, normalized));
    if (!urlErrors.isEmpty()) {
      throw new InvalidArgumentsException(urlErrors);
    }
    return normalized;
  }

  /**
   * Arguments that a contract header would carry but a header value cannot — a line break, another
   * control character, a non-ASCII character (RFC 9110 field values as OkHttp sends them: TAB and
   * visible ASCII) — are refused here, naming the argument and never quoting its value: the value
   * may be a {@code fingerprint.secret} (a PIN, a token), and the HTTP client's own error quoted it
   * into the journal, the log, the record and the answer.
   */
  private static List<String> headerErrors(ToolContract contract, ObjectNode arguments) {
    List<String> errors = new ArrayList<>();
    if (contract.channel() != ToolContract.Channel.HTTP || contract.http() == null) {
      return errors;
    }
    contract.http().headers().forEach((name, template) -> {
      Matcher m = UrlTemplate.PLACEHOLDER.matcher(template);
      while (m.find()) {
        JsonNode value = arguments.get(m.group(1));
        if (value != null && value.isTextual() && !fitsHeader(value.textValue())) {
          errors.add(m.group(1) + ": a header value cannot carry a line break, another control character or a non-ASCII "
              + "character (http.headers." + name + "); the value is not shown");
        }
      }
    });
    return errors;
  }

  /** What OkHttp (and RFC 9110 for field values, less obs-text) accepts in a header value: TAB and 0x20-0x7E. */
  static boolean fitsHeader(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c != '\t' && (c < 0x20 || c > 0x7e)) {
        return false;
      }
    }
    return true;
  }

  /** Stands in for the execution id, which the front end does not know yet, in a status URL. */
  private static final String SOME_EXECUTION_ID = "act_00000000000000000000000000";

  /**
   * Arguments that cannot make the URL the HTTP channel would send — a {@code .} or {@code ..}
   * path segment, a missing or non-scalar value — are refused here, before an execution starts,
   * instead of failing at dispatch (see {@link UrlTemplate}).
   */
  private static List<String> urlErrors(ToolContract contract, ObjectNode arguments) {
    if (contract.channel() != ToolContract.Channel.HTTP || contract.http() == null) {
      return new ArrayList<>();
    }
    List<String> errors = new ArrayList<>();
    checkUrl(errors, contract.http().url(), "http.url", name -> CanonicalActionRecord.urlText(arguments, name, "http.url"));
    StatusSpec status = contract.replay() == null ? null : contract.replay().status();
    if (status != null) {
      checkUrl(errors, status.url(), "replay.status.url", name -> name.equals("execution_id")
          ? SOME_EXECUTION_ID : CanonicalActionRecord.urlText(arguments, name, "replay.status.url"));
    }
    return errors;
  }

  private static void checkUrl(List<String> errors, String template, String where, UrlTemplate.Values values) {
    String url;
    try {
      url = UrlTemplate.render(template, where, values);
    } catch (UrlTemplate.InvalidUrlException e) {
      errors.add(e.placeholder() == null ? where + ": " + e.reason() : e.placeholder() + ": " + e.reason() + " (" + where + ")");
      return;
    }
    if (!CanonicalActionRecord.hasHost(url)) {
      // A host placeholder whose value no URL can carry ("a b", "", "[::1"): the agent's mistake, said as such.
      List<String> inHost = UrlTemplate.authorityPlaceholders(template);
      errors.add(inHost.isEmpty() ? where + ": the arguments make no URL with a host"
          : inHost.get(0) + ": the value makes no URL with a host (" + where + ")");
    }
  }

  private static Compiled compile(String schemaText) {
    try {
      JsonNode node = JSON.readTree(schemaText);
      Schema schema = JsonSchemas.registry().getSchema(V3.readTree(schemaText));
      schema.initializeValidators(); // eagerly, so concurrent first calls do not race on lazy init
      return new Compiled(node, schema);
    } catch (IOException e) {
      throw new UncheckedIOException("input schema is not JSON", e);
    }
  }

  private static void materializeDefaults(JsonNode schema, ObjectNode instance) {
    JsonNode props = schema.path("properties");
    for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      JsonNode value = instance.get(p.getKey());
      if (value == null && p.getValue().has("default")) {
        instance.set(p.getKey(), p.getValue().get("default").deepCopy());
      } else if (value != null && value.isObject() && p.getValue().has("properties")) {
        materializeDefaults(p.getValue(), (ObjectNode) value);
      }
    }
  }

  /** One error as {@code field: what is wrong}, without the offending value. */
  private static String describe(Error e) {
    String field = fieldOf(e);
    String keyword = e.getKeyword() == null ? "" : e.getKeyword();
    switch (keyword) {
      case "required":
        return join(field, e.getProperty()) + ": required property missing";
      case "additionalProperties":
      case "unevaluatedProperties":
        return join(field, e.getProperty()) + ": unknown property";
      case "type":
        return field + ": must be " + typePhrase(e.getSchemaNode());
      case "enum":
        return field + ": must be one of " + e.getSchemaNode();
      case "const":
        return field + ": must be " + e.getSchemaNode();
      default:
        String message = e.getMessage();
        return field + ": " + (message == null ? keyword + " failed" : message);
    }
  }

  private static String fieldOf(Error e) {
    String dotted = dotted(e.getInstanceLocation());
    return dotted.isEmpty() ? "arguments" : dotted;
  }

  private static String join(String field, String property) {
    if (property == null) {
      return field;
    }
    return field.equals("arguments") ? property : field + "." + property;
  }

  private static String dotted(com.networknt.schema.path.NodePath path) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < path.getNameCount(); i++) {
      Object el = path.getElement(i);
      if (el instanceof Integer) {
        sb.append('[').append(el).append(']');
      } else {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(el);
      }
    }
    return sb.toString();
  }

  private static String typePhrase(tools.jackson.databind.JsonNode type) {
    if (type == null) {
      return "of another type";
    }
    List<String> names = new ArrayList<>();
    if (type.isArray()) {
      type.forEach(t -> names.add(article(t.asText())));
    } else {
      names.add(article(type.asText()));
    }
    return String.join(" or ", names);
  }

  private static String article(String type) {
    switch (type) {
      case "integer":
      case "object":
      case "array":
        return "an " + type;
      case "null":
        return "null";
      default:
        return "a " + type;
    }
  }
}
