package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The journal line format is fixed: encoding once and inserting the hash writes the same bytes as before. */
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

  @Test
  void encodingInsertsTheHashExactlyWhereCanonicalizingTheWholeEntryPutsIt() throws Exception {
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
        Map.of("hash\u00e9x", "a key right after hash that is not plain ASCII"));
    String prev = JournalFormat.GENESIS;
    for (int i = 0; i < payloads.size(); i++) {
      JournalFormat.Encoded e = JournalFormat.encode(i + 1, "2026-12-01T10:00:00.123Z", prev, "k/" + i, payloads.get(i));
      assertEquals(reference(i + 1, "2026-12-01T10:00:00.123Z", prev, "k/" + i, payloads.get(i)), e.line(), "payload " + i);
      JournalFormat.check(e.line().getBytes(java.nio.charset.StandardCharsets.UTF_8), i + 1, prev);
      prev = e.hash();
    }
  }
}
