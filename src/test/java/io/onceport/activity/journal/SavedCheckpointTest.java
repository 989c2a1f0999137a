package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint saved outside the data dir (by a witness) proves the journal only grew, and exposes
 * a rollback or a fork even when the attacker holds the signing key and re-signed every stored
 * checkpoint.
 */
@Timeout(60)
class SavedCheckpointTest {
  static final NoteSigner SIGNER = NoteSigner.generate("saved-test");
  @TempDir Path tmp;

  Journal open(Path data) {
    return Journal.open(JournalOptions.newBuilder(data.resolve("journal/activity"), "w1", SIGNER)
        .setCheckpointEvery(0).setCheckpointInterval(Duration.ZERO).setFsync(false).build());
  }

  void appendRange(Journal j, int from, int to, String tag) {
    for (int i = from; i < to; i++) {
      j.append(Map.of("transition", tag, "i", i), "e" + i + "/" + tag);
    }
  }

  Path save(String note) throws IOException {
    Path f = tmp.resolve("witness-" + System.nanoTime() + ".note");
    Files.writeString(f, note);
    return f;
  }

  JournalVerifier.Result verify(Path data, Path saved) throws IOException {
    List<JournalVerifier.Result> results = new JournalVerifier(SIGNER.verifier()).verifyDataDir(data, saved);
    assertEquals(1, results.size());
    return results.get(0);
  }

  @Test
  void aJournalThatOnlyGrewIsConsistentWithTheSavedCheckpoint() throws IOException {
    Path data = tmp.resolve("data");
    Path saved;
    try (Journal j = open(data)) {
      appendRange(j, 0, 13, "a");
      saved = save(j.checkpoint());
      appendRange(j, 13, 37, "a");
    }
    JournalVerifier.Result r = verify(data, saved);
    assertTrue(r.ok(), r.summary());
    assertEquals(37, r.entries());
  }

  @Test
  void aRollbackBelowTheSavedCheckpointIsDetectedEvenWithReSignedCheckpoints() throws IOException {
    Path data = tmp.resolve("data");
    Path saved;
    try (Journal j = open(data)) {
      appendRange(j, 0, 20, "a");
      saved = save(j.checkpoint());
    }
    // the attacker rebuilds the journal with only the first 12 entries and re-signs
    Path rolled = tmp.resolve("rolled");
    try (Journal j = open(rolled)) {
      appendRange(j, 0, 12, "a");
    }
    long length = Files.size(rolled.resolve("journal/activity/w1.jsonl"));
    assertTrue(verify(rolled, null).ok(), "self-consistent without a witness");
    assertEquals("activity/w1: entry seq 13 at offset " + length + ": journal ends here but saved checkpoint "
        + saved.getFileName() + " signed 20 entries (rolled back)", verify(rolled, saved).summary());
  }

  @Test
  void aForkIsDetectedByTheConsistencyProof() throws IOException {
    Path data = tmp.resolve("data");
    Path saved;
    try (Journal j = open(data)) {
      appendRange(j, 0, 20, "a");
      saved = save(j.checkpoint());
    }
    // same origin and key, history rewritten from entry 8 on, then grown past the saved size
    Path forked = tmp.resolve("forked");
    try (Journal j = open(forked)) {
      appendRange(j, 0, 7, "a");
      appendRange(j, 7, 30, "b");
    }
    assertTrue(verify(forked, null).ok(), "self-consistent without a witness");
    assertEquals("activity/w1: checkpoint " + saved.getFileName()
        + ": no consistency proof from size 20 to 30: the first 20 entries were rewritten (fork)",
        verify(forked, saved).summary());
  }

  @Test
  void aSavedCheckpointForAJournalThatIsGoneIsAProblem() throws IOException {
    Path data = tmp.resolve("data");
    Path saved;
    try (Journal j = open(data)) {
      appendRange(j, 0, 3, "a");
      saved = save(j.checkpoint());
    }
    Path other = tmp.resolve("other");
    Files.createDirectories(other.resolve("journal/activity"));
    List<JournalVerifier.Result> results = new JournalVerifier(SIGNER.verifier()).verifyDataDir(other, saved);
    assertEquals(1, results.size());
    assertEquals("onceport/w1/activity: checkpoint " + saved.getFileName()
        + ": no journal segment with origin onceport/w1/activity (journal removed or renamed)",
        results.get(0).summary());
  }
}
