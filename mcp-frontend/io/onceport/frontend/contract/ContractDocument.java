package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.shared.text.InertText;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.comments.CommentLine;
import org.yaml.snakeyaml.comments.CommentType;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * A contract file written by program (the importers): the values as a Jackson tree, turned into
 * YAML by SnakeYAML's emitter, with comments attached to its nodes.
 *
 * <p>Why a library and not strings: the importers copy text they do not control into contracts — an
 * MCP server's name and version, tool names, descriptions, annotations, schemas; an OpenAPI
 * document's titles, paths and parameter names. Concatenated into YAML, such text became
 * structure: a server name with U+2028 (a line break for the YAML 1.1 loader, a space in most
 * terminals) ended its comment line and added a hidden top-level {@code fingerprint} key that
 * {@code contracts check} accepted. Here every value is a scalar node the emitter quotes and
 * escapes as needed, so a value is read back as exactly the text it was (a round-trip test holds
 * this for arbitrary text), and a document whose text holds a control, format or line-separator
 * character is written with every non-ASCII character escaped ({@code allowUnicode} off), so the
 * file shows none of them raw. Comments are the one place the emitter writes text as it is given:
 * each comment line goes through {@link InertText} first, which leaves it no character that ends a
 * line (CR, LF, NEL, U+2028, U+2029) nor one a terminal would act on.
 */
public final class ContractDocument {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Comment text is wrapped at about this many characters (a line with its "# " at about 100). */
  private static final int WRAP = 98;

  private final ObjectNode root = JSON.createObjectNode();
  private final List<String> header = new ArrayList<>();
  private final Map<String, List<String>> before = new HashMap<>();
  private final Map<String, String> inline = new HashMap<>();
  private final Map<String, List<String>> after = new HashMap<>();

  /** The document's values, in the order they are written; fill it in place. */
  public ObjectNode root() {
    return root;
  }

  /** The comment at the top: {@code text}'s lines (a line starting with two spaces is indented), wrapped. */
  public ContractDocument header(String text) {
    header.addAll(wrap(text));
    return this;
  }

  /** A comment on the lines before the key at {@code path} (dotted: {@code mcp.timeout}). */
  public ContractDocument before(String path, String text) {
    before.computeIfAbsent(path, p -> new ArrayList<>()).addAll(wrap(text));
    return this;
  }

  /** A comment at the end of the line of the value at {@code path} (a scalar or a flow collection). */
  public ContractDocument inline(String path, String text) {
    inline.put(path, InertText.of(text));
    return this;
  }

  /** A comment after the mapping at {@code path} (e.g. a commented-out example of its other form). */
  public ContractDocument after(String path, String text) {
    after.computeIfAbsent(path, p -> new ArrayList<>()).addAll(wrap(text));
    return this;
  }

  /** The YAML text. */
  public String toYaml() {
    boolean inert = isInert(root);
    DumperOptions options = new DumperOptions();
    options.setProcessComments(true);
    options.setIndent(2);
    options.setSplitLines(false);
    options.setAllowUnicode(inert);
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    MappingNode document = (MappingNode) node(root, "", 0);
    if (!header.isEmpty() && !document.getValue().isEmpty()) {
      List<CommentLine> lines = comments(header, CommentType.BLOCK);
      lines.add(new CommentLine(null, null, "", CommentType.BLANK_LINE));
      Node firstKey = document.getValue().get(0).getKeyNode();
      List<CommentLine> existing = firstKey.getBlockComments();
      if (existing != null) {
        lines.addAll(existing);
      }
      firstKey.setBlockComments(lines);
    }
    StringWriter out = new StringWriter();
    new Yaml(options).serialize(document, out);
    return out.toString();
  }

  /** A YAML node for {@code value} at {@code path}: sections (depth 1) and anything with comments in block style. */
  private Node node(JsonNode value, String path, int depth) {
    if (value.isObject()) {
      return mapping(value, path, depth);
    }
    if (value.isArray()) {
      List<Node> items = new ArrayList<>();
      boolean scalarsOnly = true;
      for (int i = 0; i < value.size(); i++) {
        items.add(node(value.get(i), path + "[" + i + "]", depth + 1));
        scalarsOnly &= value.get(i).isValueNode();
      }
      return new SequenceNode(Tag.SEQ, items, scalarsOnly ? DumperOptions.FlowStyle.FLOW : DumperOptions.FlowStyle.BLOCK);
    }
    if (value.isTextual()) {
      return text(value.textValue());
    }
    if (value.isBoolean()) {
      return scalar(Tag.BOOL, value.booleanValue() ? "true" : "false");
    }
    if (value.isIntegralNumber()) {
      return scalar(Tag.INT, value.bigIntegerValue().toString());
    }
    if (value.isNumber()) {
      // YAML 1.1 floats need a point and a signed exponent; a plain decimal with a point is read the same by every reader.
      String plain = new BigDecimal(value.asText()).toPlainString();
      return scalar(Tag.FLOAT, plain.contains(".") ? plain : plain + ".0");
    }
    return scalar(Tag.NULL, "null");
  }

  /** A mapping with its comments: flow style (one line) only for scalars below the sections and without comments. */
  private MappingNode mapping(JsonNode value, String path, int depth) {
    List<NodeTuple> tuples = new ArrayList<>();
    boolean scalarsOnly = true;
    Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      String child = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
      ScalarNode key = text(f.getKey());
      Node v = node(f.getValue(), child, depth + 1);
      if (before.containsKey(child)) {
        key.setBlockComments(comments(before.get(child), CommentType.BLOCK));
      }
      if (inline.containsKey(child)) {
        v.setInLineComments(List.of(new CommentLine(null, null, " " + inline.get(child), CommentType.IN_LINE)));
      }
      scalarsOnly &= f.getValue().isValueNode() && !before.containsKey(child) && !inline.containsKey(child);
      tuples.add(new NodeTuple(key, v));
    }
    boolean flow = scalarsOnly && depth > 1 && !tuples.isEmpty() || value.isEmpty();
    MappingNode m = new MappingNode(Tag.MAP, tuples, flow ? DumperOptions.FlowStyle.FLOW : DumperOptions.FlowStyle.BLOCK);
    if (after.containsKey(path)) {
      m.setEndComments(comments(after.get(path), CommentType.BLOCK));
    }
    return m;
  }

  private static ScalarNode text(String s) {
    // The emitter quotes a string whose plain form would be read as something else (true, 1.0, null, "# x", "a: b").
    return new ScalarNode(Tag.STR, s, null, null, DumperOptions.ScalarStyle.PLAIN);
  }

  private static ScalarNode scalar(Tag tag, String s) {
    return new ScalarNode(tag, s, null, null, DumperOptions.ScalarStyle.PLAIN);
  }

  /** Whether every key and string of the tree is {@link InertText#isInert} (LF and TAB aside, which YAML quotes faithfully). */
  private static boolean isInert(JsonNode node) {
    if (node.isTextual()) {
      return isInert(node.textValue());
    }
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        if (!isInert(f.getKey()) || !isInert(f.getValue())) {
          return false;
        }
      }
    }
    if (node.isArray()) {
      for (JsonNode item : node) {
        if (!isInert(item)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean isInert(String s) {
    return InertText.isInert(s.replace('\n', ' ').replace('\t', ' '));
  }

  private static List<CommentLine> comments(List<String> lines, CommentType type) {
    List<CommentLine> out = new ArrayList<>();
    for (String line : lines) {
      out.add(new CommentLine(null, null, line.isEmpty() ? "" : " " + line, type));
    }
    return out;
  }

  /** A tool name the loader accepts: characters outside {@code [A-Za-z0-9_-]} become {@code _}, at most 64. */
  public static String toolName(String name) {
    String s = name.replaceAll("[^A-Za-z0-9_-]", "_");
    if (s.isEmpty()) {
      s = "tool";
    }
    return s.length() > 64 ? s.substring(0, 64) : s;
  }

  /**
   * {@code text}'s lines, each made inert and wrapped at about {@link #WRAP} characters; a line that
   * starts with two spaces keeps that indent, continuation lines are indented by two more.
   */
  static List<String> wrap(String text) {
    List<String> out = new ArrayList<>();
    for (String paragraph : text.split("\n", -1)) {
      String safe = InertText.of(paragraph);
      if (safe.isBlank()) {
        out.add("");
        continue;
      }
      String lead = safe.startsWith("  ") ? "  " : "";
      String more = lead + "  ";
      StringBuilder line = new StringBuilder(lead);
      for (String word : safe.trim().split(" ")) {
        if (line.length() + word.length() > WRAP && line.length() > lead.length()) {
          out.add(line.toString().stripTrailing());
          line = new StringBuilder(more);
        }
        line.append(word).append(' ');
      }
      out.add(line.toString().stripTrailing());
    }
    return out;
  }
}
