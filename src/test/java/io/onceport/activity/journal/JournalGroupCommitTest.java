package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two durability levels of {@link Journal}: synchronous appends return once forced;
 * asynchronous appends return once written and report durability through their future; a force
 * covers everything before it; a failed force fails what waits; a machine crash loses only entries
 * never reported durable.
 */
@Timeout(60)
class JournalGroupCommitTest {
  static final NoteSigner SIGNER = NoteSigner.generate("group-commit-test");
  @TempDir Path tmp;
  final AtomicReference<FailingFileChannel> failing = new AtomicReference<>();
  final AtomicReference<VolatileCacheChannel> cached = new AtomicReference<>();

  Path segment() {
    return tmp.resolve("activity/w1.jsonl");
  }

  Journal openFailing() {
    return Journal.open(JournalOptions.newBuilder(tmp.resolve("activity"), "w1", SIGNER)
        .setCheckpointInterval(Duration.ZERO).setCheckpointEvery(0)
        .setChannelOpener(p -> {
          FailingFileChannel c = new FailingFileChannel(JournalOptions.DEFAULT_OPENER.open(p));
          failing.set(c);
          return c;
        }).build());
  }

  Journal openCached() {
    return Journal.open(JournalOptions.newBuilder(tmp.resolve("activity"), "w1", SIGNER)
        .setCheckpointInterval(Duration.ZERO).setCheckpointEvery(0)
        .setChannelOpener(p -> {
          VolatileCacheChannel c = new VolatileCacheChannel(JournalOptions.DEFAULT_OPENER.open(p));
          cached.set(c);
          return c;
        }).build());
  }

  Journal openPlain() {
    return Journal.open(JournalOptions.newBuilder(tmp.resolve("activity"), "w1", SIGNER)
        .setCheckpointInterval(Duration.ZERO).build());
  }

  @Test
  void anAsynchronousAppendReturnsOnceWrittenAndCompletesOnceForced() throws Exception {
    try (Journal j = openFailing()) {
      CountDownLatch gate = new CountDownLatch(1);
      failing.get().forceGate = gate;
      Journal.Pending p = j.appendAsync(Map.of("transition", "accepted"), "e1/accepted/1");
      assertEquals(1, p.appended().seq());
      assertFalse(p.appended().existing());
      // written: the line is in the file (the page cache) while its force is still held
      assertEquals(1, Files.readAllLines(segment()).size());
      Thread.sleep(50);
      assertFalse(p.durable().isDone(), "not durable before the force returned");
      gate.countDown();
      assertEquals(p.appended(), p.durable().get(10, TimeUnit.SECONDS));
      assertTrue(j.fsyncCount() >= 1, "the background syncer forced: " + j.fsyncCount());
    }
  }

  @Test
  void aSynchronousAppendAlsoMakesEveryEarlierAsynchronousEntryDurable() throws Exception {
    try (Journal j = openFailing()) {
      CountDownLatch gate = new CountDownLatch(1);
      failing.get().forceGate = gate;
      List<CompletableFuture<Appended>> earlier = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        earlier.add(j.appendAsync(Map.of("i", i), "async/" + i).durable());
      }
      CompletableFuture<Appended> sync = CompletableFuture.supplyAsync(() -> j.append(Map.of("i", 3), "sync/3"));
      Thread.sleep(50);
      assertFalse(sync.isDone(), "a synchronous append waits for its force");
      gate.countDown();
      assertEquals(4, sync.get(10, TimeUnit.SECONDS).seq());
      for (CompletableFuture<Appended> f : earlier) {
        assertTrue(f.isDone() && !f.isCompletedExceptionally(), "durable once a later entry is: " + f);
      }
      Journal.Pending again = j.appendAsync(Map.of("i", 0), "async/0");
      assertTrue(again.appended().existing());
      assertTrue(again.durable().isDone(), "an existing durable entry is durable at once");
    }
  }

  @Test
  void aMachineCrashLosesOnlyEntriesThatWereNeverReportedDurable() throws Exception {
    Journal j = openCached();
    Appended first = j.appendAsync(Map.of("transition", "accepted"), "e1/accepted/1").durable().get(10, TimeUnit.SECONDS);
    Appended dispatched = j.append(Map.of("transition", "dispatched"), "e1/dispatched/1");
    CountDownLatch gate = new CountDownLatch(1);
    cached.get().forceGate = gate;
    Journal.Pending outcome = j.appendAsync(Map.of("transition", "outcome"), "e1/outcome/1");
    Journal.Pending delivered = j.appendAsync(Map.of("transition", "delivered"), "e1/delivered/1");
    Thread.sleep(50);
    assertFalse(outcome.durable().isDone());
    cached.get().crash(); // power lost: the cache is gone, the held force fails
    ExecutionException e = assertThrows(ExecutionException.class, () -> outcome.durable().get(10, TimeUnit.SECONDS));
    assertEquals("journal activity/w1 cannot write durably: the machine crashed", e.getCause().getMessage());
    assertThrows(ExecutionException.class, () -> delivered.durable().get(10, TimeUnit.SECONDS));
    j.close(); // releases the lock; nothing more reaches the file

    try (Journal reopened = openPlain()) {
      assertEquals(2, reopened.size(), "what was reported durable survived, what was not is gone");
      assertEquals(first.seq(), reopened.find("e1/accepted/1").orElseThrow().seq());
      assertEquals(dispatched.seq(), reopened.find("e1/dispatched/1").orElseThrow().seq());
      assertTrue(reopened.find("e1/outcome/1").isEmpty());
      assertEquals(3, reopened.append(Map.of("transition", "outcome"), "e1/outcome/1").seq());
    }
    assertTrue(new JournalVerifier(SIGNER.verifier()).verify(segment(), null).ok());
  }

  @Test
  void aFailedForceFailsWaitingAppendsAndStopsTheJournal() throws Exception {
    try (Journal j = openFailing()) {
      j.append(Map.of("i", 0), "k0");
      failing.get().forceFailure = new java.io.IOException("Input/output error");
      Journal.Pending p = j.appendAsync(Map.of("i", 1), "k1");
      ExecutionException e = assertThrows(ExecutionException.class, () -> p.durable().get(10, TimeUnit.SECONDS));
      assertEquals("journal activity/w1 cannot write durably: Input/output error", e.getCause().getMessage());
      failing.get().forceFailure = null;
      JournalException after = assertThrows(JournalException.class, () -> j.appendAsync(Map.of("i", 2), "k2"));
      assertEquals("journal activity/w1 cannot write durably: Input/output error", after.getMessage());
      assertThrows(JournalException.class, () -> j.append(Map.of("i", 2), "k2"));
    }
  }

  @Test
  void closeMakesPendingAsynchronousEntriesDurable() throws Exception {
    Journal.Pending p;
    try (Journal j = openFailing()) {
      CountDownLatch gate = new CountDownLatch(1);
      failing.get().forceGate = gate;
      p = j.appendAsync(Map.of("i", 0), "k0");
      gate.countDown();
    }
    assertTrue(p.durable().isDone() && !p.durable().isCompletedExceptionally(), p.durable().toString());
    try (Journal reopened = openPlain()) {
      assertEquals(1, reopened.size());
    }
  }

  @Test
  void sixteenAsynchronousWritersShareFewForcesAndTheJournalVerifies() throws Exception {
    int threads = 16;
    int perThread = 100;
    try (Journal j = openPlain()) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<List<CompletableFuture<Appended>>>> writers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        writers.add(pool.submit(() -> {
          List<CompletableFuture<Appended>> mine = new ArrayList<>();
          for (int i = 0; i < perThread; i++) {
            mine.add(j.appendAsync(Map.of("thread", id, "i", i), "t" + id + "/" + i).durable());
          }
          return mine;
        }));
      }
      for (Future<List<CompletableFuture<Appended>>> w : writers) {
        for (CompletableFuture<Appended> f : w.get(30, TimeUnit.SECONDS)) {
          f.get(30, TimeUnit.SECONDS);
        }
      }
      pool.shutdown();
      assertEquals(threads * perThread, j.size());
      assertTrue(j.fsyncCount() < threads * perThread / 4,
          "fsyncs " + j.fsyncCount() + " for " + threads * perThread + " asynchronous appends");
    }
    JournalVerifier.Result r = new JournalVerifier(SIGNER.verifier()).verify(segment(), null);
    assertTrue(r.ok(), r.summary());
    assertEquals(threads * perThread, r.entries());
  }

  @Test
  void sixteenSynchronousWritersShareForcesAndEveryReturnedAppendSurvivesAMachineCrash() throws Exception {
    int threads = 16;
    int perThread = 100;
    Journal j = openCached();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<Integer>> writers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      writers.add(pool.submit(() -> {
        for (int i = 0; i < perThread; i++) {
          j.append(Map.of("thread", id, "i", i), "t" + id + "/" + i);
        }
        return perThread;
      }));
    }
    for (Future<Integer> w : writers) {
      assertEquals(perThread, w.get(30, TimeUnit.SECONDS));
    }
    pool.shutdown();
    long forces = j.fsyncCount();
    cached.get().crash(); // power lost right after the last append returned
    j.close();
    assertTrue(forces < threads * perThread / 4,
        "fsyncs " + forces + " for " + threads * perThread + " synchronous appends by " + threads + " writers");
    try (Journal reopened = openPlain()) {
      assertEquals(threads * perThread, reopened.size(), "every append that returned was durable");
    }
    assertTrue(new JournalVerifier(SIGNER.verifier()).verify(segment(), null).ok());
  }

  @Test
  void aLoneSynchronousWriterAfterABurstForcesEachEntryByItself() throws Exception {
    try (Journal j = openPlain()) {
      // sixteen writers first: the adaptive gather remembers a large batch
      ExecutorService pool = Executors.newFixedThreadPool(16);
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        int id = t;
        writers.add(pool.submit(() -> j.append(Map.of("thread", id), "warm/" + id)));
      }
      for (Future<?> w : writers) {
        w.get(30, TimeUnit.SECONDS);
      }
      pool.shutdown();
      long before = j.fsyncCount();
      for (int i = 0; i < 20; i++) {
        Appended a = j.append(Map.of("i", i), "lone/" + i);
        assertEquals(16 + i + 1, a.seq());
      }
      assertEquals(20, j.fsyncCount() - before, "a lone writer's every entry is its own force");
    }
  }
}
