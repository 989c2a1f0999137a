package io.onceport.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import io.onceport.frontend.contract.JsonSchemas;
import io.onceport.shared.cli.CommandName;
import org.yaml.snakeyaml.Yaml;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.app.runtime.HostPort;
import io.onceport.shared.temporal.TemporalConnection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The compose topology, checked without a Docker engine (none on these machines): the file is valid
 * against the Compose Specification's JSON Schema, every Onceport command in it parses against the
 * real command line, and it says what docs/production.md promises: the demo target the shipped
 * contracts call, health as {@code /readyz}, one data volume, no data directory in the build context.
 */
class ComposeFileTest {
  private static JsonNode services;

  @BeforeAll
  static void parse() throws Exception {
    JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(Path.of("docker-compose.yml")));
    services = root.get("services");
    // Jackson resolves neither aliases nor merge keys (<<: *onceport): the anchor is x-onceport.
    JsonNode anchor = root.get("x-onceport");
    for (Map.Entry<String, JsonNode> e : iterable(services)) {
      ObjectNode service = (ObjectNode) e.getValue();
      JsonNode base = service.remove("<<");
      if (base != null) {
        assertEquals("onceport", base.asText(), "only the x-onceport anchor is merged");
        ObjectNode merged = anchor.deepCopy();
        merged.setAll(service);
        ((ObjectNode) services).set(e.getKey(), merged);
      }
    }
  }

  private static List<Map.Entry<String, JsonNode>> iterable(JsonNode node) {
    List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
    node.fields().forEachRemaining(out::add);
    return out;
  }

  @Test
  void onlyTheFrontEndAndTheUiArePublishedAndOnlyOnLoopback() {
    Set<String> published = new TreeSet<>();
    for (Map.Entry<String, JsonNode> e : iterable(services)) {
      JsonNode ports = e.getValue().get("ports");
      if (ports == null) {
        continue;
      }
      published.add(e.getKey());
      for (JsonNode port : ports) {
        assertTrue(port.asText().startsWith("127.0.0.1:"), e.getKey() + " publishes " + port.asText());
      }
    }
    assertEquals(Set.of("frontend", "temporal-ui"), published);
  }

  @Test
  void everyServiceIsOnThePrivateNetwork() {
    for (Map.Entry<String, JsonNode> e : iterable(services)) {
      assertEquals("onceport", e.getValue().get("networks").get(0).asText(), e.getKey());
    }
  }

  @Test
  void temporalPersistsInPostgres() {
    JsonNode env = services.get("temporal").get("environment");
    assertEquals("postgres12", env.get("DB").asText());
    assertEquals("postgresql", env.get("POSTGRES_SEEDS").asText());
    assertTrue(services.get("temporal").get("image").asText().startsWith("temporalio/auto-setup:"));
    assertTrue(services.get("postgresql").get("volumes").get(0).asText().startsWith("postgres-data:"));
  }

  @Test
  void theUiDecodesThroughTheFrontEndCodecServer() {
    String endpoint = services.get("temporal-ui").get("environment").get("TEMPORAL_CODEC_ENDPOINT").asText();
    assertEquals("http://127.0.0.1:${ONCEPORT_PORT:-8765}/codec", endpoint);
    // The operator's sign-in cookie goes with the UI's codec requests (CodecSignIn).
    assertEquals("true", services.get("temporal-ui").get("environment").get("TEMPORAL_CODEC_INCLUDE_CREDENTIALS").asText());
    assertEquals("127.0.0.1:${ONCEPORT_PORT:-8765}:8765", services.get("frontend").get("ports").get(0).asText());
  }

  @Test
  void theOneShotJobPreparesTheNamespaceWithTemporalSetup() {
    assertEquals("temporal setup", parse("temporal-setup").commandSpec().qualifiedName(" ").replace(CommandName.get() + " ", ""));
    assertEquals("temporal:7233", parse("temporal-setup").matchedOption("--temporal").getValue());
    assertEquals("on-failure", services.get("temporal-setup").get("restart").asText(), "restarted until Temporal answers");
    for (String name : List.of("worker", "frontend")) {
      assertEquals("service_completed_successfully",
          services.get(name).get("depends_on").get("temporal-setup").get("condition").asText(), name);
    }
  }

  /** The shipped contracts call ${DEMO_TARGET}: inside the containers that is the demo-target service. */
  @Test
  void theShippedContractsReachTheDemoTargetService() throws Exception {
    assertEquals("${DEMO_TARGET:-http://demo-target:8766}", services.get("worker").get("environment").get("DEMO_TARGET").asText());
    assertEquals("0.0.0.0:8766", parse("demo-target").matchedOption("--listen").getValue().toString());
    try (var files = Files.list(Path.of("contracts"))) {
      for (Path contract : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        String text = Files.readString(contract);
        assertFalse(text.contains("url: http://127.0.0.1"), contract + " has a fixed loopback URL");
        assertTrue(!text.contains("url:") || text.contains("${DEMO_TARGET:-http://127.0.0.1:8766}"), contract.toString());
      }
    }
  }

  /** Health means ready: each long-running Onceport service probes /readyz on the port its command listens on. */
  @Test
  void theFrontEndAndTheWorkersAreHealthyWhenReadyzAnswers200() {
    Map<String, String> ports = Map.of("frontend", "8765", "worker", "9464");
    for (Map.Entry<String, String> e : ports.entrySet()) {
      JsonNode test = services.get(e.getKey()).get("healthcheck").get("test");
      assertEquals(List.of("CMD", "bash", "-c"), List.of(test.get(0).asText(), test.get(1).asText(), test.get(2).asText()));
      String probe = test.get(3).asText();
      assertTrue(probe.startsWith("exec 3<>/dev/tcp/127.0.0.1/" + e.getValue() + " && printf 'GET /readyz HTTP/1.0\\r\\n"), probe);
      assertTrue(probe.endsWith("| grep -q ' 200 '"), probe);
    }
    assertTrue(parse("frontend").matchedOption("--listen").getValue().toString().endsWith(":8765"));
    assertTrue(parse("worker").matchedOption("--metrics-listen").getValue().toString().endsWith(":9464"));
  }

  @Test
  void theBuildContextLeavesOutTheLocalDataDirectoryAndItsKeys() throws Exception {
    List<String> ignored = Files.readAllLines(Path.of(".dockerignore")).stream().map(String::strip).toList();
    assertTrue(ignored.contains("data") && ignored.contains("**/data"), ignored.toString());
  }

  /**
   * Validated against the Compose Specification's JSON Schema (src/test/resources/compose-spec, its
   * source named there), after YAML anchors and merge keys are resolved as Compose resolves them.
   */
  @Test
  void theFileIsValidAgainstTheComposeSpecificationSchema() throws Exception {
    // Loaded by its classpath location: its "$id" (compose_spec.json) is relative to where it is read from.
    Schema schema = JsonSchemas.registry().getSchema(SchemaLocation.of("classpath:compose-spec/compose-spec.json"));
    schema.initializeValidators();
    Map<String, Object> file = new Yaml().load(Files.readString(Path.of("docker-compose.yml")));
    assertEquals(List.of(), errors(schema, file));
    // A check that can fail: a misspelt key in one service is an error.
    @SuppressWarnings("unchecked")
    Map<String, Object> frontend = (Map<String, Object>) ((Map<String, Object>) file.get("services")).get("frontend");
    frontend.put("helthcheck", frontend.get("healthcheck"));
    assertFalse(errors(schema, file).isEmpty());
  }

  private static List<String> errors(Schema schema, Map<String, Object> file) {
    return schema.validate(JsonSchemas.toV3(new ObjectMapper().valueToTree(file))).stream().map(Error::toString).toList();
  }

  @Test
  void twoWorkersAndOneFrontEndShareOneDataDirectory() {
    JsonNode worker = services.get("worker");
    assertEquals(2, worker.get("deploy").get("replicas").asInt());
    assertEquals("worker", worker.get("command").get(0).asText());
    assertEquals("frontend", services.get("frontend").get("command").get(0).asText());
    for (String name : List.of("worker", "frontend", "onceport-keys")) {
      assertEquals("onceport-data:/data", services.get(name).get("volumes").get(0).asText(), name);
    }
    assertEquals(List.of("keys", "init", "--data", "/data"),
        new ObjectMapper().convertValue(services.get("onceport-keys").get("command"), List.class));
  }

  @Test
  void dockerfileBuildsWithMavenAndRunsAsNonRoot() throws Exception {
    String dockerfile = Files.readString(Path.of("Dockerfile"));
    assertTrue(dockerfile.contains("FROM maven:3.9-eclipse-temurin-17 AS build"));
    assertTrue(dockerfile.contains("FROM eclipse-temurin:17-jre"));
    assertTrue(dockerfile.contains("USER onceport:onceport"));
    assertTrue(dockerfile.contains("ENTRYPOINT [\"java\",\"-XX:+ExitOnOutOfMemoryError\",\"-jar\",\"/app/onceport.jar\"]"));
    assertFalse(dockerfile.contains("USER root"));
  }

  /** Compose's {@code ${VAR:-default}} interpolation, with the defaults (no .env file). */
  private static String interpolate(String value) {
    Matcher m = Pattern.compile("\\$\\{([A-Z_]+):-([^}]*)}").matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(m.group(2)));
    }
    m.appendTail(out);
    assertFalse(out.toString().contains("${"), "a variable without a default: " + value);
    return out.toString();
  }

  private static List<String> onceportServices() {
    List<String> names = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : iterable(services)) {
      if ("onceport:local".equals(e.getValue().path("image").asText())) {
        names.add(e.getKey());
      }
    }
    return names;
  }

  /** The innermost subcommand's parse result: the command the container runs. */
  private static ParseResult parse(String service) {
    List<String> args = new ArrayList<>();
    services.get(service).get("command").forEach(a -> args.add(interpolate(a.asText())));
    ParseResult result = OnceportCommand.commandLine().parseArgs(args.toArray(String[]::new));
    while (result.hasSubcommand()) {
      result = result.subcommand();
    }
    return result;
  }

  @Test
  void everyOnceportCommandParsesAgainstTheRealCommandLineModel() {
    assertEquals(List.of("temporal-setup", "onceport-keys", "worker", "frontend", "demo-target"), onceportServices());
    for (String service : onceportServices()) {
      ParseResult command;
      try {
        command = parse(service);
      } catch (CommandLine.ParameterException e) {
        throw new AssertionError(service + ": " + e.getMessage(), e);
      }
      assertTrue(command.unmatched().isEmpty(), service + " unmatched " + command.unmatched());
      for (String address : List.of("--temporal", "--listen", "--metrics-listen")) {
        if (command.hasMatchedOption(address)) {
          HostPort.parse(command.matchedOption(address).getValue());
        }
      }
    }
    assertEquals("keys init", parse("onceport-keys").commandSpec().qualifiedName(" ").replace("onceport ", ""));
    assertEquals("0.0.0.0:9464", parse("worker").matchedOption("--metrics-listen").getValue());
    List<String> origins = parse("frontend").matchedOption("--codec-ui-origin").getValue();
    assertEquals(List.of("http://127.0.0.1:8080", "http://localhost:8080"), origins);
    assertEquals("/app/contracts", parse("frontend").matchedOption("--contracts").getValue().toString());
    // listening on 0.0.0.0 needs the host names clients use; the port is published on loopback only
    assertEquals(List.of("127.0.0.1", "localhost"), parse("frontend").matchedOption("--allowed-host").getValue());
  }

  /** Each ONCEPORT_* variable the compose file sets must be read by the commands it runs. */
  @Test
  void everyOnceportEnvironmentVariableIsReadByTheCommandsItIsSetFor() {
    JsonNode env = services.get("worker").get("environment");
    for (String service : List.of("worker", "frontend")) {
      ParseResult command = parse(service);
      Set<String> read = new TreeSet<>();
      for (OptionSpec option : command.commandSpec().options()) {
        Matcher m = Pattern.compile("\\$\\{env:([A-Z_]+)").matcher(String.valueOf(option.defaultValueString(false)));
        while (m.find()) {
          read.add(m.group(1));
        }
      }
      if (service.equals("worker")) {
        read.add(io.onceport.activity.vault.PassphraseSource.ENV); // the worker's vault reads it directly
      }
      for (Map.Entry<String, JsonNode> e : iterable(services.get(service).get("environment"))) {
        if (e.getKey().startsWith("ONCEPORT_") && !(service.equals("frontend") && e.getKey().equals("ONCEPORT_VAULT_PASSPHRASE"))) {
          assertTrue(read.contains(e.getKey()), service + " sets " + e.getKey() + " but no option reads it; read: " + read);
        }
      }
    }
    assertEquals("json", env.get("ONCEPORT_LOG_FORMAT").asText());
  }
}
