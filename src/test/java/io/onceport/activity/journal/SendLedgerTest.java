package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.ErrorTypes;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The send ledger: a {@code dispatched} key is found in any writer's segment of the directory, with
 * no window, after a restart, and one key is claimed once however many claim it at once.
 */
@Timeout(60)
class SendLedgerTest {
  static final NoteSigner SIGNER = NoteSigner.generate("ledger-test");
  @TempDir Path tmp;

  private Path dir() {
    return tmp.resolve("journal/activity");
  }

  private Journal open(String writer, int window) {
    return Journal.open(JournalOptions.newBuilder(dir(), writer, SIGNER)
        .setCheckpointInterval(Duration.ZERO).setCheckpointEvery(0).setKeyWindow(window).build());
  }

  private static io.onceport.workflow.dispatch.DispatchRequest request(String executionId, int attempt) {
    return new io.onceport.workflow.dispatch.DispatchRequest(executionId, "fp_1",
        JournalDispatchJournalTest.request(1).contract(), "{}", attempt);
  }

  @Test
  void aSendOlderThanTheJournalsKeyWindowIsStillFound() {
    try (Journal j = open("w1", 4); SendLedger ledger = SendLedger.open(dir())) {
      JournalDispatchJournal hook = new JournalDispatchJournal(j, ledger);
      hook.dispatched(request("act_old", 1));
      for (int i = 0; i < 20; i++) {
        j.append(Map.of("n", i), "act_other/accepted/" + i); // pushes act_old far out of the 4-entry window
      }
      assertTrue(j.find("act_old/dispatched/1").isEmpty(), "the window forgot it");
      ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> hook.dispatched(request("act_old", 1)));
      assertEquals(ErrorTypes.SENT_BEFORE, f.getType());
      hook.dispatched(request("act_old", 2));
    }
  }

  @Test
  void aSendByAnotherWriterSharingTheDirectoryIsFound() {
    try (Journal one = open("w1", 1024); SendLedger ledgerOne = SendLedger.open(dir())) {
      new JournalDispatchJournal(one, ledgerOne).dispatched(request("act_a", 1));
      // a second worker (its own writer id, segment and ledger) started afterwards
      try (Journal two = open("w2", 1024); SendLedger ledgerTwo = SendLedger.open(dir())) {
        JournalDispatchJournal hookTwo = new JournalDispatchJournal(two, ledgerTwo);
        ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> hookTwo.dispatched(request("act_a", 1)));
        assertEquals(ErrorTypes.SENT_BEFORE, f.getType());
        // and what the second writes afterwards is seen by the first
        hookTwo.dispatched(request("act_b", 1));
        assertTrue(ledgerOne.contains("act_b/dispatched/1"));
      }
    }
  }

  @Test
  void aNewSegmentOfAWriterThatJoinedLaterIsListed() {
    try (SendLedger early = SendLedger.open(dir())) {
      assertFalse(early.contains("act_c/dispatched/1"));
      try (Journal late = open("w-late", 1024); SendLedger own = SendLedger.open(dir())) {
        new JournalDispatchJournal(late, own).dispatched(request("act_c", 1));
      }
      assertTrue(early.contains("act_c/dispatched/1"));
    }
  }

  @Test
  void theLedgerIsReadAgainFromTheSegmentsAfterARestart() {
    try (Journal j = open("w1", 1024); SendLedger ledger = SendLedger.open(dir())) {
      new JournalDispatchJournal(j, ledger).dispatched(request("act_d", 3));
    }
    try (Journal j = open("w1", 1024); SendLedger ledger = SendLedger.open(dir())) {
      assertEquals(1, ledger.size());
      ApplicationFailure f = assertThrows(ApplicationFailure.class,
          () -> new JournalDispatchJournal(j, ledger).dispatched(request("act_d", 3)));
      assertEquals(ErrorTypes.SENT_BEFORE, f.getType());
    }
  }

  @Test
  void anIncompleteLineIsNotASendUntilItsNewlineIsWritten() throws Exception {
    Files.createDirectories(dir());
    Path other = dir().resolve("w9.jsonl");
    String line = "{\"at\":\"2026-12-06T00:00:00Z\",\"attempt\":1,\"detail\":{},\"execution_id\":\"act_e\",\"fingerprint\":\"fp\","
        + "\"hash\":\"00\",\"key\":\"act_e/dispatched/1\",\"prev\":\"00\",\"seq\":1,\"time\":\"2026-12-06T00:00:00Z\","
        + "\"transition\":\"dispatched\"}";
    Files.writeString(other, line.substring(0, 40), StandardCharsets.UTF_8);
    try (SendLedger ledger = SendLedger.open(dir())) {
      assertFalse(ledger.contains("act_e/dispatched/1"));
      Files.writeString(other, line.substring(40) + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
      assertTrue(ledger.contains("act_e/dispatched/1"));
      assertFalse(ledger.contains("act_e/dispatched/2"));
    }
  }

  @Test
  void processesSharingTheDirectoryNeverBothSendOneKey() throws Exception {
    int keys = 300;
    List<Process> children = new ArrayList<>();
    List<java.io.BufferedReader> outputs = new ArrayList<>();
    try {
      for (String writer : List.of("p1", "p2", "p3")) {
        Process p = JournalChild.start("claim", tmp, writer, SIGNER, Integer.toString(keys));
        children.add(p);
        java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        outputs.add(r);
        assertEquals("ready", r.readLine());
      }
      for (Process p : children) {
        p.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().flush();
      }
      int[] sent = new int[keys];
      for (java.io.BufferedReader r : outputs) {
        for (String line; !(line = r.readLine()).equals("done"); ) {
          if (line.startsWith("sent ")) {
            sent[Integer.parseInt(line.substring(5))]++;
          }
        }
      }
      for (int i = 0; i < keys; i++) {
        assertEquals(1, sent[i], "act_race" + i + " was sent by exactly one process");
      }
      for (Process p : children) {
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
      }
    } finally {
      children.forEach(Process::destroyForcibly); // only the children this test started
    }
    try (SendLedger ledger = SendLedger.open(dir())) {
      assertEquals(keys, ledger.size(), "one dispatched line per key across the three segments");
    }
  }

  @Test
  void onlyTheEntrysOwnKeyCountsNotAKeyInsideItsDetail() throws Exception {
    Files.createDirectories(dir());
    String line = "{\"at\":\"t\",\"attempt\":1,\"detail\":{\"key\":\"act_f/dispatched/9\"},\"execution_id\":\"act_g\","
        + "\"fingerprint\":\"fp\",\"hash\":\"00\",\"key\":\"act_g/dispatched/1\",\"prev\":\"00\",\"seq\":1,\"time\":\"t\","
        + "\"transition\":\"dispatched\"}\n";
    Files.writeString(dir().resolve("w8.jsonl"), line, StandardCharsets.UTF_8);
    try (SendLedger ledger = SendLedger.open(dir())) {
      assertTrue(ledger.contains("act_g/dispatched/1"));
      assertFalse(ledger.contains("act_f/dispatched/9"));
      assertEquals(1, ledger.size());
    }
  }

  @Test
  void aKeyClaimedByManyAtOnceIsClaimedOnce() throws Exception {
    int claimants = 8;
    List<SendLedger> ledgers = new ArrayList<>();
    List<Journal> journals = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(claimants);
    try {
      for (int i = 0; i < claimants; i++) {
        journals.add(open("w" + i, 1024));
        ledgers.add(SendLedger.open(dir()));
      }
      for (int round = 0; round < 20; round++) {
        String executionId = "act_race" + round;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> sent = new ArrayList<>();
        for (int i = 0; i < claimants; i++) {
          JournalDispatchJournal hook = new JournalDispatchJournal(journals.get(i), ledgers.get(i));
          sent.add(pool.submit(() -> {
            go.await();
            try {
              hook.dispatched(request(executionId, 1));
              return true;
            } catch (ApplicationFailure f) {
              assertEquals(ErrorTypes.SENT_BEFORE, f.getType());
              return false;
            }
          }));
        }
        go.countDown();
        int winners = 0;
        for (Future<Boolean> f : sent) {
          winners += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertEquals(1, winners, "round " + round);
      }
    } finally {
      pool.shutdownNow();
      ledgers.forEach(SendLedger::close);
      journals.forEach(Journal::close);
    }
    long lines = 0;
    for (int i = 0; i < claimants; i++) {
      lines += Files.readAllLines(dir().resolve("w" + i + ".jsonl")).size();
    }
    assertEquals(20, lines, "one dispatched line per execution in all segments together");
  }
}
