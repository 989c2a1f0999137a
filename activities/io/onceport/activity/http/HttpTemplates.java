package io.onceport.activity.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.UrlTemplate;
import io.temporal.failure.ApplicationFailure;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders {@code {{name}}} placeholders against one execution's arguments. {@code execution_id}
 * always names the execution, even if an argument has the same name. URLs are rendered by {@link
 * UrlTemplate}, the code the front end uses for the fingerprint's target, so what is sent is what
 * was fingerprinted. Every failure is a non-retryable {@code INVALID_REQUEST}: the same contract and
 * arguments would fail again.
 */
final class HttpTemplates {
  static final String EXECUTION_ID = "execution_id";
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_.-]*)\\s*\\}\\}");
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Numbers as the client sent them (2^53+1, 30-digit decimals): for the body, which carries values. */
  private static final ObjectMapper EXACT = new ObjectMapper()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .configure(com.fasterxml.jackson.databind.cfg.JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
      .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

  private final ObjectNode arguments;
  private final ObjectNode exactArguments;
  private final String executionId;
  private final Set<String> secret;

  /**
   * @param secret the contract's {@code fingerprint.secret} arguments: their values are never put
   *     into a message ({@link #shownUrl}, {@link #scrub})
   */
  HttpTemplates(String argumentsJson, String executionId, List<String> secret) {
    this.executionId = executionId;
    this.secret = Set.copyOf(secret);
    JsonNode parsed;
    try {
      parsed = JSON.readTree(argumentsJson);
    } catch (JsonProcessingException e) {
      // The parser's message quotes a piece of the text, which may be a secret value.
      throw invalid("Arguments are not valid JSON");
    }
    if (parsed == null || !parsed.isObject()) {
      throw invalid("Arguments must be a JSON object");
    }
    this.arguments = (ObjectNode) parsed;
    try {
      this.exactArguments = (ObjectNode) EXACT.readTree(argumentsJson);
    } catch (JsonProcessingException e) {
      throw invalid("Arguments are not valid JSON");
    }
  }

  /**
   * The URL as messages may show it: rendered like {@link #url}, but every secret argument kept as
   * its {@code {{name}}} (as in the fingerprint's target) and without query or fragment.
   */
  String shownUrl(String template, String where) {
    String shown;
    try {
      shown = UrlTemplate.render(template, where, name -> {
        JsonNode value = name.equals(EXECUTION_ID) ? TextNode.valueOf(executionId) : arguments.get(name);
        return value == null || value.isNull() || value.isContainerNode() ? "" : value.isTextual() ? value.textValue() : value.toString();
      }, secret);
    } catch (UrlTemplate.InvalidUrlException e) {
      shown = template;
    }
    int cut = shown.length();
    for (char c : new char[] {'?', '#'}) {
      int i = shown.indexOf(c);
      cut = i >= 0 ? Math.min(cut, i) : cut;
    }
    return shown.substring(0, cut);
  }

  /**
   * {@code message} with every secret argument's value removed, in the forms a message could carry
   * it (as is, percent-encoded, JSON-escaped…, see {@link SecretRedactor}). A backstop for text from
   * libraries (an exception's {@code toString()}): messages this package writes never quote a value.
   */
  String scrub(String message) {
    String out = message;
    for (String name : secret) {
      JsonNode value = arguments.get(name);
      if (value != null && !value.isNull()) {
        String text = value.isTextual() ? value.textValue() : value.toString();
        out = SecretRedactor.ofText("{{" + name + "}}", text).redact(out);
      }
    }
    return out;
  }

  /**
   * The URL, rendered by {@link UrlTemplate} exactly as the front end rendered the canonical
   * record's target: placeholders percent-encoded, {@code .}/{@code ..} segments refused.
   *
   * @param where names the template in messages: {@code url} or {@code status url}
   */
  String url(String template, String where) {
    try {
      return UrlTemplate.render(template, where, name -> {
        JsonNode value = name.equals(EXECUTION_ID) ? TextNode.valueOf(executionId) : arguments.get(name);
        if (value == null || value.isNull()) {
          return null;
        }
        if (value.isContainerNode()) {
          throw UrlTemplate.InvalidUrlException.notScalar(name, where, value.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        return value.isTextual() ? value.textValue() : value.toString();
      });
    } catch (UrlTemplate.InvalidUrlException e) {
      throw invalid(e.getMessage());
    }
  }

  /** A header value or other plain text: placeholders replaced by the argument's text. */
  String text(String template, String where) {
    return substitute(template, where, value -> scalarText(value.name, value.node, where));
  }

  /**
   * The body: a string leaf that is exactly one placeholder becomes the argument's JSON value (so
   * numbers, booleans and objects stay typed, numbers with every digit the client sent);
   * placeholders inside longer strings become text. A null template sends the arguments object itself.
   */
  String body(String template) {
    if (template == null) {
      return exactArguments.toString();
    }
    JsonNode tree;
    try {
      tree = JSON.readTree(template);
    } catch (JsonProcessingException e) {
      throw invalid("Body template is not valid JSON: " + e.getOriginalMessage());
    }
    return render(tree).toString();
  }

  private JsonNode render(JsonNode node) {
    if (node.isTextual()) {
      String s = node.textValue();
      Matcher whole = PLACEHOLDER.matcher(s);
      if (whole.matches()) {
        JsonNode value = lookup(whole.group(1), "body");
        return (whole.group(1).equals(EXECUTION_ID) ? value : exactArguments.get(whole.group(1))).deepCopy();
      }
      return TextNode.valueOf(text(s, "body"));
    }
    if (node.isObject()) {
      ObjectNode out = JSON.createObjectNode();
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        out.set(f.getKey(), render(f.getValue()));
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = JSON.createArrayNode();
      node.forEach(e -> out.add(render(e)));
      return out;
    }
    return node;
  }

  private record Value(String name, JsonNode node) {}

  private interface Renderer {
    String render(Value value);
  }

  private String substitute(String template, String where, Renderer renderer) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    int last = 0;
    while (m.find()) {
      String literal = template.substring(last, m.start());
      checkNoStrayBraces(literal, template, where);
      out.append(literal);
      out.append(renderer.render(new Value(m.group(1), lookup(m.group(1), where))));
      last = m.end();
    }
    String tail = template.substring(last);
    checkNoStrayBraces(tail, template, where);
    out.append(tail);
    return out.toString();
  }

  private static void checkNoStrayBraces(String literal, String template, String where) {
    if (literal.contains("{{") || literal.contains("}}")) {
      throw invalid("Malformed placeholder in " + where + " template '" + template + "'");
    }
  }

  private JsonNode lookup(String name, String where) {
    if (name.equals(EXECUTION_ID)) {
      return TextNode.valueOf(executionId);
    }
    JsonNode value = arguments.get(name);
    if (value == null || value.isNull()) {
      throw invalid("Placeholder {{" + name + "}} in " + where + " has no argument value");
    }
    return value;
  }

  private static String scalarText(String name, JsonNode value, String where) {
    if (value.isContainerNode()) {
      throw invalid("Placeholder {{" + name + "}} in " + where + " needs a scalar, got " + value.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
    }
    return value.isTextual() ? value.textValue() : value.toString();
  }

  static ApplicationFailure invalid(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, ErrorTypes.INVALID_REQUEST);
  }
}
