package io.onceport.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.onceport.workflow.ids.AgentSessionId;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionIdsTest {
  @Test
  void anMcpProtocolSessionIsTheSessionWhateverElseTheCallCarriesAndNamesItsActor() {
    assertEquals("mcp:alice/5f1c", SessionIds.forCall("alice", "5f1c", "run-1", "claude", "1.2"));
    assertEquals("mcp:agent:deployer~4be1f0a2/5f1c", SessionIds.forCall("agent:deployer", "4be1f0a2", "5f1c", null, null, null));
  }

  @Test
  void withoutAProtocolSessionTheRunIdScopedByActorIsTheSession() {
    assertEquals("run:alice/run-1", SessionIds.forCall("alice", null, "run-1", "claude", "1.2"));
    assertEquals("run:bob/run-1", SessionIds.forCall("bob", " ", " run-1 ", null, null));
  }

  @Test
  void failingThatTheActorAndClientAreTheSession() {
    assertEquals("client:alice/claude/1.2", SessionIds.forCall("alice", null, null, "claude", "1.2"));
    assertEquals("client:alice/claude", SessionIds.forCall("alice", null, "", "claude", null));
    assertEquals("client:alice/claude", SessionIds.forCall("alice", null, "", "claude", " "));
    assertEquals("client:alice", SessionIds.forCall("alice", null, null, null, "1.2"), "no client named: the actor alone");
  }

  @Test
  void theAttackOfIssue25GivesTwoSessions() {
    String attacker = SessionIds.forCall("agent:ci", null, "prod:nightly", null, null);
    String victim = SessionIds.forCall("agent:ci:prod", null, "nightly", null, null);
    assertEquals("run:agent:ci/prod:nightly", attacker);
    assertEquals("run:agent:ci:prod/nightly", victim);
    assertNotEquals(attacker, victim);
    // A client name holding "/" does not pass for another name and version.
    assertNotEquals(SessionIds.forCall("a", null, null, "x/y", "z"), SessionIds.forCall("a", null, null, "x", "y/z"));
    // A client literally named "unknown" is not "no client".
    assertNotEquals(SessionIds.forCall("a", null, null, "unknown", null), SessionIds.forCall("a", null, null, null, null));
  }

  @Test
  void separatorsControlsAndNonAsciiAreEscapedSoTheIdPastesAndParsesBack() {
    String id = SessionIds.forCall("oauth:corp/00u1", "g1", null, "run/1 ~%\u001b[31mé", null, null);
    assertEquals("run:oauth:corp%2F00u1~g1/run%2F1%20%7E%25%1B[31m%C3%A9", id);
    AgentSessionId parsed = AgentSessionId.parse(id).orElseThrow();
    assertEquals("oauth:corp/00u1", parsed.actor());
    assertEquals("g1", parsed.generation());
    assertEquals(List.of("run/1 ~%\u001b[31mé"), parsed.parts());
  }

  @Test
  void anActorIsRequired() {
    NullPointerException e = assertThrows(NullPointerException.class, () -> SessionIds.forCall(null, "x", null, null, null));
    assertEquals("actor == null", e.getMessage());
  }
}
