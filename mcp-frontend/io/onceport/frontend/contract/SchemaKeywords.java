package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON Schema (draft 2020-12) keywords a contract schema may use, and a walk that finds every
 * other key in a schema object.
 *
 * <p>Why: a JSON Schema validator ignores keywords it does not know, and {@code tools/list} sends
 * the schema to every client verbatim. A YAML flow mapping such as {@code {type: string,
 * description: Service, e.g. checkout}} splits at the comma into a stray keyword {@code "e.g.
 * checkout"}; so does a typo such as {@code requierd}. Both load silently and change what clients
 * are told (and the typo turns a rule off), so the loader refuses them by file and line.
 *
 * <p>Only schema positions are checked: values of {@code enum}, {@code const}, {@code default} and
 * {@code examples} are data, and the keys under {@code properties}, {@code patternProperties},
 * {@code $defs} and {@code dependentSchemas} are names, not keywords.
 */
final class SchemaKeywords {
  /** Core, applicator, unevaluated, validation, meta-data, format and content vocabularies of 2020-12. */
  static final Set<String> KNOWN = Set.of(
      "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
      "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items", "contains",
      "properties", "patternProperties", "additionalProperties", "propertyNames",
      "unevaluatedItems", "unevaluatedProperties",
      "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
      "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
      "maxProperties", "minProperties", "required", "dependentRequired",
      "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
      "format", "contentEncoding", "contentMediaType", "contentSchema");

  /** Keywords of earlier drafts that 2020-12 replaced: refused with the replacement named. */
  static final Map<String, String> REPLACED = Map.of(
      "definitions", "$defs",
      "dependencies", "dependentRequired or dependentSchemas",
      "$recursiveRef", "$dynamicRef",
      "$recursiveAnchor", "$dynamicAnchor");

  private static final Set<String> ONE_SCHEMA = Set.of(
      "not", "if", "then", "else", "contains", "propertyNames", "additionalProperties", "items",
      "unevaluatedItems", "unevaluatedProperties", "contentSchema");
  private static final Set<String> SCHEMA_LIST = Set.of("allOf", "anyOf", "oneOf", "prefixItems");
  private static final Set<String> SCHEMA_MAP = Set.of("properties", "patternProperties", "$defs", "dependentSchemas");

  /** One unknown key: its dotted path (as {@link YamlTree#lineOf} takes it) and what to say. */
  record Unknown(String path, String message) {}

  private SchemaKeywords() {}

  /** Every key of {@code schema} (at {@code path}) and its subschemas that is not a 2020-12 keyword. */
  static List<Unknown> unknown(String path, JsonNode schema) {
    List<Unknown> out = new ArrayList<>();
    walk(path, schema, out);
    return out;
  }

  private static void walk(String path, JsonNode schema, List<Unknown> out) {
    if (schema == null || !schema.isObject()) {
      return; // boolean schemas (true / false) have no keywords; a wrong type is the meta-schema's to report
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = e.getKey();
      String at = path + "." + key;
      JsonNode value = e.getValue();
      if (ONE_SCHEMA.contains(key)) {
        walk(at, value, out);
      } else if (SCHEMA_LIST.contains(key) && value.isArray()) {
        for (int i = 0; i < value.size(); i++) {
          walk(at + "[" + i + "]", value.get(i), out);
        }
      } else if (SCHEMA_MAP.contains(key) && value.isObject()) {
        value.fields().forEachRemaining(p -> walk(at + "." + p.getKey(), p.getValue(), out));
      } else if (!KNOWN.contains(key)) {
        out.add(new Unknown(at, message(key, value)));
      }
    }
  }

  private static String message(String key, JsonNode value) {
    String replacement = REPLACED.get(key);
    if (replacement != null) {
      return "'" + key + "' is not a JSON Schema 2020-12 keyword; use " + replacement;
    }
    StringBuilder m = new StringBuilder("unknown JSON Schema keyword '").append(key).append("'");
    boolean empty = value == null || value.isNull() || value.isTextual() && value.asText().isEmpty();
    if (empty && (key.contains(" ") || key.contains("."))) {
      // {description: Service to deploy, e.g. checkout}: YAML split the text at ", ".
      m.append(" (a comma in an unquoted flow-mapping value starts a new key: quote the text, e.g. "
          + "description: \"…, e.g. …\")");
    } else {
      String hint = closest(key);
      if (hint != null) {
        m.append(" (did you mean '").append(hint).append("'?)");
      }
    }
    return m.toString();
  }

  private static String closest(String key) {
    String best = null;
    int bestDistance = 3;
    for (String k : KNOWN) {
      if (k.equalsIgnoreCase(key)) {
        return k;
      }
      int d = SchemaMessages.distance(key, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best;
  }
}
