package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class JournalTest {
  static final NoteSigner SIGNER = NoteSigner.generate("test-journal");
  @TempDir Path tmp;

  JournalOptions.Builder options(String writer) {
    return JournalOptions.newBuilder(tmp.resolve("activity"), writer, SIGNER)
        .setCheckpointInterval(Duration.ZERO);
  }

  @Test
  void appendsCanonicalChainedEntriesOnePerLine() throws Exception {
    try (Journal j = Journal.open(options("w1").build())) {
      Appended a = j.append(Map.of("transition", "accepted", "n", 1), "e1/accepted/1");
      Appended b = j.append(Map.of("transition", "dispatched"), "e1/dispatched/1");
      assertEquals(1, a.seq());
      assertEquals(2, b.seq());
      assertFalse(b.existing());
    }
    List<String> lines = Files.readAllLines(tmp.resolve("activity/w1.jsonl"));
    assertEquals(2, lines.size());
    assertTrue(lines.get(0).startsWith("{\"hash\":\""), lines.get(0));
    assertTrue(lines.get(0).contains("\"prev\":\"" + "0".repeat(64) + "\""), lines.get(0));
    String firstHash = lines.get(0).substring(9, 73);
    assertTrue(lines.get(1).contains("\"prev\":\"" + firstHash + "\""), lines.get(1));
  }

  @Test
  void appendWithAKnownKeyReturnsTheExistingEntryAndWritesNothing() throws Exception {
    try (Journal j = Journal.open(options("w1").build())) {
      Appended first = j.append(Map.of("transition", "dispatched"), "e1/dispatched/1");
      Appended again = j.append(Map.of("transition", "dispatched", "other", true), "e1/dispatched/1");
      assertEquals(first.seq(), again.seq());
      assertEquals(first.hash(), again.hash());
      assertTrue(again.existing());
      assertEquals(1, j.size());
    }
    try (Journal reopened = Journal.open(options("w1").build())) {
      Appended afterRestart = reopened.append(Map.of("transition", "dispatched"), "e1/dispatched/1");
      assertTrue(afterRestart.existing());
      assertEquals(1, afterRestart.seq());
      assertEquals(2, reopened.append(Map.of(), "e1/dispatched/2").seq());
    }
  }

  @Test
  void concurrentAppendersShareFsyncs() throws Exception {
    int threads = 16;
    int perThread = 50;
    try (Journal j = Journal.open(options("w1").build())) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            j.append(Map.of("thread", id, "i", i), "t" + id + "/" + i);
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertEquals(threads * perThread, j.size());
      assertTrue(j.fsyncCount() < threads * perThread,
          "fsyncs " + j.fsyncCount() + " for " + threads * perThread + " appends");
    }
    JournalVerifier.Result r = new JournalVerifier(SIGNER.verifier())
        .verify(tmp.resolve("activity/w1.jsonl"), null);
    assertTrue(r.ok(), r.summary());
    assertEquals(threads * perThread, r.entries());
  }

  @Test
  void aSecondWriterOnTheSameSegmentIsRefused() {
    try (Journal j = Journal.open(options("w1").build())) {
      JournalException e = assertThrows(JournalException.class, () -> Journal.open(options("w1").build()));
      assertEquals("journal activity/w1 is held by another writer (each process needs its own writer id)",
          e.getMessage());
      try (Journal other = Journal.open(options("w2").build())) {
        j.append(Map.of("a", 1), "k1");
        other.append(Map.of("a", 2), "k1");
        assertEquals(1, other.size());
      }
    }
  }

  @Test
  void openTruncatesOnlyAnIncompleteLastLine() throws Exception {
    Path seg = tmp.resolve("activity/w1.jsonl");
    try (Journal j = Journal.open(options("w1").setCheckpointEvery(0).build())) {
      j.append(Map.of("a", 1), "k1");
      j.append(Map.of("a", 2), "k2");
    }
    // the close checkpoint covers 2 entries; a crash mid-append leaves a partial third line
    long goodLength = Files.size(seg);
    Files.writeString(seg, "{\"hash\":\"ab", StandardOpenOption.APPEND);
    JournalVerifier.Result torn = new JournalVerifier(SIGNER.verifier()).verify(seg, null);
    assertEquals("activity/w1: entry seq 3 at offset " + goodLength
        + ": incomplete last line without newline (11 bytes; torn write or truncated file)",
        torn.summary());
    try (Journal j = Journal.open(options("w1").build())) {
      assertEquals(2, j.size());
      assertEquals(3, j.append(Map.of("a", 3), "k3").seq());
    }
    assertTrue(new JournalVerifier(SIGNER.verifier()).verify(seg, null).ok());
  }

  @Test
  void openRefusesAJournalDamagedInTheMiddle() throws Exception {
    Path seg = tmp.resolve("activity/w1.jsonl");
    try (Journal j = Journal.open(options("w1").build())) {
      j.append(Map.of("a", 1), "k1");
      j.append(Map.of("a", 2), "k2");
    }
    String text = Files.readString(seg);
    Files.writeString(seg, text.replace("\"a\":1", "\"a\":7"));
    JournalException e = assertThrows(JournalException.class, () -> Journal.open(options("w1").build()));
    assertEquals("journal activity/w1 is damaged, refusing to append: entry seq 1 at offset 0: "
        + "hash does not match the entry content (entry modified) (run onceport audit verify)",
        e.getMessage());
  }

  @Test
  void openRefusesAJournalShorterThanItsSignedCheckpoint() throws Exception {
    Path seg = tmp.resolve("activity/w1.jsonl");
    try (Journal j = Journal.open(options("w1").build())) {
      j.append(Map.of("a", 1), "k1");
      j.append(Map.of("a", 2), "k2");
    }
    List<String> lines = Files.readAllLines(seg);
    Files.writeString(seg, lines.get(0) + "\n");
    JournalException e = assertThrows(JournalException.class, () -> Journal.open(options("w1").build()));
    assertEquals("journal activity/w1 has 1 entries but its checkpoint signed 2 (truncated or rolled back),"
        + " refusing to append", e.getMessage());
  }

  @Test
  void checkpointIsASignedTlogCheckpointOfTheCurrentTree() throws Exception {
    try (Journal j = Journal.open(options("w1").build())) {
      j.append(Map.of("a", 1), "k1");
      String note = j.checkpoint();
      Checkpoint cp = Checkpoint.parse(SIGNER.verifier().open(note));
      assertEquals("onceport/w1/activity", cp.origin());
      assertEquals(1, cp.size());
      byte[] line = Files.readAllLines(tmp.resolve("activity/w1.jsonl")).get(0)
          .getBytes(StandardCharsets.UTF_8);
      assertEquals(new Checkpoint("onceport/w1/activity", 1, MerkleTree.leafHash(line)).body(),
          SIGNER.verifier().open(note));
      assertTrue(Files.exists(tmp.resolve("activity/checkpoints/w1/00000000000000000001.note")));
    }
  }

  @Test
  void checkpointsAreSignedEveryNEntries() throws Exception {
    try (Journal j = Journal.open(options("w1").setCheckpointEvery(5).build())) {
      for (int i = 0; i < 10; i++) {
        j.append(Map.of("i", i), "k" + i);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (CheckpointStore.list(tmp.resolve("activity/checkpoints/w1")).size() < 2
          && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertEquals(2, CheckpointStore.list(tmp.resolve("activity/checkpoints/w1")).size());
    }
  }

  @Test
  void nestedHashFieldsAndEscapedTextVerify() throws Exception {
    try (Journal j = Journal.open(options("w1").build())) {
      j.append(Map.of("a", Map.of("hash", "0".repeat(64), "list", List.of("\"hash\":\"x\"", 1.5, -0.0)),
          "z", Map.of("hash", Map.of("hash", "q")), "text", "line\nbreak \u2028 \u00e9 \ud83d\ude00"), "k1");
      j.append(Map.of("detail", Map.of()), "k2");
    }
    JournalVerifier.Result r = new JournalVerifier(SIGNER.verifier())
        .verify(tmp.resolve("activity/w1.jsonl"), null);
    assertTrue(r.ok(), r.summary());
    assertEquals(2, r.entries());
  }

  @Test
  void reservedFieldsCannotBeUsedInAPayload() {
    try (Journal j = Journal.open(options("w1").build())) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> j.append(Map.of("seq", 9), "k"));
      assertEquals("Payload field is reserved: seq", e.getMessage());
    }
  }
}
