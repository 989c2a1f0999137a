package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON Schema support on top of networknt json-schema-validator 3, which works on Jackson 3 trees
 * ({@code tools.jackson}) while the rest of Onceport uses Jackson 2: trees cross over as JSON text.
 */
public final class JsonSchemas {
  private static final JsonMapper V3 = JsonMapper.builder().build();
  /** Never fetches over the network: a {@code $ref} to a URL must not make the gateway call out. */
  private static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialect(
          SpecificationVersion.DRAFT_2020_12, b -> b.schemaLoader(l -> l.fetchRemoteResources(false)));
  private static volatile Schema metaSchema;

  private JsonSchemas() {}

  /** The registry (draft 2020-12 by default) every Onceport schema is compiled with. */
  public static SchemaRegistry registry() {
    return REGISTRY;
  }

  /** A Jackson 3 copy of a Jackson 2 tree. */
  public static tools.jackson.databind.JsonNode toV3(JsonNode node) {
    return V3.readTree(node.toString());
  }

  /**
   * Errors of {@code schema} against the draft 2020-12 meta-schema, each as {@code
   * prefix.path: message} (one per path); empty when the schema is valid.
   */
  public static List<String> metaSchemaErrors(String prefix, JsonNode schema) {
    Schema meta = metaSchema;
    if (meta == null) {
      meta = REGISTRY.getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()));
      meta.initializeValidators();
      metaSchema = meta;
    }
    // One error per location: alternatives of an anyOf each report, and the first is the clearest.
    Map<String, String> out = new LinkedHashMap<>();
    for (Error e : meta.validate(toV3(schema))) {
      out.putIfAbsent(dotted(prefix, e.getInstanceLocation()), e.getMessage());
    }
    List<String> lines = new ArrayList<>();
    out.forEach((path, message) -> lines.add(path + ": " + message));
    return lines;
  }

  /**
   * Compiles {@code schema} and validates an empty object with it, so that unresolvable {@code
   * $ref}s (remote references are never fetched) fail at load time rather than on a call. Returns
   * the problem, or null.
   */
  public static String compileProblem(JsonNode schema) {
    try {
      Schema s = REGISTRY.getSchema(toV3(schema));
      s.initializeValidators();
      s.validate(V3.createObjectNode());
      return null;
    } catch (RuntimeException e) {
      return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
  }

  /** {@code prefix.a.b[0]} for the instance location {@code $.a.b[0]}. */
  static String dotted(String prefix, NodePath path) {
    StringBuilder sb = new StringBuilder(prefix);
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
}
