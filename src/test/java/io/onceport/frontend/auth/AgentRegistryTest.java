package io.onceport.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentRegistryTest {
  @TempDir Path tmp;

  @Test
  void addReturnsATokenThatAuthenticatesAsTheActor() throws Exception {
    Path data = tmp.resolve("data");
    AgentRegistry registry = new AgentRegistry(data);
    String token = registry.add("agent:deployer");
    assertTrue(token.matches("op_[A-Za-z0-9_-]{43}"), token);
    assertEquals(Optional.of("agent:deployer"), registry.authenticate(token));
    assertEquals(Optional.empty(), registry.authenticate(token + "x"));
    assertEquals(Optional.empty(), registry.authenticate("op_" + "A".repeat(43)));
    assertEquals(Optional.empty(), registry.authenticate(token.substring(3)));
    assertEquals(Optional.empty(), registry.authenticate(null));
    assertEquals(Optional.empty(), registry.authenticate(""));
  }

  @Test
  void onlyTheHashIsStoredInAPrivateFile() throws Exception {
    AgentRegistry registry = new AgentRegistry(tmp);
    String token = registry.add("agent:deployer");
    Path file = tmp.resolve("agents.json");
    String text = Files.readString(file);
    assertFalse(text.contains(token.substring(3)), text);
    JsonNode entry = new ObjectMapper().readTree(text).path("agents").get(0);
    assertEquals("agent:deployer", entry.path("actor").asText());
    assertEquals(AgentRegistry.sha256(token), entry.path("token_sha256").asText());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    try (var files = Files.list(tmp)) {
      assertEquals(List.of("agents.json", "agents.json.lock"),
          files.map(p -> p.getFileName().toString()).sorted().toList(), "no temp file left behind");
    }
  }

  @Test
  void eachActorGetsADistinctTokenAndDuplicatesAreRefused() throws Exception {
    AgentRegistry registry = new AgentRegistry(tmp);
    String a = registry.add("agent:a");
    String b = registry.add("agent:b");
    assertNotEquals(a, b);
    assertEquals(Optional.of("agent:a"), registry.authenticate(a));
    assertEquals(Optional.of("agent:b"), registry.authenticate(b));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> registry.add("agent:a"));
    assertEquals("agent:a already has a token (remove it first: onceport agent remove agent:a)", e.getMessage());
    assertEquals(List.of("agent:a", "agent:b"), registry.actors());
  }

  @Test
  void invalidActorNameIsRefusedWithAnExample() {
    AgentRegistry registry = new AgentRegistry(tmp);
    for (String bad : new String[] {"Agent:X", "1agent", "", "agent deployer", "a".repeat(65)}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> registry.add(bad));
      assertEquals("invalid actor '" + bad + "': use a lowercase name like agent:deployer (a-z first, then up to 63 "
          + "of a-z 0-9 : . _ -)", e.getMessage());
    }
    assertFalse(Files.exists(tmp.resolve("agents.json")));
  }

  @Test
  void changesByAnotherInstanceTakeEffectWithoutRestart() throws Exception {
    AgentRegistry server = new AgentRegistry(tmp);
    assertEquals(Optional.empty(), server.authenticate("op_x"));
    String token = new AgentRegistry(tmp).add("agent:late");
    assertEquals(Optional.of("agent:late"), server.authenticate(token));
    assertTrue(new AgentRegistry(tmp).remove("agent:late"));
    assertEquals(Optional.empty(), server.authenticate(token));
    assertFalse(new AgentRegistry(tmp).remove("agent:late"));
  }

  @Test
  void unreadableRegistryFailsClosed() throws Exception {
    Files.writeString(tmp.resolve("agents.json"), "{\"agents\":[{\"actor\":\"agent:a\",\"token_sha256\":\"zz\"}]}");
    AgentRegistry registry = new AgentRegistry(tmp);
    assertThrows(java.io.UncheckedIOException.class, () -> registry.authenticate("op_abc"));
  }

  @Test
  void concurrentAddsFromManyThreadsAreAllKept() throws Exception {
    AgentRegistry registry = new AgentRegistry(tmp);
    List<String> actors = java.util.stream.IntStream.range(0, 16).mapToObj(i -> "agent:a" + i).toList();
    java.util.Map<String, String> tokens = new java.util.concurrent.ConcurrentHashMap<>();
    actors.parallelStream().forEach(a -> {
      try {
        tokens.put(a, new AgentRegistry(tmp).add(a));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    assertEquals(actors, registry.actors().stream().sorted(java.util.Comparator.comparingInt(
        (String a) -> Integer.parseInt(a.substring(7)))).toList());
    tokens.forEach((actor, token) -> assertEquals(Optional.of(actor), registry.authenticate(token)));
  }

  @Test
  void failedWriteLeavesThePreviousFileIntact() throws Exception {
    AgentRegistry registry = new AgentRegistry(tmp);
    String token = registry.add("agent:a");
    String before = Files.readString(tmp.resolve("agents.json"));
    Files.delete(tmp.resolve("agents.json.lock"));
    Files.createDirectory(tmp.resolve("agents.json.lock")); // the lock cannot be taken: the change must not happen
    assertThrows(java.io.IOException.class, () -> registry.add("agent:b"));
    assertEquals(before, Files.readString(tmp.resolve("agents.json")));
    assertEquals(Optional.of("agent:a"), registry.authenticate(token));
  }
}
