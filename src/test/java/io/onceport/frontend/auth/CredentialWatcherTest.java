package io.onceport.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.Conditions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A removed credential's sessions are ended by signalling their session workflows, which can fail
 * while the engine is busy; the watcher tells its listener again until it succeeds, and tells a
 * removal that succeeded exactly once. Real registry file, real watcher thread.
 */
@Timeout(30)
class CredentialWatcherTest {
  @TempDir Path data;

  @Test
  void aRemovalWhoseSessionsCouldNotBeEndedIsToldAgainUntilItSucceeds() throws Exception {
    AgentRegistry agents = new AgentRegistry(data);
    agents.add("agent:flaky");
    agents.add("agent:steady");
    String flakyGeneration = agents.generation("agent:flaky").orElseThrow();
    List<String> told = new CopyOnWriteArrayList<>();
    AtomicInteger failuresLeft = new AtomicInteger(2);
    try (CredentialWatcher watcher = CredentialWatcher.start(agents, (actor, generation) -> {
      told.add(actor + "/" + generation);
      if (actor.equals("agent:flaky") && failuresLeft.getAndDecrement() > 0) {
        throw new IllegalStateException("the engine is busy (test)");
      }
    })) {
      agents.remove("agent:flaky");
      agents.remove("agent:steady");
      Conditions.await("three attempts for the flaky removal", Duration.ofSeconds(10),
          () -> told.stream().filter(t -> t.startsWith("agent:flaky/")).count() == 3);
      Conditions.await("nothing left to retry", Duration.ofSeconds(5), () -> watcher.pending() == 0);
      Thread.sleep(4 * CredentialWatcher.INTERVAL.toMillis()); // a few more looks: nothing is told again
      assertEquals(3, told.stream().filter(t -> t.equals("agent:flaky/" + flakyGeneration)).count(), told.toString());
      assertEquals(1, told.stream().filter(t -> t.startsWith("agent:steady/")).count(), told.toString());
    }
  }

  @Test
  void aReplacedTokenIsARemovalOfTheOldGenerationOnly() throws Exception {
    AgentRegistry agents = new AgentRegistry(data);
    agents.add("agent:rotated");
    String old = agents.generation("agent:rotated").orElseThrow();
    List<String> told = new CopyOnWriteArrayList<>();
    try (CredentialWatcher watcher = CredentialWatcher.start(agents, (actor, generation) -> told.add(actor + "/" + generation))) {
      agents.remove("agent:rotated");
      agents.add("agent:rotated");
      Conditions.await("the old generation told", Duration.ofSeconds(10), () -> !told.isEmpty());
      Thread.sleep(4 * CredentialWatcher.INTERVAL.toMillis());
      assertEquals(List.of("agent:rotated/" + old), told);
    }
  }

  /**
   * The full suite once added a token, used it and removed it within 250 ms: between two looks at
   * the file, so the watcher never saw it go and its session was never ended. Holding the
   * watcher's lock keeps it from looking while the token comes and goes.
   */
  @Test
  void aTokenAddedUsedAndRemovedBetweenTwoLooksIsStillToldGone() throws Exception {
    AgentRegistry agents = new AgentRegistry(data);
    agents.add("agent:other");
    List<String> told = new CopyOnWriteArrayList<>();
    try (CredentialWatcher watcher = CredentialWatcher.start(agents, (actor, generation) -> told.add(actor + "/" + generation))) {
      String generation;
      synchronized (watcher) {
        String token = agents.add("agent:brief");
        generation = agents.authenticator().authenticate(token).generation();
        assertTrue(agents.remove("agent:brief"));
      }
      Conditions.await("the brief token told gone", Duration.ofSeconds(10), () -> !told.isEmpty());
      Thread.sleep(4 * CredentialWatcher.INTERVAL.toMillis());
      assertEquals(List.of("agent:brief/" + generation), told);
    }
  }
}
