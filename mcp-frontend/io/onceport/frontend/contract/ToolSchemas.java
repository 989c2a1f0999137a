package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The checks of a tool's own JSON Schemas ({@code input_schema}, {@code output_schema}) beyond
 * "is a mapping", which the contract schema states: only draft 2020-12 keywords ({@link
 * SchemaKeywords}), valid against the 2020-12 meta-schema, and compilable without fetching
 * anything. Kept apart from the contract schema so that each mistake is reported once, with the
 * keyword hints that only {@link SchemaKeywords} gives.
 */
final class ToolSchemas {
  private ToolSchemas() {}

  /** Checks {@code schema} (the tree at {@code field}); null or a non-mapping is the contract schema's to report. */
  static void check(Problems problems, String field, JsonNode schema) {
    if (schema == null || !schema.isObject()) {
      return;
    }
    // Unknown keywords first: a validator ignores them (with a library warning on every start),
    // and tools/list would show them to every client.
    List<SchemaKeywords.Unknown> unknown = SchemaKeywords.unknown(field, schema);
    unknown.forEach(u -> problems.error(u.path(), u.message()));
    List<String> metaErrors = JsonSchemas.metaSchemaErrors(field, schema);
    for (String e : metaErrors) {
      int colon = e.indexOf(": ");
      problems.error(e.substring(0, colon), "not a valid JSON Schema (draft 2020-12): " + e.substring(colon + 2));
    }
    if (metaErrors.isEmpty() && unknown.isEmpty()) {
      String problem = JsonSchemas.compileProblem(schema);
      if (problem != null) {
        problems.error(field, "cannot be compiled: " + problem);
      }
    }
  }

  /** The names under {@code properties} of an input schema: what placeholders and fingerprint lists may name. */
  static Set<String> properties(JsonNode inputSchema) {
    Set<String> names = new LinkedHashSet<>();
    if (inputSchema != null) {
      inputSchema.path("properties").fieldNames().forEachRemaining(names::add);
    }
    return names;
  }
}
