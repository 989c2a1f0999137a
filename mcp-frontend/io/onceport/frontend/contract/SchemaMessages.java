package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.path.NodePath;
import io.onceport.frontend.contract.ContractSchema.Prune;
import io.onceport.frontend.contract.ContractSchema.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a failure of the contract schema into the loader's message, from the annotations next to
 * the failing keyword in the schema itself, so editors and the loader say the same thing:
 *
 * <ul>
 *   <li>{@code requiredMessage} on a property: the message when it is missing (else {@code
 *       required});
 *   <li>{@code additionalProperties: false}: {@code unknown field (did you mean '…'?); known: …},
 *       from the names under {@code properties};
 *   <li>{@code patternErrorMessage} for a {@code pattern}, else {@code errorMessage}, for any other
 *       keyword; as in editors, an annotation next to a {@code $ref} overrides the referenced
 *       schema's; without one, a message by keyword ({@code must be a mapping}, …).
 * </ul>
 *
 * A message that begins with {@code is } is about the value, which is put before it: {@code '1h'
 * is not an ISO-8601 duration (e.g. PT30S, PT1H)}.
 */
final class SchemaMessages {
  static final String ERROR_MESSAGE = "errorMessage";
  static final String PATTERN_ERROR_MESSAGE = "patternErrorMessage";
  static final String REQUIRED_MESSAGE = "requiredMessage";

  private static final Map<String, String> TYPE_NAMES = Map.of("object", "a mapping", "array", "a list",
      "string", "a string", "boolean", "true or false", "integer", "an integer", "number", "a number", "null", "null");

  private final JsonNode document;

  SchemaMessages(JsonNode document) {
    this.document = document;
  }

  /** The violation {@code e} reports on {@code contract}. */
  Violation violation(Error e, JsonNode contract) {
    List<Object> at = elements(e.getInstanceLocation());
    List<JsonNode> holders = holders(elements(e.getEvaluationPath()));
    String keyword = e.getKeyword();
    if (keyword.equals("required") || keyword.equals("additionalProperties")) {
      List<Object> field = new ArrayList<>(at);
      field.add(e.getProperty());
      return keyword.equals("required")
          ? new Violation(dotted(field), field, requiredMessage(holders, e.getProperty()), Prune.NONE)
          : new Violation(dotted(field), field, unknownField(e.getProperty(), holders.get(0)), Prune.REMOVE);
    }
    String message = keyword.equals("pattern") ? annotation(holders, PATTERN_ERROR_MESSAGE) : null;
    if (message == null) {
      message = annotation(holders, ERROR_MESSAGE);
    }
    if (message == null) {
      message = byKeyword(keyword, holders.get(0), e);
    }
    if (message.startsWith("is ")) {
      message = quoted(at(contract, at)) + " " + message;
    }
    return new Violation(dotted(at), at, message, Prune.NULL);
  }

  /**
   * The schema objects the failing keyword belongs to: the one holding it first, then each object
   * whose {@code $ref} led there (the evaluation path records the hops), outermost last.
   */
  private List<JsonNode> holders(List<Object> evaluationPath) {
    List<JsonNode> visited = new ArrayList<>();
    JsonNode node = document;
    visited.add(node);
    for (int i = 0; i < evaluationPath.size() - 1; i++) {
      Object step = evaluationPath.get(i);
      node = "$ref".equals(step) ? resolve(node.path("$ref").asText())
          : step instanceof Integer index ? node.path(index) : node.path(step.toString());
      visited.add(node);
    }
    List<JsonNode> holders = new ArrayList<>();
    int k = evaluationPath.size() - 1;
    holders.add(visited.get(k));
    while (k > 0 && "$ref".equals(evaluationPath.get(k - 1))) {
      holders.add(visited.get(--k));
    }
    return holders;
  }

  /** A reference within the document ({@code #/$defs/http}); the schema has no other kind. */
  private JsonNode resolve(String ref) {
    if (!ref.startsWith("#")) {
      throw new IllegalStateException("contract schema: only local $refs are supported, not " + ref);
    }
    return document.at(ref.substring(1));
  }

  /** The outermost holder's {@code name} annotation, as editors merge a {@code $ref} into its referrer. */
  private static String annotation(List<JsonNode> holders, String name) {
    for (int i = holders.size() - 1; i >= 0; i--) {
      JsonNode text = holders.get(i).get(name);
      if (text != null && text.isTextual()) {
        return text.asText();
      }
    }
    return null;
  }

  private static String requiredMessage(List<JsonNode> holders, String property) {
    for (JsonNode holder : holders) {
      JsonNode message = holder.path("properties").path(property).get(REQUIRED_MESSAGE);
      if (message != null && message.isTextual()) {
        return message.asText();
      }
    }
    return "required";
  }

  private static String unknownField(String name, JsonNode holder) {
    List<String> known = new ArrayList<>();
    holder.path("properties").fieldNames().forEachRemaining(known::add);
    String hint = closest(name, known);
    return "unknown field" + (hint == null ? "" : " (did you mean '" + hint + "'?)") + "; known: " + String.join(", ", known);
  }

  private static String byKeyword(String keyword, JsonNode holder, Error e) {
    switch (keyword) {
      case "type": {
        JsonNode type = holder.path("type");
        List<String> names = new ArrayList<>();
        (type.isArray() ? type : List.of(type)).forEach(t -> names.add(TYPE_NAMES.getOrDefault(t.asText(), t.asText())));
        return "must be " + String.join(" or ", names);
      }
      case "minItems":
        return holder.path("minItems").asInt() == 1 ? "must not be empty" : "must have at least " + holder.path("minItems") + " items";
      case "enum": {
        List<String> values = new ArrayList<>();
        holder.path("enum").forEach(v -> values.add(v.asText()));
        return "must be one of " + String.join(", ", values);
      }
      default:
        return e.getMessage();
    }
  }

  /** The value for a message about it: {@code 'text'}, or what it is when it is not a scalar. */
  private static String quoted(JsonNode value) {
    if (value == null || value.isMissingNode()) {
      return "the value";
    }
    if (value.isObject()) {
      return "a mapping";
    }
    if (value.isArray()) {
      return "a list";
    }
    return value.isNull() ? "null" : "'" + value.asText() + "'";
  }

  static JsonNode at(JsonNode tree, List<Object> location) {
    JsonNode node = tree;
    for (Object step : location) {
      node = step instanceof Integer index ? node.path(index) : node.path(step.toString());
    }
    return node;
  }

  static List<Object> elements(NodePath path) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < path.getNameCount(); i++) {
      out.add(path.getElement(i));
    }
    return out;
  }

  /** {@code a.b[0]} for the elements {@code a, b, 0}. */
  static String dotted(List<Object> location) {
    StringBuilder sb = new StringBuilder();
    for (Object step : location) {
      if (step instanceof Integer) {
        sb.append('[').append(step).append(']');
      } else {
        sb.append(sb.length() == 0 ? "" : ".").append(step);
      }
    }
    return sb.toString();
  }

  /** The known name closest to a mistyped one: a shared prefix of 4 or more, else an edit distance under 3. */
  static String closest(String name, List<String> candidates) {
    String lower = name.toLowerCase(Locale.ROOT);
    for (String c : candidates) {
      if (lower.length() >= 4 && (c.startsWith(lower) || lower.startsWith(c))) {
        return c;
      }
    }
    String best = null;
    int bestDistance = 3;
    for (String c : candidates) {
      int d = distance(lower, c);
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance (also used by {@link SchemaKeywords} for its "did you mean"). */
  static int distance(String a, String b) {
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
