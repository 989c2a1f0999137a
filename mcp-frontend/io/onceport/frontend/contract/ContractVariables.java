package io.onceport.frontend.contract;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Variables for contract files: {@code ${NAME}} and {@code ${NAME:-default}} in any YAML string
 * value are replaced when the contract loads, from {@code --set NAME=VALUE} first, then the
 * environment. <code>$${</code> is a literal <code>${</code>.
 *
 * <p>Why: one deployment setting (where the target lives) otherwise has to be edited into every
 * URL of every contract. Substitution happens at load time, in values only (never in keys or
 * comments), so the fingerprint, the workflow input and {@code tools/list} all see the expanded
 * text, and an undefined variable is a load error naming file, line and variable rather than a
 * request to <code>http://${TARGET}/…</code>. Like a shell, {@code :-} uses the default when the
 * variable is unset or empty.
 */
public final class ContractVariables {
  static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private final Map<String, String> values;

  private ContractVariables(Map<String, String> values) {
    this.values = values;
  }

  /** {@code set} (from {@code --set}) over {@code environment}. */
  public static ContractVariables of(Map<String, String> environment, Map<String, String> set) {
    Objects.requireNonNull(environment, "environment == null");
    Objects.requireNonNull(set, "set == null");
    Map<String, String> all = new LinkedHashMap<>(environment);
    set.forEach((name, value) -> {
      if (!NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("invalid variable name '" + name + "' (letters, digits and _, not starting with a digit)");
      }
      all.put(name, Objects.requireNonNull(value, "value of " + name + " == null"));
    });
    return new ContractVariables(Map.copyOf(all));
  }

  /** The process environment, as {@code serve} without {@code --set} sees it. */
  public static ContractVariables fromEnvironment() {
    return of(System.getenv(), Map.of());
  }

  /** Parses {@code NAME=VALUE} pairs as {@code --set} gives them. */
  public static Map<String, String> parseAssignments(List<String> assignments) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String a : assignments) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--set expects NAME=VALUE, not '" + a + "'");
      }
      out.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return out;
  }

  /** A string value with its variables expanded, or the problems found (then {@code text} is null). */
  record Expansion(String text, List<String> problems) {}

  Expansion expand(String value) {
    if (value.indexOf('$') < 0) {
      return new Expansion(value, List.of());
    }
    StringBuilder out = new StringBuilder();
    List<String> problems = new ArrayList<>();
    int i = 0;
    while (i < value.length()) {
      char c = value.charAt(i);
      if (c == '$' && value.startsWith("$${", i)) {
        out.append("${");
        i += 3;
      } else if (c == '$' && value.startsWith("${", i)) {
        int end = value.indexOf('}', i + 2);
        if (end < 0) {
          problems.add("unterminated variable reference '" + value.substring(i) + "' (write ${NAME}, or $${ for a literal ${)");
          break;
        }
        String body = value.substring(i + 2, end);
        int dflt = body.indexOf(":-");
        String name = dflt < 0 ? body : body.substring(0, dflt);
        if (!NAME.matcher(name).matches()) {
          problems.add("invalid variable reference '${" + body + "}' (write ${NAME} or ${NAME:-default}, or $${ for a literal ${)");
        } else {
          String v = values.get(name);
          if (dflt >= 0 && (v == null || v.isEmpty())) {
            out.append(body.substring(dflt + 2));
          } else if (v == null) {
            problems.add("undefined variable ${" + name + "}: set it in the environment or with --set " + name
                + "=VALUE (or give a default: ${" + name + ":-VALUE})");
          } else {
            out.append(v);
          }
        }
        i = end + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return problems.isEmpty() ? new Expansion(out.toString(), List.of()) : new Expansion(null, problems);
  }
}
