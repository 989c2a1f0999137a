package io.onceport.frontend.fingerprint;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.erdtman.jcs.JsonCanonicalizer;
import org.erdtman.jcs.NumberToJSON;

/**
 * JSON numbers kept exactly as the client sent them.
 *
 * <p>Why: RFC 8785 (JCS) serializes every number as an IEEE double, so {@code 9007199254740992}
 * and {@code 9007199254740993}, or two decimals that differ after the 17th digit, canonicalize to
 * the same bytes. Fingerprinting with JCS alone would make two different requested effects one
 * intent — the second call would attach to the first and never be executed. Parsing with doubles
 * would also send the target a rounded value.
 *
 * <p>A number is <em>ordinary</em> when JCS writes it as the value it has (the shortest double
 * representation denotes exactly the number sent: {@code 1}, {@code 0.1}, {@code 1.10},
 * {@code 1e21}); JCS handles those, unchanged, so fingerprints of existing calls stay the same.
 * Every other number (beyond 2^53 and not a double, more digits than a double holds, outside the
 * double range) <em>needs exact treatment</em>: in the canonical record it becomes the decimal
 * string of its value and its JSON pointer is listed, so a number and a string with the same digits
 * still differ; for display it keeps the client's digits.
 */
public final class ExactJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  /** Integers with more digits than this are written in exponent form, so 1e999999999 stays short. */
  private static final int MAX_PLAIN_DIGITS = 1000;

  private ExactJson() {}

  /**
   * A mapper whose trees keep numbers exact: integers as int, long or BigInteger, every number with
   * a fraction or exponent as a BigDecimal with the scale it was sent with ({@code 1.10} stays
   * {@code 1.10}).
   */
  public static ObjectMapper newMapper() {
    ObjectMapper m = new ObjectMapper();
    m.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    m.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
    m.setNodeFactory(NODES);
    return m;
  }

  /** True when {@code node} is a number JCS would write as a different value than it has. */
  public static boolean needsExact(JsonNode node) {
    if (node == null || !node.isNumber() || node.isDouble() || node.isFloat() || node.isInt() || node.isShort()) {
      return false; // not a number, or already a double / small integer: JCS writes exactly its value
    }
    double d = Double.parseDouble(node.numberValue().toString()); // correctly rounded, as JCS parses it
    if (!Double.isFinite(d)) {
      return true;
    }
    try {
      return new BigDecimal(NumberToJSON.serializeNumber(d)).compareTo(node.decimalValue()) != 0;
    } catch (IOException e) {
      throw new IllegalStateException(e); // only NaN is refused, and d is finite
    }
  }

  /**
   * The canonical decimal text of a number's value: the same for {@code 9007199254740993},
   * {@code 9007199254740993.0} and {@code 9.007199254740993e15}; plain digits for integers, Java's
   * {@link BigDecimal#toString()} (exponent form where needed) otherwise.
   */
  static String decimalText(JsonNode number) {
    BigDecimal v = number.decimalValue().stripTrailingZeros();
    if (v.signum() == 0) {
      return "0";
    }
    if (v.scale() <= 0 && v.precision() - v.scale() <= MAX_PLAIN_DIGITS) {
      return v.toBigIntegerExact().toString();
    }
    return v.toString();
  }

  /**
   * A tree with every number that needs exact treatment replaced by its {@link #decimalText} string.
   *
   * @param pointers RFC 6901 pointers (relative to the tree) of the replaced numbers, sorted, so
   *     they do not depend on the order the client sent the properties in
   */
  record Split(JsonNode tree, List<String> pointers) {
    Split {
      pointers = List.copyOf(pointers);
    }
  }

  static Split split(JsonNode node) {
    List<String> pointers = new ArrayList<>();
    JsonNode tree = split(node, "", pointers);
    pointers.sort(null);
    return new Split(tree, pointers);
  }

  private static JsonNode split(JsonNode node, String pointer, List<String> pointers) {
    if (node.isObject()) {
      ObjectNode out = NODES.objectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        out.set(e.getKey(), split(e.getValue(), pointer + "/" + e.getKey().replace("~", "~0").replace("/", "~1"), pointers));
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = NODES.arrayNode();
      for (int i = 0; i < node.size(); i++) {
        out.add(split(node.get(i), pointer + "/" + i, pointers));
      }
      return out;
    }
    if (needsExact(node)) {
      pointers.add(pointer);
      return TextNode.valueOf(decimalText(node));
    }
    return node;
  }

  /** True when some number in the tree needs exact treatment. */
  static boolean hasExactNumbers(JsonNode node) {
    if (node.isContainerNode()) {
      for (JsonNode child : node) {
        if (hasExactNumbers(child)) {
          return true;
        }
      }
      return false;
    }
    return needsExact(node);
  }

  /** RFC 8785 serialization of a tree of ordinary numbers (the library itself; fails on others). */
  static String jcs(JsonNode node) {
    try {
      return new JsonCanonicalizer(node.toString()).getEncodedString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * RFC 8785 serialization in which numbers needing exact treatment are written as their
   * {@link #decimalText}: byte for byte JCS for a tree of ordinary numbers; any value, also a
   * scalar. Used where the bytes are hashed but never re-parsed as JCS (secret arguments).
   */
  static String canonical(JsonNode node) {
    if (node.isContainerNode() && !hasExactNumbers(node)) {
      return jcs(node);
    }
    StringBuilder b = new StringBuilder();
    write(node, b, false);
    return b.toString();
  }

  /**
   * JCS for display: key order and escaping as RFC 8785, ordinary numbers as JCS writes them, and
   * numbers needing exact treatment with the digits the client sent ({@code 9007199254740993},
   * {@code 3.14159265358979323846264338327950288}) instead of a rounded double.
   */
  public static String display(JsonNode node) {
    if (node.isContainerNode() && !hasExactNumbers(node)) {
      return jcs(node);
    }
    StringBuilder b = new StringBuilder();
    write(node, b, true);
    return b.toString();
  }

  private static void write(JsonNode node, StringBuilder b, boolean asSent) {
    if (node.isObject()) {
      Map<String, JsonNode> sorted = new TreeMap<>(); // String order is UTF-16 code unit order, as RFC 8785 requires
      node.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
      b.append('{');
      boolean first = true;
      for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
        if (!first) {
          b.append(',');
        }
        first = false;
        string(e.getKey(), b);
        b.append(':');
        write(e.getValue(), b, asSent);
      }
      b.append('}');
    } else if (node.isArray()) {
      b.append('[');
      for (int i = 0; i < node.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        write(node.get(i), b, asSent);
      }
      b.append(']');
    } else if (node.isTextual()) {
      string(node.textValue(), b);
    } else if (node.isNumber()) {
      if (needsExact(node)) {
        b.append(asSent ? node.numberValue().toString() : decimalText(node));
      } else {
        try {
          b.append(NumberToJSON.serializeNumber(Double.parseDouble(node.numberValue().toString())));
        } catch (IOException e) {
          throw new IllegalArgumentException("not a JSON number: " + node.numberValue(), e);
        }
      }
    } else if (node.isBoolean()) {
      b.append(node.booleanValue());
    } else if (node.isNull()) {
      b.append("null");
    } else {
      throw new IllegalArgumentException("not a JSON value: " + node.getNodeType());
    }
  }

  private static void string(String s, StringBuilder b) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
