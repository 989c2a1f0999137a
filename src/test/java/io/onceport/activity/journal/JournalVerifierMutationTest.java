package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Property-style: many random mutations of each kind at random positions; the verifier must
 * reject every one, naming the first bad entry (its sequence and byte offset), and accept the
 * untouched journal. The journal ends with a signed checkpoint at its full size, as after a clean
 * shutdown, so removing entries from the end is detectable too.
 */
@Timeout(120)
class JournalVerifierMutationTest {
  static final NoteSigner SIGNER = NoteSigner.generate("mutation-test");
  static final int ENTRIES = 40;
  static final int RUNS_PER_KIND = 40;

  @TempDir Path tmp;
  Path pristine;
  List<byte[]> lines;
  /** Printed in every failure; {@code -Donceport.mutationSeed=N} replays a failed run. */
  long seed = Long.getLong("onceport.mutationSeed", System.nanoTime());
  Random random;

  @BeforeEach
  void writeJournal() throws IOException {
    random = new Random(seed);
    pristine = tmp.resolve("pristine/activity");
    try (Journal j = Journal.open(JournalOptions.newBuilder(pristine, "w1", SIGNER)
        .setCheckpointEvery(0).setCheckpointInterval(Duration.ZERO).setFsync(false).build())) {
      for (int i = 0; i < ENTRIES; i++) {
        j.append(Map.of("execution_id", "act_" + (i / 4), "transition", "t" + (i % 4), "attempt", 1,
            "detail", Map.of("n", i, "text", "caf\u00e9 \"quoted\" " + i)), "act_" + i + "/t/1");
        if (i == ENTRIES / 2) {
          j.checkpoint();
        }
      }
    }
    lines = splitLines(Files.readAllBytes(pristine.resolve("w1.jsonl")));
  }

  @Test
  void acceptsTheUntouchedJournal() throws IOException {
    JournalVerifier.Result r = verify(pristine);
    assertTrue(r.ok(), r.summary());
    assertEquals(ENTRIES, r.entries());
    assertEquals(2, r.checkpoints());
    assertEquals("ok: activity/w1 40 entries, root " + r.rootBase64(), r.summary());
  }

  @Test
  void rejectsEveryModifiedByte() throws IOException {
    for (int run = 0; run < RUNS_PER_KIND; run++) {
      byte[] file = join(lines);
      int at = random.nextInt(file.length);
      file[at] ^= (byte) (1 + random.nextInt(255));
      int line = lineOf(at);
      expectEntryProblem(file, line + 1, start(line), "modified byte at " + at);
    }
  }

  @Test
  void rejectsEveryDeletedEntry() throws IOException {
    for (int run = 0; run < RUNS_PER_KIND; run++) {
      int i = random.nextInt(ENTRIES);
      List<byte[]> l = new ArrayList<>(lines);
      l.remove(i);
      long offset = i == ENTRIES - 1 ? start(i) : start(i);
      expectEntryProblem(join(l), i + 1, offset, "deleted entry " + (i + 1));
    }
  }

  @Test
  void rejectsEveryInsertedEntry() throws IOException {
    for (int run = 0; run < RUNS_PER_KIND; run++) {
      int i = random.nextInt(ENTRIES + 1);
      int j = random.nextInt(ENTRIES);
      List<byte[]> l = new ArrayList<>(lines);
      l.add(i, lines.get(j));
      // a copy of the entry that belongs there is itself fine: the original after it is the duplicate
      int bad = j == i ? i + 1 : i;
      expectEntryProblem(join(l), bad + 1, start(bad), "entry " + (j + 1) + " replayed at " + i);
    }
  }

  @Test
  void rejectsEveryForgedEntryInsertedWithAValidHash() throws IOException {
    for (int run = 0; run < RUNS_PER_KIND; run++) {
      int i = random.nextInt(ENTRIES);
      String prev = i == 0 ? JournalFormat.GENESIS : hashOf(lines.get(i - 1));
      byte[] forged = JournalFormat.encode(i + 1, "2026-01-01T00:00:00Z", prev, "forged/" + run,
          Map.of("transition", "dispatched")).line().getBytes(StandardCharsets.UTF_8);
      List<byte[]> l = new ArrayList<>(lines);
      l.add(i, forged);
      long offset = start(i) + forged.length + 1;
      expectEntryProblem(join(l), i + 2, offset, "forged entry inserted at " + i);
    }
  }

  @Test
  void rejectsEveryReorderedPair() throws IOException {
    for (int run = 0; run < RUNS_PER_KIND; run++) {
      int i = random.nextInt(ENTRIES - 1);
      int k = i + 1 + random.nextInt(ENTRIES - 1 - i);
      List<byte[]> l = new ArrayList<>(lines);
      l.set(i, lines.get(k));
      l.set(k, lines.get(i));
      expectEntryProblem(join(l), i + 1, start(i), "swapped " + i + " and " + k);
    }
  }

  @Test
  void rejectsEveryDuplicatedEntry() throws IOException {
    for (int run = 0; run < RUNS_PER_KIND; run++) {
      int i = random.nextInt(ENTRIES);
      List<byte[]> l = new ArrayList<>(lines);
      l.add(i + 1, lines.get(i));
      expectEntryProblem(join(l), i + 2, start(i + 1), "duplicated entry " + (i + 1));
    }
  }

  @Test
  void rejectsEveryTruncatedTail() throws IOException {
    byte[] full = join(lines);
    for (int run = 0; run < RUNS_PER_KIND; run++) {
      int length = random.nextInt(full.length);
      byte[] cut = java.util.Arrays.copyOf(full, length);
      int complete = 0;
      while (complete < ENTRIES && start(complete + 1) <= length) {
        complete++;
      }
      long offset = start(complete) == length ? length : start(complete);
      expectEntryProblem(cut, complete + 1, offset, "truncated to " + length);
    }
  }

  @Test
  void rejectsEveryBadCheckpointSignature() throws IOException {
    for (int run = 0; run < RUNS_PER_KIND; run++) {
      Path copy = copyOf(join(lines));
      List<Path> cps = CheckpointStore.list(copy.resolve("checkpoints/w1"));
      Path cp = cps.get(random.nextInt(cps.size()));
      String note = Files.readString(cp);
      // The signature line is "\u2014 <name> <base64(key id (4 bytes) || Ed25519 signature (64 bytes))>".
      // Flip bits in the decoded signature bytes, not in a base64 character: the last character of
      // a padded group carries unused bits, and changing only those leaves the same signature.
      int sigAt = note.lastIndexOf(' ') + 1;
      byte[] blob = Base64.getDecoder().decode(note.substring(sigAt, note.length() - 1));
      assertEquals(4 + 64, blob.length, "signature blob of " + cp.getFileName());
      int at = 4 + random.nextInt(64);
      blob[at] ^= (byte) (1 + random.nextInt(255));
      String bad = note.substring(0, sigAt) + Base64.getEncoder().encodeToString(blob) + "\n";
      Files.writeString(cp, bad);
      JournalVerifier.Result r = verify(copy);
      assertFalse(r.ok(), "bad signature (byte " + at + " changed) accepted (seed " + seed + ")");
      assertEquals(cp.getFileName().toString(), r.problem().checkpoint(), r.summary());
    }
  }

  @Test
  void rejectsACheckpointSignedByAnotherKey() throws IOException {
    Path copy = copyOf(join(lines));
    Path cp = CheckpointStore.list(copy.resolve("checkpoints/w1")).get(0);
    String body = SIGNER.verifier().open(Files.readString(cp));
    Files.writeString(cp, NoteSigner.generate("mutation-test").sign(body));
    assertEquals("activity/w1: checkpoint " + cp.getFileName()
        + ": bad signature or format: no signature by key "
        + SIGNER.verifierKey().split("\\+")[0] + "+" + SIGNER.verifierKey().split("\\+")[1],
        verify(copy).summary());
  }

  private void expectEntryProblem(byte[] file, long seq, long offset, String what)
      throws IOException {
    JournalVerifier.Result r = verify(copyOf(file));
    assertFalse(r.ok(), what + " accepted (seed " + seed + ")");
    assertNotNull(r.problem());
    assertEquals(seq, r.problem().seq(), what + ": " + r.summary() + " (seed " + seed + ")");
    assertEquals(offset, r.problem().offset(), what + ": " + r.summary() + " (seed " + seed + ")");
  }

  private JournalVerifier.Result verify(Path journalDir) throws IOException {
    return new JournalVerifier(SIGNER.verifier()).verify(journalDir.resolve("w1.jsonl"), null);
  }

  private Path copyOf(byte[] segment) throws IOException {
    Path dir = Files.createTempDirectory(tmp, "m").resolve("activity");
    Files.createDirectories(dir.resolve("checkpoints/w1"));
    Files.write(dir.resolve("w1.jsonl"), segment);
    try (Stream<Path> s = Files.list(pristine.resolve("checkpoints/w1"))) {
      for (Path p : s.toList()) {
        Files.copy(p, dir.resolve("checkpoints/w1").resolve(p.getFileName()));
      }
    }
    return dir;
  }

  private long start(int line) {
    long o = 0;
    for (int i = 0; i < line && i < lines.size(); i++) {
      o += lines.get(i).length + 1;
    }
    return o;
  }

  private int lineOf(int offset) {
    int i = 0;
    while (start(i + 1) <= offset) {
      i++;
    }
    return i;
  }

  private static String hashOf(byte[] line) throws IOException {
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(line).get("hash").asText();
  }

  static List<byte[]> splitLines(byte[] file) {
    List<byte[]> out = new ArrayList<>();
    int from = 0;
    for (int i = 0; i < file.length; i++) {
      if (file[i] == '\n') {
        out.add(java.util.Arrays.copyOfRange(file, from, i));
        from = i + 1;
      }
    }
    return out;
  }

  static byte[] join(List<byte[]> lines) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] l : lines) {
      out.writeBytes(l);
      out.write('\n');
    }
    return out.toByteArray();
  }
}
