package io.onceport.frontend.contract;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML document read into a Jackson tree together with the line of every key, so that an error
 * can name the line a field is on. Paths are dotted ({@code replay.status.url}), array elements
 * are indexed ({@code ssh.command[2]}).
 */
final class YamlTree {
  private static final YAMLFactory YAML = YAMLFactory.builder().build();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  final JsonNode root;
  private final Map<String, Integer> lines;
  /** {@code line: path: message} for each variable that could not be expanded. */
  final List<String> variableProblems;

  private YamlTree(JsonNode root, Map<String, Integer> lines, List<String> variableProblems) {
    this.root = root;
    this.lines = lines;
    this.variableProblems = List.copyOf(variableProblems);
  }

  /** Thrown for malformed YAML, with the line it was noticed on. */
  static final class SyntaxException extends Exception {
    final int line;

    SyntaxException(int line, String message) {
      super(message);
      this.line = line;
    }
  }

  static YamlTree parse(String text) throws SyntaxException {
    return parse(text, null);
  }

  /** As {@link #parse(String)}, expanding {@code ${NAME}} in string values when {@code variables} is not null. */
  static YamlTree parse(String text, ContractVariables variables) throws SyntaxException {
    Map<String, Integer> lines = new HashMap<>();
    List<String> problems = new ArrayList<>();
    try (JsonParser p = YAML.createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return new YamlTree(null, lines, problems);
      }
      JsonNode root = new Reader(variables, lines, problems).read(p, "");
      if (p.nextToken() != null) {
        throw new SyntaxException(line(p), "one YAML document per file (found a second one)");
      }
      return new YamlTree(root, lines, problems);
    } catch (JsonProcessingException e) {
      JsonLocation loc = e.getLocation();
      String msg = e.getOriginalMessage() == null ? "malformed YAML" : e.getOriginalMessage();
      int nl = msg.indexOf('\n');
      throw new SyntaxException(
          loc == null ? 1 : Math.max(1, loc.getLineNr()), "YAML syntax error: " + (nl < 0 ? msg : msg.substring(0, nl)));
    } catch (IOException e) {
      throw new SyntaxException(1, "cannot read: " + e.getMessage());
    }
  }

  /** The line of {@code path}, or of its nearest ancestor that exists, or 1. */
  int lineOf(String path) {
    String p = path;
    while (!p.isEmpty()) {
      Integer line = lines.get(p);
      if (line != null) {
        return line;
      }
      int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      p = cut < 0 ? "" : p.substring(0, cut);
    }
    return 1;
  }

  private static int line(JsonParser p) {
    return Math.max(1, p.currentTokenLocation().getLineNr());
  }

  /** Reads one tree, recording key lines and expanding variables in string values. */
  private static final class Reader {
    private final ContractVariables variables;
    private final Map<String, Integer> lines;
    private final List<String> problems;

    Reader(ContractVariables variables, Map<String, Integer> lines, List<String> problems) {
      this.variables = variables;
      this.lines = lines;
      this.problems = problems;
    }

    JsonNode read(JsonParser p, String path) throws IOException, SyntaxException {
      JsonToken t = p.currentToken();
      switch (t) {
        case START_OBJECT:
          {
            ObjectNode obj = NODES.objectNode();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String name = p.currentName();
              String child = path.isEmpty() ? name : path + "." + name;
              if (obj.has(name)) {
                throw new SyntaxException(line(p), child + ": duplicate key");
              }
              lines.put(child, line(p));
              p.nextToken();
              obj.set(name, read(p, child));
            }
            return obj;
          }
        case START_ARRAY:
          {
            ArrayNode arr = NODES.arrayNode();
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
              String child = path + "[" + i++ + "]";
              lines.put(child, line(p));
              arr.add(read(p, child));
            }
            return arr;
          }
        case VALUE_STRING:
          return NODES.textNode(expand(p.getText(), path, line(p)));
        case VALUE_NUMBER_INT:
          switch (p.getNumberType()) {
            case INT:
              return NODES.numberNode(p.getIntValue());
            case LONG:
              return NODES.numberNode(p.getLongValue());
            default:
              return NODES.numberNode(p.getBigIntegerValue());
          }
        case VALUE_NUMBER_FLOAT:
          return NODES.numberNode(p.getDecimalValue());
        case VALUE_TRUE:
          return NODES.booleanNode(true);
        case VALUE_FALSE:
          return NODES.booleanNode(false);
        case VALUE_NULL:
          return NODES.nullNode();
        default:
          throw new SyntaxException(line(p), (path.isEmpty() ? "document" : path) + ": unsupported YAML value");
      }
    }

    private String expand(String value, String path, int line) {
      if (variables == null) {
        return value;
      }
      ContractVariables.Expansion e = variables.expand(value);
      for (String problem : e.problems()) {
        problems.add(line + ": " + (path.isEmpty() ? "document" : path) + ": " + problem);
      }
      return e.text() == null ? value : e.text();
    }
  }
}
