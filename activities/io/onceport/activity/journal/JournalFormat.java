package io.onceport.activity.journal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.erdtman.jcs.JsonCanonicalizer;

/**
 * One journal line: an RFC 8785 (JCS) canonical JSON object with {@code seq} (1-based, the Merkle
 * leaf index is seq - 1), {@code time}, {@code prev} (hex SHA-256 hash of the previous entry, 64
 * zeros for the first), {@code key} (the append key), the payload fields, and {@code hash} = hex
 * SHA-256 of the canonical JSON of the entry without {@code hash}. The Merkle leaf is the line
 * bytes without the newline. Shared by the writer (which re-checks its file on open) and the
 * offline verifier so both apply exactly the same rules.
 */
final class JournalFormat {
  static final Set<String> RESERVED = Set.of("seq", "time", "prev", "key", "hash");
  static final String GENESIS = "0".repeat(64);
  private static final ObjectMapper JSON = new ObjectMapper();

  private JournalFormat() {}

  /** An encoded entry: its line (no newline) and hash. */
  record Encoded(long seq, String line, String hash) {}

  static Encoded encode(long seq, String time, String prev, String key, Map<String, Object> payload) {
    TreeMap<String, Object> m = new TreeMap<>();
    for (Map.Entry<String, Object> e : payload.entrySet()) {
      if (RESERVED.contains(e.getKey())) {
        throw new IllegalArgumentException("Payload field is reserved: " + e.getKey());
      }
      m.put(e.getKey(), e.getValue());
    }
    m.put("seq", seq);
    m.put("time", time);
    m.put("prev", prev);
    m.put("key", key);
    Encoded direct = encodeDirect(seq, m);
    if (direct != null) {
      return direct;
    }
    String withoutHash = canonical(m);
    String hash = sha256Hex(withoutHash);
    String line = withTopLevelHash(withoutHash, m, hash);
    if (line == null) {
      m.put("hash", hash);
      line = canonical(m);
    }
    return new Encoded(seq, line, hash);
  }

  /**
   * The same bytes as {@link #canonical} (Jackson, then the JCS canonicalizer) for the values
   * journal payloads are made of — maps with string keys, lists, strings, booleans, null and the
   * usual number types — written in one pass: members sorted by UTF-16 code units, strings escaped
   * as JCS (and the canonicalizer) does, every number as the canonicalizer's
   * {@code NumberToJSON} of the double it parses. Returns null for anything else (the caller
   * takes the general path). The hash member is placed among the top-level members by its key.
   */
  private static Encoded encodeDirect(long seq, TreeMap<String, Object> top) {
    List<String> members = new java.util.ArrayList<>(top.size() + 1);
    int hashAt = -1;
    StringBuilder b = new StringBuilder(256);
    for (Map.Entry<String, Object> e : top.entrySet()) {
      if (hashAt < 0 && e.getKey().compareTo("hash") > 0) {
        hashAt = members.size();
      }
      b.setLength(0);
      string(b, e.getKey());
      b.append(':');
      if (!value(b, e.getValue())) {
        return null;
      }
      members.add(b.toString());
    }
    if (hashAt < 0) {
      hashAt = members.size();
    }
    String withoutHash = "{" + String.join(",", members) + "}";
    String hash = sha256Hex(withoutHash);
    members.add(hashAt, "\"hash\":\"" + hash + "\"");
    return new Encoded(seq, "{" + String.join(",", members) + "}", hash);
  }

  private static boolean value(StringBuilder b, Object v) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof String s) {
      string(b, s);
    } else if (v instanceof Boolean x) {
      b.append(x.booleanValue());
    } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
        || v instanceof Double || v instanceof Float || v instanceof java.math.BigInteger) {
      return number(b, v);
    } else if (v instanceof Map<?, ?> map) {
      return object(b, map);
    } else if (v instanceof List<?> list) {
      return array(b, list);
    } else {
      return false;
    }
    return true;
  }

  /** A JCS number (as ECMAScript prints a double); false for NaN and the infinities, which JSON lacks. */
  private static boolean number(StringBuilder b, Object v) {
    double d = Double.parseDouble(v.toString());
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return false;
    }
    try {
      b.append(org.erdtman.jcs.NumberToJSON.serializeNumber(d));
    } catch (IOException e) {
      return false;
    }
    return true;
  }

  /** A JCS object: members sorted by key; false for a key that is not a string or a value that cannot be encoded. */
  private static boolean object(StringBuilder b, Map<?, ?> map) {
    TreeMap<String, Object> sorted = new TreeMap<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getKey() instanceof String k)) {
        return false;
      }
      sorted.put(k, e.getValue());
    }
    b.append('{');
    boolean first = true;
    for (Map.Entry<String, Object> e : sorted.entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      string(b, e.getKey());
      b.append(':');
      if (!value(b, e.getValue())) {
        return false;
      }
    }
    b.append('}');
    return true;
  }

  /** A JCS array, in order; false for an element that cannot be encoded. */
  private static boolean array(StringBuilder b, List<?> list) {
    b.append('[');
    for (int i = 0; i < list.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      if (!value(b, list.get(i))) {
        return false;
      }
    }
    b.append(']');
    return true;
  }

  /** A JCS string: the two-character escapes for b, t, n, f, r, quote and backslash, other controls as u00xx escapes, everything else as is. */
  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20) {
            b.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }

  private static final java.util.regex.Pattern PLAIN_KEY = java.util.regex.Pattern.compile("[A-Za-z0-9_.-]+");

  /**
   * The canonical entry with its {@code hash} member, from the canonical form without it: the
   * inverse of {@link #withoutTopLevelHash}. Inserting one member at its sorted place keeps a
   * canonical object canonical, so this is a text operation (one canonicalization per entry instead
   * of two; the bytes are the same). JCS sorts members by UTF-16 code units, as {@link TreeMap}
   * does; the member that follows {@code hash} is found by its key. Returns null when that key is
   * not plain ASCII (its escaped form would need care): the caller canonicalizes again.
   */
  static String withTopLevelHash(String canonical, TreeMap<String, Object> sorted, String hash) {
    String member = "\"hash\":\"" + hash + "\"";
    String after = sorted.higherKey("hash");
    if (after == null) {
      return canonical.length() == 2 ? "{" + member + "}" : canonical.substring(0, canonical.length() - 1) + "," + member + "}";
    }
    if (!PLAIN_KEY.matcher(after).matches()) {
      return null;
    }
    int i = topLevelMember(canonical, "\"" + after + "\":");
    return i < 0 ? null : canonical.substring(0, i) + member + "," + canonical.substring(i);
  }

  /**
   * Where the top-level member starting with {@code prefix} (its quoted key and colon) begins in a
   * canonical object, or -1: strings and nested values are skipped, so a key inside them never
   * matches.
   */
  private static int topLevelMember(String canonical, String prefix) {
    int depth = 0;
    boolean inString = false;
    for (int i = 0; i < canonical.length(); i++) {
      char c = canonical.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
        continue;
      }
      if (c == '"') {
        char before = canonical.charAt(i - 1);
        if (depth == 1 && (before == '{' || before == ',') && canonical.startsWith(prefix, i)) {
          return i;
        }
        inString = true;
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        depth--;
      }
    }
    return -1;
  }

  /** A line that broke a rule. The reason is one short sentence for the operator. */
  static final class BadEntry extends Exception {
    BadEntry(String reason) {
      super(reason, null, false, false);
    }
  }

  /** A line that passed every check. */
  record Checked(long seq, String key, String hash, JsonNode entry) {}

  /**
   * Checks one line (without newline) at the expected position; returns its parsed form or
   * throws {@link BadEntry} with the first rule it breaks.
   */
  static Checked check(byte[] line, long expectedSeq, String expectedPrev) throws BadEntry {
    String text = utf8(line);
    JsonNode obj = canonicalObject(text);
    JsonNode seq = obj.get("seq");
    JsonNode hash = obj.get("hash");
    JsonNode prev = obj.get("prev");
    JsonNode key = obj.get("key");
    JsonNode time = obj.get("time");
    if (seq == null || !seq.canConvertToExactIntegral() || hash == null || !hash.isTextual()
        || prev == null || !prev.isTextual() || key == null || !key.isTextual()
        || time == null || !time.isTextual()) {
      throw new BadEntry("missing or mistyped seq, time, prev, key or hash");
    }
    String computed = sha256Hex(withoutTopLevelHash(text));
    if (!computed.equals(hash.asText())) {
      throw new BadEntry("hash does not match the entry content (entry modified)");
    }
    long s = seq.asLong();
    if (s != expectedSeq) {
      throw new BadEntry("found seq " + s + " where seq " + expectedSeq
          + " belongs (entry deleted, inserted, duplicated or reordered)");
    }
    if (!prev.asText().equals(expectedPrev)) {
      throw new BadEntry("prev does not match the hash of the entry before it (chain broken)");
    }
    return new Checked(s, key.asText(), computed, obj);
  }

  /** The line as text: a line that is not valid UTF-8 is refused, never repaired. */
  private static String utf8(byte[] line) throws BadEntry {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(line)).toString();
    } catch (CharacterCodingException e) {
      throw new BadEntry("not valid UTF-8");
    }
  }

  /** The line's JSON object, refused unless the text is already its RFC 8785 canonical form. */
  private static JsonNode canonicalObject(String text) throws BadEntry {
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new BadEntry("not valid JSON");
    }
    if (node == null || !node.isObject()) {
      throw new BadEntry("not a JSON object");
    }
    try {
      if (!new JsonCanonicalizer(text).getEncodedString().equals(text)) {
        throw new BadEntry("not in canonical form (RFC 8785)");
      }
    } catch (IOException | RuntimeException e) {
      throw new BadEntry("not valid JSON");
    }
    return node;
  }

  /**
   * The canonical form of the entry without its {@code hash} member. Removing one member of a
   * canonical object leaves the others sorted and canonical, so this is a text operation; the
   * scanner skips strings and nested values to find the top-level member.
   */
  static String withoutTopLevelHash(String canonical) throws BadEntry {
    int i = topLevelMember(canonical, "\"hash\":\"");
    int end = i < 0 ? 0 : canonical.indexOf('"', i + 8) + 1;
    if (end == 0) {
      throw new BadEntry("missing or mistyped seq, time, prev, key or hash");
    }
    if (canonical.charAt(end) == ',') {
      return canonical.substring(0, i) + canonical.substring(end + 1);
    }
    return canonical.charAt(i - 1) == ','
        ? canonical.substring(0, i - 1) + canonical.substring(end)
        : canonical.substring(0, i) + canonical.substring(end);
  }

  static String canonical(Map<String, Object> m) {
    try {
      return new JsonCanonicalizer(JSON.writeValueAsString(m)).getEncodedString();
    } catch (IOException e) {
      throw new IllegalArgumentException("Payload is not JSON-compatible: " + e.getMessage(), e);
    }
  }

  static String sha256Hex(String s) {
    return HexFormat.of().formatHex(MerkleTree.sha256().digest(s.getBytes(StandardCharsets.UTF_8)));
  }
}
