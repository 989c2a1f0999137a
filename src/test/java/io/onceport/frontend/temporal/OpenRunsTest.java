package io.onceport.frontend.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.frontend.gateway.BoundedMap;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which run of an intent a call belongs to: the one that was open when the call arrived. */
class OpenRunsTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final OpenRuns runs = new OpenRuns(new BoundedMap<>(OpenRuns.MAX_RUNS, OpenRuns.MAX_AGE, now::get));

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
}
