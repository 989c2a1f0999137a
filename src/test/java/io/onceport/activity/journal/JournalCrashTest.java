package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Child JVMs append in a loop and are killed with SIGKILL mid-stream; every acknowledged append
 * must survive, the journal must verify with no torn entry, and the next writer continues the
 * chain. Also: two processes can never write one segment.
 */
@Timeout(180)
class JournalCrashTest {
  static final NoteSigner SIGNER = NoteSigner.generate("crash-test");
  @TempDir Path data;

  JournalOptions options() {
    return JournalOptions.newBuilder(data.resolve("journal/activity"), "w1", SIGNER)
        .setCheckpointInterval(Duration.ZERO).build();
  }

  @Test
  void killDashNineDuringAppendsLosesNoAcknowledgedEntryAndLeavesNoTornEntry() throws Exception {
    killRepeatedly("append");
  }

  @Test
  void killDashNineDuringAsynchronousAppendsLosesNoWrittenEntryAndLeavesNoTornEntry() throws Exception {
    killRepeatedly("append-async");
  }

  private void killRepeatedly(String mode) throws Exception {
    long lastAcked = 0;
    for (int round = 0; round < 3; round++) {
      Process child = JournalChild.start(mode, data, "w1", SIGNER);
      long killAfter = lastAcked + 150 + round * 37;
      try (BufferedReader out = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          long seq = Long.parseLong(line.split(" ")[1]);
          assertEquals(lastAcked + 1, seq, "acknowledged in order");
          lastAcked = seq;
          if (seq >= killAfter) {
            child.destroyForcibly(); // SIGKILL on Linux; only the child we started
            break;
          }
        }
      } finally {
        child.destroyForcibly();
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      }
      try (Journal j = Journal.open(options())) {
        assertTrue(j.size() >= lastAcked, "entries " + j.size() + " < acknowledged " + lastAcked);
        for (long i = 0; i < lastAcked; i++) {
          assertTrue(j.find("child/" + i).isPresent(), "acknowledged child/" + i + " missing");
        }
        lastAcked = j.size(); // appended but unacknowledged entries may survive too
      }
      JournalVerifier.Result r = new JournalVerifier(SIGNER.verifier())
          .verify(data.resolve("journal/activity/w1.jsonl"), null);
      assertTrue(r.ok(), r.summary());
      assertEquals(lastAcked, r.entries());
    }
  }

  @Test
  void aSecondProcessCannotOpenASegmentAnotherProcessHolds() throws Exception {
    Process holder = JournalChild.start("hold", data, "w1", SIGNER);
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
      assertEquals("holding", out.readLine());
      JournalException e = org.junit.jupiter.api.Assertions.assertThrows(JournalException.class,
          () -> Journal.open(options()));
      assertEquals("journal activity/w1 is held by another writer (each process needs its own writer id)",
          e.getMessage());
      try (Journal other = Journal.open(JournalOptions.newBuilder(data.resolve("journal/activity"), "w2",
          SIGNER).setCheckpointInterval(Duration.ZERO).build())) {
        assertEquals(1, other.append(java.util.Map.of("a", 1), "k").seq());
      }
    } finally {
      holder.destroyForcibly();
      assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
    }
    try (Journal j = Journal.open(options())) {
      assertEquals(0, j.size());
    }
  }
}
