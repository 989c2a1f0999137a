package io.onceport.frontend.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.execution.AttachRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Followers of one attach in flight learn their place among the followers: the order their calls
 * are sent as evidence in, so a storm's callers beyond what a record itemizes need not wait to see
 * their own call on it.
 */
class IntentFlightsTest {
  private static AttachRequest call(String id) {
    return new AttachRequest(id, "hmac-sha256:f", id, "s1", null, null, "2025-06-18", "test/1", "127.0.0.1", "fe",
        "2026-01-01T00:00:00Z", 0);
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void theLeaderIsPositionZeroAndFollowersAreNumberedInTheOrderTheyJoined() throws Exception {
    IntentFlights flights = new IntentFlights();
    CountDownLatch leaderInFlight = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      Future<IntentFlights.Joined> leader = pool.submit(() -> flights.join("i", call("c0"), 10_000, r -> {
        leaderInFlight.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return null;
      }));
      assertTrue(leaderInFlight.await(10, TimeUnit.SECONDS));
      List<Future<IntentFlights.Joined>> followers = new ArrayList<>();
      for (int i = 1; i <= 5; i++) {
        String id = "c" + i;
        followers.add(pool.submit(() -> flights.join("i", call(id), 10_000, r -> {
          throw new AssertionError("a follower does not attach");
        })));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (followersOf(flights) < i && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      }
      release.countDown();
      IntentFlights.Joined led = leader.get(10, TimeUnit.SECONDS);
      assertTrue(led.leader());
      assertEquals(0, led.position());
      assertEquals(List.of("c1", "c2", "c3", "c4", "c5"), led.followers().stream().map(AttachRequest::callId).toList());
      List<IntentFlights.Joined> joined = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        IntentFlights.Joined f = followers.get(i).get(10, TimeUnit.SECONDS);
        assertEquals(i + 1, f.position(), "follower c" + (i + 1));
        assertTrue(!f.leader());
        joined.add(f);
      }
      // Evidence sent in two batches: the first two followers' calls, then the rest. Each follower
      // learns its own call was sent when its batch was, not when the storm's last one was.
      List<java.util.concurrent.CompletableFuture<Void>> sent = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sent.add(new java.util.concurrent.CompletableFuture<>());
      }
      led.evidenceSent(sent);
      sent.get(0).complete(null);
      sent.get(1).complete(null);
      assertTrue(joined.get(0).evidence().isDone() && joined.get(1).evidence().isDone());
      assertTrue(!joined.get(2).evidence().isDone() && !led.evidence().isDone(), "the second batch is not sent yet");
      sent.subList(2, 5).forEach(f -> f.complete(null));
      assertTrue(joined.get(4).evidence().isDone() && led.evidence().isDone());
    } finally {
      pool.shutdownNow();
    }
  }

  /** How many callers wait on the flight of intent "i" (0 when none is in flight). */
  private static int followersOf(IntentFlights flights) {
    return flights.followers("i");
  }
}
