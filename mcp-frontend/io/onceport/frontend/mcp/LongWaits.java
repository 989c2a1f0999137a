package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The requests of this front end that wait long for an execution — a {@code tools/call} waiting for
 * its outcome or streaming it, a {@code tasks/result}, a resumed stream — by actor, so that when an
 * agent's credential is removed ({@code onceport agent remove}, seen by the {@code
 * CredentialWatcher}) every wait of that credential ends at once: its connection is closed, its
 * loop stops at its next look (every {@link McpController#CANCEL_CHECK}), and a result that settles
 * afterwards is recorded as not delivered. Before, such waits went on delivering for up to the
 * task-result wait (5 minutes) after the agent was removed (issue 25 item 8).
 *
 * <p>Also where the long-wait limits of {@link AgentLimits} are enforced (issue 25 item 4): each
 * held wait holds a request thread, so one agent holding them all starved every other agent.
 */
final class LongWaits {
  private final ConcurrentHashMap<String, Set<Lease>> byActor = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();
  private final int perAgent;
  private final int maxTotal;

  /**
   * @param perAgent the long waits one agent may hold ({@link AgentLimits#longWaits})
   * @param maxTotal the long waits all agents together may hold: the request threads minus the
   *     reserve that serves short requests ({@link AgentLimits#reservedThreads})
   */
  LongWaits(int perAgent, int maxTotal) {
    if (perAgent < 1 || maxTotal < 1) {
      throw new IllegalArgumentException("long-wait limits must be at least 1: " + perAgent + ", " + maxTotal);
    }
    this.perAgent = perAgent;
    this.maxTotal = maxTotal;
  }

  /** One waiting request. Closed when its answer is decided; revoked when its credential is removed. */
  final class Lease implements AutoCloseable {
    private final String actor;
    private final String generation;
    private final HttpServletRequest request;
    private volatile String revocation;
    /** The thread waiting inside {@link #interruptible} now, or null; guarded by this lease. */
    private Thread waiter;
    private boolean interrupted;

    private Lease(String actor, String generation, HttpServletRequest request) {
      this.actor = actor;
      this.generation = generation;
      this.request = request;
    }

    /** True once the credential this request came with was removed: stop waiting, answer nothing. */
    boolean revoked() {
      return revocation != null;
    }

    /** Why the wait was ended, or null. */
    String revocation() {
      return revocation;
    }

    private void revoke(String reason) {
      synchronized (this) {
        revocation = reason;
        if (waiter != null) {
          interrupted = true;
          waiter.interrupt();
        }
      }
      ClientConnection.close(request);
    }

    /**
     * Runs {@code work} — a wait that does not look at this lease, such as the attach waiting for
     * the answer a send in this process hands over (up to the call's whole wait) — so that a
     * revocation interrupts it rather than leaving the thread held until that wait's end. Only here
     * is the thread interrupted (never while it writes a file, whose channel an interrupt would
     * close), and the interrupt is cleared before the thread goes back to serve other requests.
     */
    <T> T interruptible(Supplier<T> work) {
      synchronized (this) {
        waiter = Thread.currentThread();
      }
      try {
        return work.get();
      } finally {
        synchronized (this) {
          waiter = null;
          if (interrupted) {
            Thread.interrupted();
            interrupted = false;
          }
        }
      }
    }

    @Override
    public void close() {
      byActor.computeIfPresent(actor, (a, leases) -> {
        if (leases.remove(this)) {
          total.decrementAndGet();
        }
        return leases.isEmpty() ? null : leases;
      });
    }
  }

  /**
   * Registers a waiting request of {@code actor} (credential {@code generation}, null when it has
   * none), or refuses it with HTTP 429 and {@code Retry-After} — before anything started — when the
   * agent holds its limit of long waits or all agents together hold all threads but the reserve.
   */
  Lease open(String actor, String generation, HttpServletRequest request, JsonNode id) {
    Objects.requireNonNull(actor, "actor == null");
    Lease lease = new Lease(actor, generation, request);
    String[] refused = {null};
    byActor.compute(actor, (a, leases) -> {
      Set<Lease> s = leases == null ? ConcurrentHashMap.newKeySet() : leases;
      if (s.size() >= perAgent) {
        refused[0] = "Busy: agent " + actor + " already holds " + perAgent + " long waits (tools/call waiting for an outcome, "
            + "tasks/result, SSE streams), its limit on this server (--agent-max-waits); retry after the Retry-After seconds, "
            + "or poll with tasks/get or the onceport_status tool";
      } else if (total.incrementAndGet() > maxTotal) {
        total.decrementAndGet();
        refused[0] = "Busy: this server holds " + maxTotal + " long waits, all its request threads but the reserve for "
            + "short requests; retry after the Retry-After seconds, or poll with tasks/get or the onceport_status tool";
      } else {
        s.add(lease);
      }
      return s.isEmpty() ? null : s;
    });
    if (refused[0] != null) {
      throw McpException.busy(refused[0], id, 1);
    }
    return lease;
  }

  /**
   * Ends every wait of {@code actor}'s credential {@code generation} (all of the actor's when
   * {@code generation} is null): their connections close now. Returns how many ended.
   */
  int revoke(String actor, String generation, String reason) {
    Set<Lease> leases = byActor.get(actor);
    if (leases == null) {
      return 0;
    }
    int n = 0;
    for (Lease lease : leases) {
      if (generation == null || generation.equals(lease.generation)) {
        lease.revoke(reason);
        n++;
      }
    }
    return n;
  }

  /** The waits of {@code actor} in flight now. */
  int active(String actor) {
    Set<Lease> leases = byActor.get(actor);
    return leases == null ? 0 : leases.size();
  }
}
