package io.onceport.frontend.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.onceport.testing.Node22;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/contract.schema.json} is what the loader validates with, it is a standard JSON
 * Schema, and every shipped contract passes it in validators other than the loader: networknt's
 * stock 2020-12 registry, and Ajv (strict) on YAML read as editors read it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ContractSchemaTest {
  static final Path PUBLISHED = Path.of("docs/contract.schema.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** The editor annotations the schema may carry besides JSON Schema keywords. */
  private static final Set<String> ANNOTATIONS = Set.of("errorMessage", "patternErrorMessage", "requiredMessage");
  /** Keywords that did not exist in draft-07 (which yaml-language-server implements) or changed meaning since. */
  private static final Set<String> NEWER_THAN_DRAFT_07 = Set.of("prefixItems", "unevaluatedItems", "unevaluatedProperties",
      "dependentRequired", "dependentSchemas", "$dynamicRef", "$dynamicAnchor", "$anchor", "$vocabulary", "minContains",
      "maxContains", "$recursiveRef", "$recursiveAnchor");
  /** What may stand next to a {@code $ref}: draft-07 ignores siblings, so only annotations. */
  private static final Set<String> REF_SIBLINGS = Set.of("$ref", "description", "default", "$comment", "title", "examples",
      "errorMessage", "patternErrorMessage", "requiredMessage");

  @TempDir Path tmp;

  /** Every contract the project ships or uses as a fixture that must load. */
  static List<Path> shippedContracts() throws Exception {
    List<Path> out = new ArrayList<>();
    for (String dir : List.of("contracts", "src/test/resources/contracts-valid", "src/test/resources/conformance-contracts",
        "src/test/resources/contracts-verify")) {
      try (Stream<Path> files = Files.list(Path.of(dir))) {
        files.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(out::add);
      }
    }
    return out;
  }

  @Test
  void theLoaderValidatesWithTheBytesOfTheDocsFile() throws Exception {
    byte[] loaded;
    try (InputStream in = ContractSchema.class.getResourceAsStream(ContractSchema.RESOURCE)) {
      assertTrue(in != null, ContractSchema.RESOURCE + " is not on the class path");
      loaded = in.readAllBytes();
    }
    assertArrayEquals(Files.readAllBytes(PUBLISHED), loaded,
        "the jar's contract schema differs from docs/contract.schema.json (rebuild: the build copies it)");
    assertEquals(JSON.readTree(PUBLISHED.toFile()), ContractSchema.document());
  }

  @Test
  void thePublishedSchemaIsValidDraft202012WithOnlyKeywordsDraft07EditorsReadAlike() throws Exception {
    JsonNode schema = JSON.readTree(PUBLISHED.toFile());
    assertEquals(List.of(), JsonSchemas.metaSchemaErrors("", schema));
    assertEquals("https://json-schema.org/draft/2020-12/schema", schema.path("$schema").asText());
    List<String> unknown = new ArrayList<>();
    for (SchemaKeywords.Unknown u : SchemaKeywords.unknown("", schema)) {
      String keyword = u.path().substring(u.path().lastIndexOf('.') + 1);
      if (!ANNOTATIONS.contains(keyword)) {
        unknown.add(u.path() + ": " + u.message());
      }
    }
    assertEquals(List.of(), unknown);
    List<String> problems = new ArrayList<>();
    walk(schema, "", problems);
    assertEquals(List.of(), problems);
  }

  private static void walk(JsonNode node, String path, List<String> problems) {
    if (node.isObject()) {
      if (node.has("$ref")) {
        node.fieldNames().forEachRemaining(k -> {
          if (!REF_SIBLINGS.contains(k)) {
            problems.add(path + ": '" + k + "' next to $ref (draft-07 ignores it)");
          }
        });
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (NEWER_THAN_DRAFT_07.contains(e.getKey())) {
          problems.add(path + "." + e.getKey() + ": not in draft-07");
        }
        walk(e.getValue(), path + "." + e.getKey(), problems);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(node.get(i), path + "[" + i + "]", problems);
      }
    }
  }

  @Test
  void theSchemasReservedNameAndDefaultsAreTheLoaders() throws Exception {
    JsonNode schema = JSON.readTree(PUBLISHED.toFile());
    assertEquals(ContractLoader.RESERVED_TOOL, schema.at("/properties/tool/allOf/0/not/const").asText());
    assertEquals(ContractLoader.DEFAULT_HTTP_TIMEOUT, Duration.parse(schema.at("/$defs/http/properties/timeout/default").asText()));
    assertEquals(ContractLoader.DEFAULT_SSH_TIMEOUT, Duration.parse(schema.at("/$defs/ssh/properties/timeout/default").asText()));
    assertEquals(ContractLoader.DEFAULT_MCP_TIMEOUT, Duration.parse(schema.at("/$defs/mcp/properties/timeout/default").asText()));
    assertEquals(ContractLoader.DEFAULT_ATTACH_WINDOW,
        Duration.parse(schema.at("/$defs/replay/properties/attach_window/default").asText()));
    assertEquals(ContractLoader.DEFAULT_HELPER_PATH, schema.at("/$defs/ssh/properties/helper_path/default").asText());
    assertEquals(22, schema.at("/$defs/ssh/properties/port/default").asInt());
  }

  @Test
  void everyShippedContractPassesTheStockNetworkntValidatorAndMistakesDoNot() throws Exception {
    // Stock registry: no Onceport dialect (it may log that the editor annotations are unknown keywords).
    Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
        .getSchema(SchemaLocation.of("https://example.invalid/contract.schema.json"),
            JsonSchemas.toV3(JSON.readTree(PUBLISHED.toFile())));
    List<Path> contracts = shippedContracts();
    assertTrue(contracts.size() >= 14, contracts.toString());
    for (Path contract : contracts) {
      assertEquals(List.of(), schema.validate(JsonSchemas.toV3(YAML.readTree(contract.toFile()))), contract.toString());
    }
    for (Map.Entry<String, String> mistake : mistakes().entrySet()) {
      JsonNode broken = YAML.readTree(mistake.getValue());
      assertFalse(schema.validate(JsonSchemas.toV3(broken)).isEmpty(), "accepted: " + mistake.getKey());
      Path dir = Files.createDirectories(tmp.resolve(mistake.getKey()));
      Files.writeString(dir.resolve("c.yaml"), mistake.getValue());
      assertThrows(ContractLoadException.class, () -> new ContractLoader().load(dir), "the loader accepted " + mistake.getKey());
    }
  }

  @Test
  void ajvInStrictModeAgreesOnEveryShippedContractAndEveryMistake() throws Exception {
    Path bin = Node22.ready();
    Map<String, String> mistakes = mistakes();
    List<String> command = new ArrayList<>(List.of(bin.resolve("node").toString(), "validate-contracts.mjs",
        PUBLISHED.toAbsolutePath().toString()));
    for (Path contract : shippedContracts()) {
      command.add(contract.toAbsolutePath().toString());
    }
    for (Map.Entry<String, String> mistake : mistakes.entrySet()) {
      Path file = tmp.resolve(mistake.getKey() + ".yaml");
      Files.writeString(file, mistake.getValue());
      command.add(file.toString());
    }
    Node22.Result r = Node22.run(command, Node22.PROJECT, Duration.ofSeconds(60));
    assertEquals(0, r.exit(), r.text());
    List<String> wrong = new ArrayList<>();
    int seen = 0;
    for (String line : r.output()) {
      JsonNode result = JSON.readTree(line);
      boolean shouldPass = !result.path("file").asText().startsWith(tmp.toString());
      if (result.path("valid").asBoolean() != shouldPass) {
        wrong.add(line);
      }
      seen++;
    }
    assertEquals(shippedContracts().size() + mistakes.size(), seen, r.text());
    assertEquals(List.of(), wrong);
  }

  /** Variations of a valid contract, each with one mistake the schema states. */
  private static Map<String, String> mistakes() throws Exception {
    String base = Files.readString(Path.of("src/test/resources/contracts-valid/create_release.yaml"));
    String verify = "attach_window: until_verified\n  verify:\n    method: GET\n    url: http://127.0.0.1:8766/v1/releases/{{service}}\n"
        + "    verified_when: {status: [200], pointer: /version, equals_argument: version}\n";
    String ssh = Files.readString(Path.of("src/test/resources/contracts-verify/rotate_host_key.yaml"));
    String sshCommand = "    command: [/opt/keys/bin/show-active, --json, \"{{service}}\"]\n";
    return Map.ofEntries(
        Map.entry("ssh_verify_with_a_url", ssh.replace(sshCommand, "    url: http://127.0.0.1/active\n")),
        Map.entry("ssh_verify_exit_status_out_of_range", ssh.replace("verified_when: {status: [0]", "verified_when: {status: [256]")),
        Map.entry("ssh_verify_condition_without_status", ssh.replace("verified_when: {status: [0], ", "verified_when: {")),
        Map.entry("http_verify_with_a_command", base.replace("attach_window: PT2H\n", verify + sshCommand)),
        Map.entry("verify_method_that_changes", base.replace("attach_window: PT2H\n", verify.replace("method: GET", "method: PUT"))),
        Map.entry("verify_pointer_without_slash", base.replace("attach_window: PT2H\n", verify.replace("pointer: /version", "pointer: version"))),
        Map.entry("verify_condition_without_status", base.replace("attach_window: PT2H\n", verify.replace("status: [200], ", ""))),
        Map.entry("unknown_verify_field", base.replace("attach_window: PT2H\n", verify + "    evry: PT1M\n")),
        Map.entry("attach_window_word", base.replace("attach_window: PT2H", "attach_window: until_done")),
        Map.entry("unknown_top_level_field", base + "fingerprnt: {ignore: []}\n"),
        Map.entry("unknown_replay_class", base.replace("class: status_query", "class: at_most_once")),
        Map.entry("duration_without_designator", base.replace("attach_window: PT2H", "attach_window: 2h")),
        Map.entry("zero_timeout", base.replace("url: http://127.0.0.1:8766/v1/releases/{{service}}",
            "url: http://127.0.0.1:8766/v1/releases/{{service}}\n  timeout: PT0S")),
        Map.entry("status_code_out_of_range", base.replace("completed_when: [200]", "completed_when: [700]")),
        Map.entry("status_method_that_changes", base.replace("method: GET", "method: POST")),
        Map.entry("tool_name_with_a_space", base.replace("tool: create_release", "tool: create release")),
        Map.entry("reserved_tool_name", base.replace("tool: create_release", "tool: onceport_execution_status")),
        Map.entry("unknown_http_field", base.replace("idempotency_header:", "idempotency_headr:")));
  }
}
