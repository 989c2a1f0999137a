package io.onceport.frontend.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.UncheckedIOException;
import java.util.regex.Pattern;

/**
 * Small helpers for writing contract files by program (the importers): quoted scalars, JSON
 * Schemas as indented YAML blocks, and comments. Everything written is read back by {@link
 * ContractLoader} before it is kept.
 */
public final class ContractYaml {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
      .build());
  private static final Pattern PLAIN = Pattern.compile("^[A-Za-z0-9_./:{}-]+$");

  private ContractYaml() {}

  /** A scalar as YAML: plain when unambiguous, else a JSON (= YAML double-quoted) string. */
  public static String scalar(String s) {
    if (s != null && PLAIN.matcher(s).matches() && !s.contains("{{") && !s.startsWith("{") && !isKeyword(s)) {
      return s;
    }
    try {
      return JSON.writeValueAsString(s == null ? "" : s);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isKeyword(String s) {
    return switch (s.toLowerCase(java.util.Locale.ROOT)) {
      case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n" -> true;
      default -> s.matches("^[0-9.+-].*");
    };
  }

  /** {@code key:} followed by {@code node} as a YAML block indented by {@code indent} spaces. */
  public static String block(String key, JsonNode node, int indent) {
    String pad = " ".repeat(indent);
    StringBuilder b = new StringBuilder(pad.substring(Math.min(2, indent))).append(key).append(":");
    if (node.isObject() && node.isEmpty()) {
      return b.append(" {}\n").toString();
    }
    String yaml;
    try {
      yaml = YAML.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    b.append('\n');
    for (String line : yaml.split("\n")) {
      if (!line.isEmpty()) {
        b.append(pad).append(line).append('\n');
      }
    }
    return b.toString();
  }

  /** Each line of {@code text} as a {@code #} comment, wrapped at about 100 characters. */
  public static String comment(String text) {
    StringBuilder out = new StringBuilder();
    for (String paragraph : text.split("\n", -1)) {
      if (paragraph.isBlank()) {
        out.append("#\n");
        continue;
      }
      String lead = paragraph.startsWith("  ") ? "#   " : "# ";
      StringBuilder line = new StringBuilder(lead);
      for (String word : paragraph.trim().split(" ")) {
        if (line.length() + word.length() > 100 && line.length() > lead.length()) {
          out.append(line.toString().stripTrailing()).append('\n');
          line = new StringBuilder(lead.equals("# ") ? "#   " : lead);
        }
        line.append(word).append(' ');
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** A tool name the loader accepts: characters outside {@code [A-Za-z0-9_-]} become {@code _}, at most 64. */
  public static String toolName(String name) {
    String s = name.replaceAll("[^A-Za-z0-9_-]", "_");
    if (s.isEmpty()) {
      s = "tool";
    }
    return s.length() > 64 ? s.substring(0, 64) : s;
  }
}
