package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The journal line format is fixed: the one-pass encoder (and its text insertion of the hash) writes
 * the same bytes as canonicalizing the whole entry with Jackson and the JCS canonicalizer, twice.
 */
@SuppressWarnings("unchecked")
class JournalFormatTest {
  /** The original encoding: canonicalize the entry, hash it, add the hash, canonicalize again. */
  static String reference(long seq, String time, String prev, String key, Map<String, Object> payload) {
    Map<String, Object> m = new TreeMap<>(payload);
    m.put("seq", seq);
    m.put("time", time);
    m.put("prev", prev);
    m.put("key", key);
    String hash = JournalFormat.sha256Hex(JournalFormat.canonical(m));
    m.put("hash", hash);
    return JournalFormat.canonical(m);
  }

  private static Map<String, Object> withNull() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("execution_id", null);
    m.put("detail", new LinkedHashMap<>(Map.of("read_id", "read_1")));
    ((Map<String, Object>) m.get("detail")).put("session", null);
    return m;
  }

  @Test
  void encodingWritesExactlyTheBytesOfCanonicalizingTheWholeEntry() throws Exception {
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("hash", "0".repeat(64));
    nested.put("list", List.of("\"hash\":\"x\"", 1.5, -0.0, 1e21, 12345678901234567L));
    List<Map<String, Object>> payloads = List.of(
        Map.of(),
        Map.of("execution_id", "act_1", "transition", "accepted", "detail", Map.of("tool", "t", "n", 3)),
        Map.of("a", 1, "z", 2),
        Map.of("hash_like", "x", "has", "y", "hasi", true),
        Map.of("detail", nested, "text", "line\nbreak \u2028 \u00e9 \ud83d\ude00 \"q\" \\"),
        Map.of("\u00e9t\u00e9", "non-ascii key after hash", "Z", "upper case sorts first"),
        Map.of("h", Map.of("hash", Map.of("hash", "q")), "i", List.of(Map.of("hash", 1))),
        Map.of("hash\u00e9x", "a key right after hash that is not plain ASCII"),
        Map.of("numbers", List.of(0, -1, 2147483647, -9007199254740993L, 3.0f, 1.1f, 0.1, 1e-7, 123456789e300,
            new java.math.BigInteger("123456789012345678901234567890"), (short) 7, (byte) -8)),
        Map.of("controls", "\u0000\u0001\u001f\u007f\b\f\t\r/\u00a0\ufeff", "flag", false),
        withNull(),
        Map.of("decimal", new java.math.BigDecimal("1.50"), "note", "BigDecimal takes the general path"),
        Map.of("zz", "after every envelope field", "a_list", List.of(List.of(), Map.of(), List.of(Map.of("k", List.of(true))))));
    String prev = JournalFormat.GENESIS;
    for (int i = 0; i < payloads.size(); i++) {
      JournalFormat.Encoded e = JournalFormat.encode(i + 1, "2026-12-01T10:00:00.123Z", prev, "k/" + i, payloads.get(i));
      assertEquals(reference(i + 1, "2026-12-01T10:00:00.123Z", prev, "k/" + i, payloads.get(i)), e.line(), "payload " + i);
      JournalFormat.check(e.line().getBytes(java.nio.charset.StandardCharsets.UTF_8), i + 1, prev);
      prev = e.hash();
    }
  }
}
