package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Rewrites an imported schema into the JSON Schema 2020-12 keywords a contract's {@code
 * input_schema} holds: other keywords (vendor extensions, {@code $schema} of another draft,
 * OpenAPI's {@code xml} or {@code discriminator}) are dropped, and with {@code openApi30} the
 * OpenAPI 3.0 dialect is translated ({@code nullable} → a {@code "null"} type, {@code example} →
 * {@code examples}, boolean {@code exclusiveMinimum}/{@code exclusiveMaximum} → numeric).
 * Dropping never loosens validation of what the upstream validates: the upstream still checks its
 * own schema when it is called.
 */
final class SchemaDialect {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Set<String> KEYWORDS = Set.of("type", "enum", "const", "properties", "required", "items", "prefixItems",
      "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "minItems", "maxItems",
      "uniqueItems", "contains", "minContains", "maxContains", "minLength", "maxLength", "pattern", "format", "minimum",
      "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
      "default", "description", "title", "examples", "readOnly", "writeOnly", "deprecated", "dependentRequired",
      "dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "contentEncoding", "contentMediaType",
      "contentSchema", "$defs", "$ref", "$id", "$anchor", "$comment");
  /** Keywords whose value is a map of name → schema. */
  private static final Set<String> SCHEMA_MAPS = Set.of("properties", "patternProperties", "dependentSchemas", "$defs");
  /** Keywords whose value is one schema or a list of schemas. */
  private static final Set<String> SCHEMA_VALUES = Set.of("items", "additionalProperties", "propertyNames", "contains", "not",
      "if", "then", "else", "allOf", "anyOf", "oneOf", "prefixItems", "unevaluatedProperties", "unevaluatedItems",
      "contentSchema");

  private SchemaDialect() {}

  static ObjectNode clean(ObjectNode s, boolean openApi30) {
    ObjectNode out = JSON.createObjectNode();
    boolean nullable = openApi30 && s.path("nullable").asBoolean(false);
    for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      JsonNode v = e.getValue();
      if (openApi30 && k.equals("example") && !s.has("examples")) {
        out.putArray("examples").add(v);
      } else if (!KEYWORDS.contains(k)) {
        continue;
      } else if (SCHEMA_MAPS.contains(k) && v.isObject()) {
        ObjectNode m = out.putObject(k);
        v.fields().forEachRemaining(f -> m.set(f.getKey(),
            f.getValue().isObject() ? clean((ObjectNode) f.getValue(), openApi30) : f.getValue()));
      } else if (SCHEMA_VALUES.contains(k) && v.isObject()) {
        out.set(k, clean((ObjectNode) v, openApi30));
      } else if (SCHEMA_VALUES.contains(k) && v.isArray()) {
        ArrayNode a = out.putArray(k);
        v.forEach(el -> a.add(el.isObject() ? clean((ObjectNode) el, openApi30) : el));
      } else if ((k.equals("exclusiveMinimum") || k.equals("exclusiveMaximum")) && v.isBoolean()) {
        // OpenAPI 3.0's boolean form: the bound moves into the exclusive keyword
        String bound = k.equals("exclusiveMinimum") ? "minimum" : "maximum";
        if (v.asBoolean() && s.has(bound)) {
          out.set(k, s.get(bound));
        }
      } else {
        out.set(k, v);
      }
    }
    if (s.path("exclusiveMinimum").isBoolean() && s.path("exclusiveMinimum").asBoolean() && s.has("minimum")) {
      out.remove("minimum");
    }
    if (s.path("exclusiveMaximum").isBoolean() && s.path("exclusiveMaximum").asBoolean() && s.has("maximum")) {
      out.remove("maximum");
    }
    if (nullable && out.has("type") && out.get("type").isTextual()) {
      String type = out.get("type").asText();
      out.putArray("type").add(type).add("null");
    }
    return out;
  }
}
