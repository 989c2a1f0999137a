package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.AnnotationKeyword;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON Schema of the contract file: {@code docs/contract.schema.json}, which the build copies
 * into the jar as {@link #RESOURCE} (a test checks both are the same bytes), so editors, {@code
 * onceport contracts check} and {@code serve} apply one definition of a contract's shape.
 *
 * <p>Why a schema: required fields, types, unknown keys, durations and status-code lists are
 * declarations, not code; stated once in the schema they cannot drift from what editors check.
 * What joins several fields (placeholders, channel and section, replay rules) is {@link
 * ContractRules}'s.
 *
 * <p>Each failure becomes one {@link Violation} per path, its message taken from the schema (see
 * {@link SchemaMessages}), so the loader keeps naming file, line and field.
 */
final class ContractSchema {
  /** Where the build puts docs/contract.schema.json on the class path. */
  static final String RESOURCE = "/io/onceport/frontend/contract/contract.schema.json";

  /** The editor annotations the schema carries: known to the validator, so it does not warn about them. */
  static final List<String> ANNOTATIONS =
      List.of(SchemaMessages.ERROR_MESSAGE, SchemaMessages.PATTERN_ERROR_MESSAGE, SchemaMessages.REQUIRED_MESSAGE);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where the schema declares the fields of each mapping whose null fields mean "absent". */
  private static final Map<String, List<String>> SECTIONS = Map.of(
      "", List.of("/properties"),
      "http", List.of("/$defs/http/properties"),
      "ssh", List.of("/$defs/ssh/properties"),
      "mcp", List.of("/$defs/mcp/properties"),
      "replay", List.of("/$defs/replay/properties"),
      "replay.status", List.of("/$defs/httpStatus/properties", "/$defs/mcpStatus/properties"),
      "replay.verify", List.of("/$defs/httpVerify/properties", "/$defs/mcpVerify/properties", "/$defs/sshVerify/properties"),
      "fingerprint", List.of("/properties/fingerprint/properties"),
      "result", List.of("/$defs/result/properties"));

  private final JsonNode document;
  private final Schema schema;
  private final SchemaMessages messages;

  private ContractSchema(JsonNode document) {
    Dialect.Builder dialect = Dialect.builder(Dialects.getDraft202012());
    ANNOTATIONS.forEach(name -> dialect.keyword(new AnnotationKeyword(name)));
    SchemaRegistry registry =
        SchemaRegistry.withDefaultDialect(dialect.build(), b -> b.schemaLoader(l -> l.fetchRemoteResources(false)));
    this.schema = registry.getSchema(SchemaLocation.of("classpath:" + RESOURCE.substring(1)), JsonSchemas.toV3(document));
    this.schema.initializeValidators();
    this.messages = new SchemaMessages(document);
    this.document = document;
  }

  private static final class Holder {
    static final ContractSchema INSTANCE = new ContractSchema(document());
  }

  /** The schema the loader uses, compiled once. */
  static ContractSchema get() {
    return Holder.INSTANCE;
  }

  /** The schema document as the jar holds it. */
  static JsonNode document() {
    try (InputStream in = ContractSchema.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("contract schema " + RESOURCE + " is not on the class path (the build copies "
            + "docs/contract.schema.json there)");
      }
      return JSON.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the contract schema " + RESOURCE, e);
    }
  }

  /**
   * The mappings of a contract (dotted paths, {@code ""} for the top level) in which a field set
   * to null means the field is absent, as the loader has always read them.
   */
  static Set<String> sections() {
    return SECTIONS.keySet();
  }

  /** The fields the schema declares for the mapping at {@code section}, one of {@link #sections()}. */
  Set<String> fields(String section) {
    Set<String> names = new LinkedHashSet<>();
    for (String pointer : SECTIONS.get(section)) {
      document.at(pointer).fieldNames().forEachRemaining(names::add);
    }
    return names;
  }

  /**
   * One failure of the schema.
   *
   * @param path the dotted field path, as {@link YamlTree#lineOf} takes it
   * @param location the same path as names and indexes, to find the node in the tree
   * @param prune what the loader does with the node at {@code location} before binding
   */
  record Violation(String path, List<Object> location, String message, Prune prune) {}

  /** What becomes of the offending node before the file is bound. */
  enum Prune {
    /** Nothing is there (a required field): keep the tree. */
    NONE,
    /** An unknown field: remove it. */
    REMOVE,
    /** An invalid value: bind it as absent (null), so rules that read it skip it. */
    NULL
  }

  /** Every failure of {@code contract}, the first per path, in the validator's order. */
  List<Violation> validate(JsonNode contract) {
    Map<String, Violation> byPath = new LinkedHashMap<>();
    for (Error e : schema.validate(JsonSchemas.toV3(contract))) {
      Violation v = messages.violation(e, contract);
      byPath.putIfAbsent(v.path(), v);
    }
    return new ArrayList<>(byPath.values());
  }
}
