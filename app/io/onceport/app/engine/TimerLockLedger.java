package io.onceport.app.engine;

import io.temporal.internal.testservice.TestServicesStarter;
import java.lang.reflect.Field;
import java.util.LinkedList;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the embedded engine's time-lock ledger from growing with every call it ever served.
 *
 * <p>Temporal's Java test server (1.38.0) keeps a {@code LinkedList} of time-skipping lock and
 * unlock events in {@code SelfAdvancingTimerImpl.lockEvents}, "for debugging purposes only" (its
 * own comment). Locks taken through a request context ({@code lockTimer}/{@code unlockTimer}: every
 * scheduled workflow task and activity, every completion) add an entry each and are never removed,
 * while every state change of every run takes a lock handle whose release searches that list from
 * its head ({@code LinkedList.remove(Object)}). So the list grows by a few entries per call, forever,
 * and each state change walks all of it: in an in-process bench that search was 25 % of all CPU, and
 * the engine's cost per call rose with the number of calls it had served.
 *
 * <p>The ledger feeds only the engine's diagnostics text; the lock count that actually governs time
 * skipping is a separate counter, balanced as before (an unbalanced unlock still throws). This swaps
 * the list for one that keeps nothing and reports every removal as found. Written by hand because no
 * option of the test server turns the ledger off; done by reflection because the field is private.
 * If a future SDK renames the field, {@link #discard} reports it and changes nothing (the engine runs
 * as before, only slower), and {@code TimerLockLedgerTest} fails, so the upgrade is noticed.
 */
final class TimerLockLedger {
  private static final Logger log = LoggerFactory.getLogger(TimerLockLedger.class);

  private TimerLockLedger() {
  }

  /**
   * Replaces the started services' lock ledger with one that keeps nothing.
   *
   * @return true when the ledger was replaced (or already was), false when this SDK's test server
   *     is not shaped as expected (nothing changed; a warning was logged)
   */
  static boolean discard(TestServicesStarter services) {
    try {
      Field timerField = TestServicesStarter.class.getDeclaredField("selfAdvancingTimer");
      timerField.setAccessible(true);
      Object timer = timerField.get(services);
      Field ledgerField = timer.getClass().getDeclaredField("lockEvents");
      ledgerField.setAccessible(true);
      if (ledgerField.get(timer) instanceof KeepsNothing) {
        return true;
      }
      if (!LinkedList.class.equals(ledgerField.getType())) {
        log.warn("embedded engine: the test server's lock ledger is a {}, not a LinkedList; left as it is", ledgerField.getType());
        return false;
      }
      // Under the timer's own lock, as every reader of the ledger is: the timer's pump thread is
      // already running, and the lock orders this write before whatever it and the engine do next.
      Field lockField = timer.getClass().getDeclaredField("lock");
      lockField.setAccessible(true);
      Lock lock = (Lock) lockField.get(timer);
      lock.lock();
      try {
        ledgerField.set(timer, new KeepsNothing());
      } finally {
        lock.unlock();
      }
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("embedded engine: cannot replace the test server's lock ledger ({}); it grows with every call", e.toString());
      return false;
    }
  }

  /** A ledger that keeps nothing: adds are dropped, removals report success, so the lock counter alone decides. */
  static final class KeepsNothing extends LinkedList<Object> {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean add(Object event) {
      return true;
    }

    @Override
    public boolean remove(Object event) {
      return true;
    }
  }
}
