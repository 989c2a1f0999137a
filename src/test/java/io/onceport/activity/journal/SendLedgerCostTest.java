package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the send ledger adds to a send: the same {@code dispatched} line written with and without
 * the ledger's claim (lock, refresh of every segment, hash probe), with other writers' segments in
 * the directory appending between sends, on a ledger already holding many sends. Prints the
 * figures (docs/audit.md quotes them); fails only when a claim costs more than a bound far above
 * them (a regression to a scan per send would cost milliseconds).
 *
 * <p>{@code mvn test -Dtest=SendLedgerCostTest -Dledger.sends=200000 -Dledger.claims=20000} for the
 * larger run; the default is sized for the default test run.
 */
@Timeout(300)
class SendLedgerCostTest {
  static final NoteSigner SIGNER = NoteSigner.generate("ledger-cost");
  @TempDir Path tmp;

  private Journal open(String writer) {
    // No fsync: the figure is the ledger's own cost, not the disk's (the real send fsyncs after the claim, outside the lock).
    return Journal.open(JournalOptions.newBuilder(tmp.resolve("activity"), writer, SIGNER)
        .setFsync(false).setCheckpointInterval(Duration.ZERO).setCheckpointEvery(0).build());
  }

  private static Map<String, Object> dispatched(String executionId, int attempt) {
    return Map.of("execution_id", executionId, "fingerprint", "hmac-sha256:00", "transition", "dispatched", "attempt", attempt,
        "at", "2026-12-06T00:00:00Z", "detail", Map.of("tool", "create_release", "channel", "http"));
  }

  @Test
  void aClaimCostsMicrosecondsOnALedgerOfManySendsAcrossWriters() {
    int existing = Integer.getInteger("ledger.sends", 10_000);
    int claims = Integer.getInteger("ledger.claims", 2_000);
    int writers = 4;
    Journal[] journals = new Journal[writers];
    for (int w = 0; w < writers; w++) {
      journals[w] = open("w" + w);
    }
    try {
      for (int i = 0; i < existing; i++) {
        journals[i % writers].appendAsync(dispatched("act_old" + i, 1), "act_old" + i + "/dispatched/1").appended();
        journals[i % writers].appendAsync(Map.of("n", i), "act_old" + i + "/accepted/1").appended(); // entries that are not sends
      }
      long openStart = System.nanoTime();
      try (SendLedger ledger = SendLedger.open(tmp.resolve("activity"))) {
        long openMillis = (System.nanoTime() - openStart) / 1_000_000;
        assertEquals(existing, ledger.size());
        long[] plain = new long[claims];
        long[] claimed = new long[claims];
        Journal own = journals[0];
        for (int i = 0; i < claims; i++) {
          // another writer appends between two sends: the claim reads what it grew by
          journals[1 + i % (writers - 1)].appendAsync(Map.of("n", i), "act_busy" + i + "/call/1").appended();
          String plainKey = "act_plain" + i + "/dispatched/1";
          long t0 = System.nanoTime();
          own.appendAsync(dispatched("act_plain" + i, 1), plainKey).appended();
          long t1 = System.nanoTime();
          String key = "act_new" + i + "/dispatched/1";
          int n = i;
          ledger.claim(key, () -> own.appendAsync(dispatched("act_new" + n, 1), key)).appended();
          long t2 = System.nanoTime();
          plain[i] = t1 - t0;
          claimed[i] = t2 - t1;
        }
        assertThrows(SendLedger.SentBefore.class, () -> ledger.claim("act_old7/dispatched/1", () -> null));
        Arrays.sort(plain);
        Arrays.sort(claimed);
        long p50 = micros(claimed, 0.50) - micros(plain, 0.50);
        System.out.printf("send ledger: %d sends in %d segments, opened in %d ms; a send's dispatched line: %d µs p50 / %d µs p99"
                + " without the ledger, %d µs p50 / %d µs p99 with its claim (+%d µs p50); %d claims%n",
            existing, writers, openMillis, micros(plain, 0.50), micros(plain, 0.99), micros(claimed, 0.50), micros(claimed, 0.99),
            p50, claims);
        assertTrue(micros(claimed, 0.50) < 2_000, "a claim should cost microseconds, not a scan: " + micros(claimed, 0.50) + " µs p50");
      }
    } finally {
      for (Journal j : journals) {
        j.close();
      }
    }
  }

  private static long micros(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) (sorted.length * q))] / 1_000;
  }
}
