package io.onceport.activity.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SessionAuthoritiesTest {
  @Test
  void autoAuthorizesEverySessionWithoutAClient() {
    SessionAuthority auto = SessionAuthorities.forPolicy("auto", null, null);
    assertTrue(auto.isAuthorized("mcp:anything", "alice"));
    assertTrue(auto.isAuthorized(null, "alice"));
  }

  @Test
  void operatorNeedsAClientToReachTheSessionWorkflows() {
    NullPointerException e = assertThrows(NullPointerException.class, () -> SessionAuthorities.forPolicy("operator", null, "q"));
    assertEquals("client == null", e.getMessage());
  }

  @Test
  void anUnknownPolicyIsRefusedWithTheChoices() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SessionAuthorities.forPolicy("manual", null, null));
    assertEquals("Invalid session authorization policy: manual (expected operator or auto)", e.getMessage());
  }

  @Test
  void aCallWithoutASessionIdIsTheActorsOwnSession() {
    assertEquals("actor:alice", OperatorSessionAuthority.sessionKey(null, "alice"));
    assertEquals("actor:alice", OperatorSessionAuthority.sessionKey(" ", "alice"));
    assertEquals("mcp:1", OperatorSessionAuthority.sessionKey("mcp:1", "alice"));
  }
}
