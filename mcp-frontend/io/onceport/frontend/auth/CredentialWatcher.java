package io.onceport.frontend.auth;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a running front end learns that an agent's token was removed or replaced — by {@code onceport
 * agent remove|add} in another process, on this or another front end sharing the data directory:
 * it looks at {@code agents.json} every {@link #INTERVAL} (a {@code stat}; the file is re-read only
 * when it changed, {@link AgentRegistry#generations()}), and for every actor whose credential
 * generation went away tells the listener, which ends that credential's waits, streams and
 * sessions at once — also for a token added, used and removed between two looks ({@link
 * AgentRegistry#takeUsed()}). A request arriving meanwhile is refused by its own authentication, which reads
 * the same file. Polling rather than a file-system watch: a watch misses atomic renames on some
 * file systems (bind mounts, NFS) and a stat every quarter second costs nothing measurable.
 *
 * <p>Ending a credential's sessions signals their session workflows, which can fail while the
 * engine is busy or briefly unreachable. A listener that throws is therefore called again for that
 * credential — after 1, 2, 4 … looks, at most every {@link #MAX_RETRY_LOOKS} looks — until it
 * returns normally: a removal is never forgotten because one signal failed.
 */
public final class CredentialWatcher implements AutoCloseable {
  /** How often {@code agents.json} is looked at: "at once" means within this. */
  public static final Duration INTERVAL = Duration.ofMillis(250);
  /** The longest pause between two attempts to end one removed credential's sessions, in looks (30 s). */
  static final int MAX_RETRY_LOOKS = 120;
  private static final Logger log = LoggerFactory.getLogger(CredentialWatcher.class);

  /** Told once per credential that went away; told again later if it throws. */
  @FunctionalInterface
  public interface Listener {
    void removed(String actor, String generation);
  }

  /** A removed credential whose listener call failed: retried when {@code looks} reaches {@code due}. */
  private record Pending(String actor, String generation, int attempts, long due) {}

  private final AgentRegistry registry;
  private final Listener listener;
  private final ScheduledExecutorService timer;
  private Map<String, String> known;
  private final List<Pending> pending = new ArrayList<>();
  private long looks;

  private CredentialWatcher(AgentRegistry registry, Listener listener) {
    this.registry = Objects.requireNonNull(registry, "registry == null");
    this.listener = Objects.requireNonNull(listener, "listener == null");
    this.known = registry.generations();
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "onceport-credential-watch");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts watching; the credentials registered now are the baseline. */
  public static CredentialWatcher start(AgentRegistry registry, Listener listener) {
    CredentialWatcher w = new CredentialWatcher(registry, listener);
    w.timer.scheduleWithFixedDelay(w::check, INTERVAL.toMillis(), INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    return w;
  }

  /** One look: tells the listener of every credential that went away since the last, and retries the failed ones that are due. */
  synchronized void check() {
    looks++;
    retryDue();
    Set<AgentRegistry.Generation> used = registry.takeUsed(); // before the file: a use after this look is seen by the next
    Map<String, String> now;
    try {
      now = registry.generations();
    } catch (RuntimeException e) {
      log.warn("cannot read the agent registry: {}", e.getMessage());
      used.forEach(g -> known.putIfAbsent(g.actor(), g.generation()));
      return; // keep the last known state (and what was used); authentication fails closed meanwhile
    }
    // What was registered at the last look, and what authenticated since (a token added, used and
    // removed between two looks is in the second only).
    Set<AgentRegistry.Generation> before = new LinkedHashSet<>();
    known.forEach((actor, generation) -> before.add(new AgentRegistry.Generation(actor, generation)));
    before.addAll(used);
    for (AgentRegistry.Generation g : before) {
      if (!g.generation().equals(now.get(g.actor()))) {
        tell(g.actor(), g.generation(), 0);
      }
    }
    known = now;
  }

  /** How many removed credentials still wait for their sessions to be ended (a retry is due later). */
  synchronized int pending() {
    return pending.size();
  }

  private void retryDue() {
    List<Pending> due = pending.stream().filter(p -> p.due() <= looks).toList();
    pending.removeAll(due);
    due.forEach(p -> tell(p.actor(), p.generation(), p.attempts()));
  }

  private void tell(String actor, String generation, int failedBefore) {
    try {
      listener.removed(actor, generation);
    } catch (RuntimeException failure) {
      int attempts = failedBefore + 1;
      long wait = Math.min(1L << Math.min(attempts - 1, 30), MAX_RETRY_LOOKS);
      pending.add(new Pending(actor, generation, attempts, looks + wait));
      log.warn("ending the waits and sessions of {}'s removed credential failed (attempt {}, next in {} ms): {}",
          actor, attempts, wait * INTERVAL.toMillis(), failure.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
