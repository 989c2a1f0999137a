package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The bounded idempotence window of {@link Journal}: exact inside it, a clean extra line beyond it. */
@Timeout(60)
class JournalKeyWindowTest {
  static final NoteSigner SIGNER = NoteSigner.generate("key-window-test");
  @TempDir Path tmp;

  private Journal open(int window) {
    return Journal.open(JournalOptions.newBuilder(tmp.resolve("activity"), "w1", SIGNER)
        .setCheckpointInterval(Duration.ZERO).setCheckpointEvery(0).setKeyWindow(window).build());
  }

  private Path segment() {
    return tmp.resolve("activity/w1.jsonl");
  }

  @Test
  void reAppendInsideTheWindowReturnsTheFirstEntryWithoutWriting() {
    try (Journal j = open(8)) {
      Appended first = j.append(Map.of("n", 1), "e1/accepted/1");
      for (int i = 0; i < 7; i++) {
        j.append(Map.of("n", i), "other/" + i);
      }
      Appended again = j.appendAsync(Map.of("n", 2), "e1/accepted/1").appended();
      assertTrue(again.existing());
      assertEquals(first.seq(), again.seq());
      assertEquals(first.hash(), again.hash());
      assertEquals(8, j.size());
    }
  }

  @Test
  void reAppendBeyondTheWindowWritesASecondCorrectlyChainedLine() throws Exception {
    try (Journal j = open(4)) {
      j.append(Map.of("n", 1), "e1/accepted/1");
      for (int i = 0; i < 4; i++) {
        j.append(Map.of("n", i), "other/" + i);
      }
      assertTrue(j.find("e1/accepted/1").isEmpty(), "forgotten beyond the window");
      Appended late = j.append(Map.of("n", 1), "e1/accepted/1");
      assertFalse(late.existing());
      assertEquals(6, late.seq());
    }
    JournalVerifier.Result r = new JournalVerifier(SIGNER.verifier()).verify(segment(), null);
    assertTrue(r.ok(), "the chain stays valid: " + r);
    assertEquals(6, r.entries());
    long lines = Files.readAllLines(segment(), StandardCharsets.UTF_8).stream()
        .filter(l -> l.contains("\"key\":\"e1/accepted/1\"")).count();
    assertEquals(2, lines);
  }

  @Test
  void reopenRefillsTheWindowFromTheLastEntriesOfTheFile() {
    Appended kept;
    try (Journal j = open(4)) {
      for (int i = 0; i < 10; i++) {
        j.append(Map.of("n", i), "k/" + i);
      }
      kept = j.find("k/7").orElseThrow();
    }
    try (Journal j = open(4)) {
      Appended again = j.append(Map.of("n", 7), "k/7");
      assertTrue(again.existing());
      assertEquals(kept.seq(), again.seq());
      assertEquals(kept.hash(), again.hash());
      assertTrue(j.find("k/5").isEmpty(), "older than the last 4 entries");
      assertEquals(10, j.size());
    }
  }

  @Test
  void keyWindowMustBeAPowerOfTwo() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JournalOptions.newBuilder(tmp.resolve("activity"), "w1", SIGNER).setKeyWindow(0));
    assertEquals("Invalid key window: 0 entries (a power of two)", e.getMessage());
  }
}
