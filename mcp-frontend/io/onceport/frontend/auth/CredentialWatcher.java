package io.onceport.frontend.auth;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
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
 * sessions at once. A request arriving meanwhile is refused by its own authentication, which reads
 * the same file. Polling rather than a file-system watch: a watch misses atomic renames on some
 * file systems (bind mounts, NFS) and a stat every quarter second costs nothing measurable.
 */
public final class CredentialWatcher implements AutoCloseable {
  /** How often {@code agents.json} is looked at: "at once" means within this. */
  public static final Duration INTERVAL = Duration.ofMillis(250);
  private static final Logger log = LoggerFactory.getLogger(CredentialWatcher.class);

  /** Told once per credential that went away. */
  @FunctionalInterface
  public interface Listener {
    void removed(String actor, String generation);
  }

  private final AgentRegistry registry;
  private final Listener listener;
  private final ScheduledExecutorService timer;
  private Map<String, String> known;

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

  /** One look: tells the listener of every credential that went away since the last. */
  synchronized void check() {
    Map<String, String> now;
    try {
      now = registry.generations();
    } catch (RuntimeException e) {
      log.warn("cannot read the agent registry: {}", e.getMessage());
      return; // keep the last known state; authentication fails closed meanwhile
    }
    for (Map.Entry<String, String> e : known.entrySet()) {
      String current = now.get(e.getKey());
      if (!e.getValue().equals(current)) {
        try {
          listener.removed(e.getKey(), e.getValue());
        } catch (RuntimeException failure) {
          log.warn("ending the waits and sessions of {}'s removed credential failed: {}", e.getKey(), failure.toString());
        }
      }
    }
    known = now;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
