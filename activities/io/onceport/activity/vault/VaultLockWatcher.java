package io.onceport.activity.vault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Notices {@code onceport vault lock} without waiting for the next credential use, so a server can
 * tell executions that wait for an approval to re-check their gate (the workflow's {@code
 * recheckAuthorization} signal): "locking the vault rejects pending approvals". Polls the lock
 * marker (portable across file systems where watch services miss changes) and calls the listener on
 * every change with the new state, {@code true} = locked. The listener runs on the watcher's thread
 * and must not block for long.
 */
public final class VaultLockWatcher implements AutoCloseable {
  private final ScheduledExecutorService timer;

  private VaultLockWatcher(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  public static VaultLockWatcher start(Path dataDir, Duration interval, Consumer<Boolean> onChange) {
    Objects.requireNonNull(dataDir, "dataDir == null");
    Objects.requireNonNull(onChange, "onChange == null");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("Invalid poll interval: " + interval);
    }
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "onceport-vault-lock-watcher");
              t.setDaemon(true);
              return t;
            });
    boolean[] last = {VaultLock.isLocked(dataDir)};
    timer.scheduleWithFixedDelay(
        () -> {
          boolean now = VaultLock.isLocked(dataDir);
          if (now != last[0]) {
            last[0] = now;
            try {
              onChange.accept(now);
            } catch (RuntimeException e) {
              // A failing listener must not stop the watcher; it is told again on the next change.
            }
          }
        },
        interval.toMillis(),
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
    return new VaultLockWatcher(timer);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
