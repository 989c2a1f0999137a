package io.onceport.frontend.auth.oauth;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which OAuth scopes allow which tools: scope → selectors, in the order configured. A selector is
 * {@code *} (every tool), {@code class:<replay class>} (e.g. {@code class:read_only}) or a tool
 * name. A token may call a tool when one of its scopes has a selector matching it. An empty map
 * lets any valid token call any tool.
 *
 * <pre>
 * tools:read: [class:read_only]
 * tools:act:  ["*"]
 * </pre>
 */
public final class ScopeMap {
  /** What {@link #missing} answers for a tool that no configured scope allows. */
  public static final String NO_SCOPE = "";
  public static final ScopeMap NONE = new ScopeMap(Map.of());
  private static final List<String> CLASSES = List.of("read_only", "idempotency_key", "status_query", "irreversible");

  private final Map<String, List<String>> grants;

  private ScopeMap(Map<String, List<String>> grants) {
    this.grants = grants;
  }

  /**
   * @throws IllegalArgumentException naming the scope or selector that is not usable
   */
  public static ScopeMap of(Map<String, ? extends Collection<String>> grants) {
    Objects.requireNonNull(grants, "grants == null");
    Map<String, List<String>> copy = new LinkedHashMap<>();
    grants.forEach((scope, selectors) -> {
      if (scope == null || !scope.matches("[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,128}")) {
        throw new IllegalArgumentException("Invalid scope: '" + scope + "' (RFC 6749 scope-token: 1-128 printable characters, "
            + "no space, quote or backslash)");
      }
      if (selectors == null || selectors.isEmpty()) {
        throw new IllegalArgumentException("Invalid scope " + scope + ": it names no tools (use *, class:read_only or tool names)");
      }
      List<String> list = new ArrayList<>();
      for (String s : selectors) {
        if (s == null || s.isBlank()) {
          throw new IllegalArgumentException("Invalid scope " + scope + ": an empty selector");
        }
        if (s.startsWith("class:") && !CLASSES.contains(s.substring(6))) {
          throw new IllegalArgumentException("Invalid scope " + scope + ": unknown replay class in " + s + " (one of "
              + String.join(", ", CLASSES) + ")");
        }
        list.add(s.strip());
      }
      copy.put(scope, List.copyOf(list));
    });
    return new ScopeMap(java.util.Collections.unmodifiableMap(copy));
  }

  public boolean isEmpty() {
    return grants.isEmpty();
  }

  /** The scopes, in configured order: the protected-resource metadata's {@code scopes_supported}. */
  public List<String> scopes() {
    return List.copyOf(grants.keySet());
  }

  public Map<String, List<String>> grants() {
    return grants;
  }

  /**
   * The scope a caller holding {@code held} lacks to call {@code tool}, or null when one of its
   * scopes allows it (or the map is empty), or {@link #NO_SCOPE} when no scope allows it. The scope named is the first one configured that would
   * allow the tool: the one scope an MCP client should ask for (MCP 2026-07-28 step-up: only the
   * scopes this operation needs, not every scope the token should have).
   */
  public String missing(Collection<String> held, String tool, String replayClass) {
    if (grants.isEmpty()) {
      return null;
    }
    String first = null;
    for (Map.Entry<String, List<String>> e : grants.entrySet()) {
      if (allows(e.getValue(), tool, replayClass)) {
        if (held.contains(e.getKey())) {
          return null;
        }
        if (first == null) {
          first = e.getKey();
        }
      }
    }
    // A tool no scope names is callable by no token: there is no scope to ask for.
    return first != null ? first : NO_SCOPE;
  }

  private static boolean allows(List<String> selectors, String tool, String replayClass) {
    for (String s : selectors) {
      if (s.equals("*") || s.equals(tool) || (s.startsWith("class:") && s.substring(6).equals(replayClass))) {
        return true;
      }
    }
    return false;
  }
}
