package io.onceport.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SessionIdsTest {
  @Test
  void anMcpProtocolSessionIsTheSessionWhateverElseTheCallCarries() {
    assertEquals("mcp:5f1c", SessionIds.forCall("alice", "5f1c", "run-1", "claude", "1.2"));
  }

  @Test
  void withoutAProtocolSessionTheRunIdScopedByActorIsTheSession() {
    assertEquals("run:alice:run-1", SessionIds.forCall("alice", null, "run-1", "claude", "1.2"));
    assertEquals("run:bob:run-1", SessionIds.forCall("bob", " ", " run-1 ", null, null));
  }

  @Test
  void failingThatTheActorAndClientInfoAreTheSession() {
    assertEquals("client:alice:claude/1.2", SessionIds.forCall("alice", null, null, "claude", "1.2"));
    assertEquals("client:alice:claude", SessionIds.forCall("alice", null, "", "claude", null));
    assertEquals("client:alice:unknown", SessionIds.forCall("alice", null, null, null, "1.2"));
  }

  @Test
  void clientInfoAsOneStringGivesTheSameIds() {
    assertEquals("client:alice:claude/1.2", SessionIds.forCall("alice", null, null, "claude/1.2"));
    assertEquals("client:alice:claude", SessionIds.forCall("alice", null, null, "claude/"));
    assertEquals("client:alice:unknown", SessionIds.forCall("alice", null, null, null));
    assertEquals("run:alice:r", SessionIds.forCall("alice", null, "r", "claude/1.2"));
    assertEquals("mcp:s", SessionIds.forCall("alice", "s", "r", "claude/1.2"));
  }

  @Test
  void anActorIsRequired() {
    NullPointerException e = assertThrows(NullPointerException.class, () -> SessionIds.forCall(null, "x", null, null, null));
    assertEquals("actor == null", e.getMessage());
  }
}
