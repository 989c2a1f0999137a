package io.onceport.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.onceport.frontend.temporal.TemporalConnection;
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
 * The compose topology, checked without a Docker engine (none on these machines): the file parses
 * and says what docs/production.md promises. {@code docker compose config} validates it where the
 * compose plugin exists.
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
    assertEquals("127.0.0.1:${ONCEPORT_PORT:-8765}:8765", services.get("frontend").get("ports").get(0).asText());
  }

  @Test
  void theOneShotJobRegistersEverySearchAttributeOnceportUpserts() {
    String script = services.get("temporal-search-attributes").get("command").get(0).asText();
    for (String name : TemporalConnection.SEARCH_ATTRIBUTES) {
      assertTrue(script.contains(" " + name), name + " missing from\n" + script);
    }
    assertTrue(script.contains("temporal operator search-attribute create --namespace default --name \"$$name\" --type Keyword"));
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
    assertTrue(dockerfile.contains("ENTRYPOINT [\"java\",\"-jar\",\"/app/onceport.jar\"]"));
    assertFalse(dockerfile.contains("USER root"));
  }
}
