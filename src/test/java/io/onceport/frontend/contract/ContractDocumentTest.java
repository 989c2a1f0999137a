package io.onceport.frontend.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.onceport.shared.text.InertText;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link ContractDocument}: whatever text goes in — keys, values, comments — the YAML reader the
 * contract loader uses reads back exactly the tree that was written, with no key added, and the
 * file shows no character that ends a line for some reader or acts on a terminal.
 */
class ContractDocumentTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** Line ends for YAML 1.1 readers or terminals, and what a terminal acts on: none may appear raw. */
  private static final String RAW_FORBIDDEN = "\r\u0085\u2028\u2029\u001b\u202e\u2066\u200f\u0000";

  /** Text of every kind: letters, YAML indicators, quotes, escapes, controls, line separators, bidi, astral. */
  @Provide
  Arbitrary<String> text() {
    Arbitrary<Character> any = Arbitraries.chars().range('\u0000', '\uD7FF');
    Arbitrary<Character> nasty = Arbitraries.of('\n', '\r', '\t', '\u0085', '\u2028', '\u2029', '\u001b', '\u202e', '\u2066',
        '\u200f', '\ufeff', '#', ':', '-', '{', '}', '[', ']', ',', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ', '\\', '~');
    Arbitrary<String> pieces = Arbitraries.oneOf(any.map(String::valueOf), nasty.map(String::valueOf),
        Arbitraries.of("true", "no", "null", "~", "1.0", "0x1F", "2026-12-06", "fingerprint: {ignore: [id]}", "\uD83D\uDE00",
            "{{x}}", "---", "...", "? ", "- ", "# "));
    return pieces.list().ofMaxSize(12).map(l -> String.join("", l));
  }

  @Property(tries = 400)
  void anyTextIsReadBackAsTheSameTreeAndShowsNoLineBreakOrEscapeRaw(@ForAll("text") String key, @ForAll("text") String value,
      @ForAll("text") String comment) throws Exception {
    ContractDocument doc = new ContractDocument().header(comment);
    ObjectNode root = doc.root();
    root.put("tool", value);
    root.putObject("input_schema").put("type", "object").putObject("properties").putObject(key.isEmpty() ? "k" : key)
        .put("description", value).put("default", value);
    root.putObject("replay").put("class", "irreversible");
    doc.inline("replay.class", comment).before("replay", comment).after("replay", comment);

    String yaml = doc.toYaml();

    JsonNode back = YAML.readTree(yaml);
    assertEquals(root, back, yaml);
    for (char c : RAW_FORBIDDEN.toCharArray()) {
      assertTrue(yaml.indexOf(c) < 0, "raw U+" + Integer.toHexString(c) + " in:\n" + yaml);
    }
  }

  @Test
  void numbersBooleansAndLookAlikeStringsKeepTheirTypes() throws Exception {
    ContractDocument doc = new ContractDocument();
    ObjectNode s = doc.root().putObject("input_schema");
    s.put("maximum", 1e21).put("minimum", -0.5).put("multipleOf", 10).put("big", new java.math.BigInteger("123456789012345678901234567890"))
        .put("flag", true).put("yes", "yes").put("one", "1.0").put("nothing", "null").putNull("none");
    s.putArray("enum").add("on").add(2).add(false);
    String yaml = doc.toYaml();
    JsonNode back = YAML.readTree(yaml).get("input_schema");
    assertEquals(1e21, back.get("maximum").doubleValue(), yaml);
    assertEquals(-0.5, back.get("minimum").doubleValue(), yaml);
    assertEquals(10, back.get("multipleOf").intValue(), yaml);
    assertEquals("123456789012345678901234567890", back.get("big").bigIntegerValue().toString(), yaml);
    assertTrue(back.get("flag").isBoolean() && back.get("flag").booleanValue(), yaml);
    for (String f : List.of("yes", "one", "nothing")) {
      assertTrue(back.get(f).isTextual(), f + " stays a string: " + yaml);
    }
    assertTrue(back.get("none").isNull(), yaml);
    assertEquals("[\"on\",2,false]", back.get("enum").toString(), yaml);
  }

  @Test
  void commentsAreWrappedAndEveryLineIsOneCommentLine() {
    ContractDocument doc = new ContractDocument().header("first\n  indented " + "word ".repeat(40) + "\nx\u2028y: z\r#");
    doc.root().put("tool", "t");
    String yaml = doc.toYaml();
    List<String> lines = new ArrayList<>(yaml.lines().toList());
    assertEquals("tool: t", lines.get(lines.size() - 1), yaml);
    for (String line : lines.subList(0, lines.size() - 2)) {
      assertTrue(line.startsWith("#") && line.length() <= 102, line);
    }
    assertTrue(yaml.contains("# x" + InertText.of("\u2028") + "y: z" + InertText.of("\r") + "#\n"), yaml);
    assertTrue(yaml.contains("#   indented word"), yaml);
  }
}
