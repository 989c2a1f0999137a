package io.onceport.activity.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.execution.AnswerDesk;
import io.onceport.workflow.execution.DeliveryReport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ReportWaitsTest {
  private static final DeliveryReport REPORT = new DeliveryReport("call_1", true, "2026-12-01T00:00:00Z", "");

  /** A hand-over as the front end's slot behaves: the report and abandoning decide once. */
  private static final class FakeHandoff implements AnswerDesk.Handoff {
    final CompletableFuture<DeliveryReport> report = new CompletableFuture<>();
    final AtomicBoolean abandoned = new AtomicBoolean();
    final AtomicInteger abandons = new AtomicInteger();

    /** The front end reports; false when the send already stopped waiting (the report goes by signal then). */
    synchronized boolean deliver(DeliveryReport r) {
      if (abandoned.get()) {
        return false;
      }
      report.complete(r);
      return true;
    }

    @Override
    public String callId() {
      return "call_1";
    }

    @Override
    public DeliveryReport poll(long timeoutMillis) {
      try {
        return report.get(timeoutMillis, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        return null;
      }
    }

    @Override
    public void whenReported(java.util.function.Consumer<DeliveryReport> then) {
      report.thenAccept(then);
    }

    @Override
    public synchronized DeliveryReport abandon() {
      abandons.incrementAndGet();
      abandoned.set(true);
      return report.getNow(null);
    }
  }

  private static final class RecordingEnding implements ReportWaits.Ending {
    final List<DeliveryReport> completions = new CopyOnWriteArrayList<>();
    final CompletableFuture<DeliveryReport> completed = new CompletableFuture<>();
    final AtomicInteger heartbeats = new AtomicInteger();
    volatile boolean gone;
    volatile Thread completedOn;

    @Override
    public void complete(DeliveryReport reportOrNull) {
      completedOn = Thread.currentThread();
      completions.add(reportOrNull == null ? new DeliveryReport("none", false, "-", "") : reportOrNull);
      completed.complete(reportOrNull);
    }

    @Override
    public void heartbeat() {
      heartbeats.incrementAndGet();
      if (gone) {
        throw new IllegalStateException("activity cancelled");
      }
    }
  }

  @Test
  void aReportEndsTheWaitOnceWithItOffTheCallersThread() throws Exception {
    try (ReportWaits waits = new ReportWaits(Duration.ofSeconds(20), Duration.ofSeconds(10))) {
      FakeHandoff handoff = new FakeHandoff();
      RecordingEnding ending = new RecordingEnding();
      waits.await(handoff, ending);
      assertEquals(1, waits.pending());
      assertTrue(ending.completions.isEmpty(), "await returns before any report");

      assertTrue(handoff.deliver(REPORT));
      assertSame(REPORT, ending.completed.get(10, TimeUnit.SECONDS));
      assertFalse(ending.completedOn == Thread.currentThread(), "completing is a round trip: not on the reporter's thread");
      assertEquals(0, waits.pending());
      assertEquals(0, handoff.abandons.get(), "a report that came is not abandoned");
      assertEquals(1, ending.completions.size());
    }
  }

  @Test
  void withoutAReportTheWaitEndsAtItsDeadlineAndALateReportGoesTheUsualWay() throws Exception {
    try (ReportWaits waits = new ReportWaits(Duration.ofMillis(200), Duration.ofSeconds(10))) {
      FakeHandoff handoff = new FakeHandoff();
      RecordingEnding ending = new RecordingEnding();
      waits.await(handoff, ending);
      assertNull(ending.completed.get(10, TimeUnit.SECONDS));
      assertEquals(1, handoff.abandons.get());
      assertFalse(handoff.deliver(REPORT), "after the deadline the report is not the hand-over's");
      assertEquals(1, ending.completions.size());
      assertEquals(0, waits.pending());
    }
  }

  @Test
  void heartbeatsWhileWaitingAndAFailedHeartbeatEndsTheWait() throws Exception {
    try (ReportWaits waits = new ReportWaits(Duration.ofSeconds(20), Duration.ofMillis(50))) {
      FakeHandoff handoff = new FakeHandoff();
      RecordingEnding ending = new RecordingEnding();
      waits.await(handoff, ending);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (ending.heartbeats.get() < 2 && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      assertTrue(ending.heartbeats.get() >= 2, "heartbeats while the report is due");
      assertTrue(ending.completions.isEmpty());
      ending.gone = true;
      assertNull(ending.completed.get(10, TimeUnit.SECONDS), "a cancelled activity stops waiting, without a report");
      assertEquals(1, ending.completions.size());
    }
  }

  @Test
  void closingEndsEveryWaitNow() throws Exception {
    ReportWaits waits = new ReportWaits(Duration.ofSeconds(20), Duration.ofSeconds(10));
    FakeHandoff first = new FakeHandoff();
    FakeHandoff second = new FakeHandoff();
    RecordingEnding a = new RecordingEnding();
    RecordingEnding b = new RecordingEnding();
    waits.await(first, a);
    waits.await(second, b);
    waits.close();
    assertNull(a.completed.get(10, TimeUnit.SECONDS));
    assertNull(b.completed.get(10, TimeUnit.SECONDS));
    assertFalse(first.deliver(REPORT));
    assertEquals(0, waits.pending());
  }

  @Test
  void manyWaitsHoldNoThreadEach() throws Exception {
    try (ReportWaits waits = new ReportWaits(Duration.ofSeconds(20), Duration.ofSeconds(10))) {
      int threadsBefore = Thread.activeCount();
      List<FakeHandoff> handoffs = new CopyOnWriteArrayList<>();
      List<RecordingEnding> endings = new CopyOnWriteArrayList<>();
      for (int i = 0; i < 500; i++) {
        FakeHandoff h = new FakeHandoff();
        RecordingEnding e = new RecordingEnding();
        handoffs.add(h);
        endings.add(e);
        waits.await(h, e);
      }
      assertEquals(500, waits.pending());
      assertTrue(Thread.activeCount() - threadsBefore <= 3, "500 waits, at most the timer and two completion threads more");
      for (FakeHandoff h : handoffs) {
        assertTrue(h.deliver(REPORT));
      }
      for (RecordingEnding e : endings) {
        assertSame(REPORT, e.completed.get(10, TimeUnit.SECONDS));
      }
      assertEquals(0, waits.pending());
    }
  }

  @Test
  void awaitIdleReturnsOnceEveryWaitEnded() throws Exception {
    try (ReportWaits waits = new ReportWaits(Duration.ofSeconds(20), Duration.ofSeconds(10))) {
      assertTrue(waits.awaitIdle(Duration.ZERO), "nothing pending");
      FakeHandoff handoff = new FakeHandoff();
      RecordingEnding ending = new RecordingEnding();
      waits.await(handoff, ending);
      assertFalse(waits.awaitIdle(Duration.ofMillis(100)), "a report is still due");
      new Thread(() -> handoff.deliver(REPORT)).start();
      assertTrue(waits.awaitIdle(Duration.ofSeconds(10)));
      assertSame(REPORT, ending.completed.get(10, TimeUnit.SECONDS));
    }
  }
}
