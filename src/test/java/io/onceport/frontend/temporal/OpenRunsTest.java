package io.onceport.frontend.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.frontend.gateway.BoundedMap;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which run of an intent a call belongs to: the one that was open when the call arrived. */
class OpenRunsTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final OpenRuns runs = new OpenRuns(now::get);

  @Test
  void aCallThatArrivedBeforeThisFrontEndReportedTheDeliveryIsBoundToTheRunAndOneAfterIsNot() {
    runs.open("wf", "run-1", "act_1", 10);
    runs.deliveryReported("wf", "run-1", 50);
    assertEquals("run-1", runs.boundRun("wf", 49).orElseThrow().runId(), "arrived while open");
    assertTrue(runs.boundRun("wf", 50).isEmpty(), "arrived after the delivery was reported: a new intent");
    assertTrue(runs.boundRun("wf", 49).orElseThrow().deliveredAfter(49));
  }

  @Test
  void aRunSeenClosedBindsOnlyCallsThatArrivedBefore() {
    runs.open("wf", "run-1", "act_1", 10);
    runs.closed("wf", "run-1", 70);
    assertEquals(Optional.of("run-1"), runs.boundRun("wf", 69).map(OpenRuns.Run::runId));
    assertTrue(runs.boundRun("wf", 71).isEmpty());
  }

  @Test
  void aStragglerThatArrivedWhileTheOlderRunWasOpenIsBoundToItAfterANewerRunTookOver() {
    runs.open("wf", "run-1", "act_1", 10);
    runs.deliveryReported("wf", "run-1", 50);
    runs.open("wf", "run-2", "act_2", 60);
    assertEquals("run-1", runs.boundRun("wf", 40).orElseThrow().runId(), "arrived at 40, while run-1 was open");
    assertEquals("run-2", runs.boundRun("wf", 65).orElseThrow().runId());
    // Arrived after run-1's delivery, while run-2 (the next intent's run) was being started: it belongs to run-2.
    assertEquals("run-2", runs.boundRun("wf", 55).orElseThrow().runId());
  }

  @Test
  void reportsForTheSameRunKeepTheFirstMarkAndALateAnswerOfTheOlderRunDoesNotReplaceTheNewer() {
    runs.open("wf", "run-1", "act_1", 10);
    runs.deliveryReported("wf", "run-1", 50);
    runs.deliveryReported("wf", "run-1", 90);
    assertTrue(runs.boundRun("wf", 60).isEmpty(), "the first report counts");
    runs.open("wf", "run-2", "act_2", 100);
    runs.open("wf", "run-1", "act_1", 110);
    assertEquals("run-2", runs.boundRun("wf", 120).orElseThrow().runId());
  }

  @Test
  void forgottenAfterTenMinutesUnused() {
    runs.open("wf", "run-1", "act_1", 10);
    now.addAndGet(Duration.ofMinutes(11).toNanos());
    assertEquals(0, runs.size());
    assertTrue(runs.boundRun("wf", 20).isEmpty());
  }

  @Test
  void aDeliveredRunIsForgottenHalfAMinuteAfterItsLastUseWhileAnOpenOneStaysTenMinutes() {
    long t = now.get();
    runs.open("wf-done", "run-1", "act_1", t);
    runs.open("wf-open", "run-2", "act_2", t);
    runs.deliveryReported("wf-done", "run-1", t + 5);
    assertEquals(1, runs.settledSize());
    now.addAndGet(Duration.ofSeconds(29).toNanos());
    assertEquals("run-1", runs.boundRun("wf-done", t + 1).orElseThrow().runId(), "29 s after the delivery: still known");
    now.addAndGet(Duration.ofSeconds(31).toNanos());
    assertTrue(runs.boundRun("wf-done", t + 1).isEmpty(), "31 s after its last use: forgotten");
    assertEquals("run-2", runs.boundRun("wf-open", t + 1).orElseThrow().runId(), "the open run is kept");
    now.addAndGet(Duration.ofMinutes(9).toNanos());
    assertEquals(1, runs.size());
  }

  @Test
  void aRunSeenClosedIsSettledButOneWhoseOlderRunIsStillOpenIsNot() {
    long t = now.get();
    runs.open("wf", "run-1", "act_1", t);
    runs.open("wf", "run-2", "act_2", t + 10); // run-1 not seen closed: a straggler may still belong to it
    runs.closed("wf", "run-2", t + 20);
    assertEquals(0, runs.settledSize());
    runs.closed("wf", "run-1", t + 30);
    assertEquals(1, runs.settledSize());
  }

  @Test
  void aCallThatWaitedLongerThanASettledRunIsHeldMayHaveLostItsRun() {
    long arrival = now.get();
    assertFalse(runs.mayHaveForgotten(arrival), "processed at once");
    now.addAndGet(Duration.ofSeconds(29).toNanos());
    assertFalse(runs.mayHaveForgotten(arrival));
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    assertTrue(runs.mayHaveForgotten(arrival), "31 s between arrival and processing");
  }

  @Test
  void aCallThatArrivedBeforeTheSizeBoundPushedARunOutMayHaveLostItsRun() {
    OpenRuns small = new OpenRuns(new BoundedMap<>(2, OpenRuns.MAX_AGE, OpenRuns.SETTLED_AGE, OpenRuns.Run::settled, now::get),
        now::get);
    long arrival = now.get();
    small.open("wf-1", "run-1", "act_1", arrival);
    small.open("wf-2", "run-2", "act_2", arrival);
    assertFalse(small.mayHaveForgotten(arrival));
    now.addAndGet(1_000);
    small.open("wf-3", "run-3", "act_3", now.get());
    assertTrue(small.boundRun("wf-1", arrival).isEmpty(), "pushed out by size");
    assertTrue(small.mayHaveForgotten(arrival));
    assertFalse(small.mayHaveForgotten(now.get() + 1), "a call that arrived after it lost nothing");
  }

  @Test
  void aCallThatArrivedWhileARunPushedOutByTheSettledBoundWasOpenAsksTheEngine() {
    OpenRuns capped = new OpenRuns(new BoundedMap<>(100, 1, OpenRuns.MAX_AGE, OpenRuns.SETTLED_AGE, OpenRuns.Run::settled,
        now::get), now::get);
    long arrival = now.get();
    capped.open("wf-1", "run-1", "act_1", arrival);
    now.addAndGet(1_000);
    capped.deliveryReported("wf-1", "run-1", now.get());
    long later = now.addAndGet(1_000);
    capped.open("wf-2", "run-2", "act_2", later);
    capped.deliveryReported("wf-2", "run-2", now.addAndGet(1_000)); // the second settled run pushes out the first
    assertEquals(1, capped.settledSize());
    assertTrue(capped.boundRun("wf-1", arrival).isEmpty(), "pushed out by the settled bound");
    assertTrue(capped.mayHaveForgotten(arrival), "it arrived while wf-1's run was open");
    assertFalse(capped.mayHaveForgotten(later), "it arrived after wf-1's run was delivered: nothing it needs is gone");
  }
}
