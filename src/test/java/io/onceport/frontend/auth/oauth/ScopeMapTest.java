package io.onceport.frontend.auth.oauth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ScopeMapTest {
  private static ScopeMap map() {
    Map<String, List<String>> m = new LinkedHashMap<>();
    m.put("tools:read", List.of("class:read_only"));
    m.put("deploy", List.of("create_release"));
    m.put("tools:act", List.of("*"));
    return ScopeMap.of(m);
  }

  @Test
  void aCallIsAllowedByAnyScopeNamingItsToolItsClassOrEverything() {
    ScopeMap m = map();
    assertNull(m.missing(Set.of("tools:read"), "list_releases", "read_only"));
    assertNull(m.missing(Set.of("deploy"), "create_release", "status_query"));
    assertNull(m.missing(Set.of("tools:act"), "create_release", "status_query"));
    assertNull(ScopeMap.NONE.missing(Set.of(), "anything", "irreversible"));
  }

  @Test
  void aRefusalNamesTheFirstConfiguredScopeThatWouldAllowTheCall() {
    ScopeMap m = map();
    assertEquals("deploy", m.missing(Set.of("tools:read"), "create_release", "status_query"));
    assertEquals("tools:act", m.missing(Set.of("tools:read", "deploy"), "send_notification", "irreversible"));
    assertEquals(ScopeMap.NO_SCOPE, ScopeMap.of(Map.of("r", List.of("class:read_only"))).missing(Set.of("r"), "x", "irreversible"));
  }
}
