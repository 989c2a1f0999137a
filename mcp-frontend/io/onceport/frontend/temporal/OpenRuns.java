package io.onceport.frontend.temporal;

import io.onceport.frontend.gateway.BoundedMap;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The runs this front end knows to be open, one per intent (workflow id), and when it reported a
 * delivery that closes them. It answers one question: was a run of this intent open when a call
 * arrived? A call that arrived while the run was open is bound to that run and attaches to it by
 * run id — and when the run has closed by the time the call is processed, it is answered from the
 * run's final record instead of starting a new run. Only a call that arrived after this front end
 * reported the execution's delivery goes to update-with-start (and even then attaches if the run is
 * still open: the instant between writing a response and recording its delivery errs toward
 * attaching).
 *
 * <p>Bounded: {@value #MAX_RUNS} intents, each forgotten {@link #MAX_AGE} after it was last used —
 * and a settled one (its delivery reported or its closing seen, so it takes no more calls that
 * arrive from now on) {@link #SETTLED_AGE} after its last use, and of those only the {@value
 * #MAX_SETTLED} most recently used: a settled run matters only to calls that arrived before it
 * settled and are processed after that (milliseconds normally, seconds in a storm), and keeping
 * every finished intent for ten minutes (then every one of the last 30 s) made memory grow with the
 * call rate. Forgetting an open run is safe: the call then takes update-with-start, which attaches
 * while the run is open. Forgetting a settled run is safe because the gateway asks {@link
 * #mayHaveForgotten} first: a call that arrived longer than {@link #SETTLED_AGE} ago, before the size
 * bound pushed an entry out, or before the last use of a settled run the settled bound pushed out,
 * finds out from the engine whether a run of its intent was open when it arrived before it starts one.
 */
final class OpenRuns {
  static final int MAX_RUNS = 10_000;
  /** At most this many settled runs are held (the most recently used). */
  static final int MAX_SETTLED = 1_000;
  static final Duration MAX_AGE = Duration.ofMinutes(10);
  /** How long a settled run (delivered or closed) is kept after its last use. */
  static final Duration SETTLED_AGE = Duration.ofSeconds(30);

  /**
   * @param seenNanos when this front end first saw the run take a call
   * @param deliveredNanos when this front end reported a delivery of this run ({@link Long#MAX_VALUE}: not yet)
   * @param closedNanos when this front end learned the run had closed ({@link Long#MAX_VALUE}: not yet)
   * @param previous the intent's run before this one, kept for calls that arrived while it was open
   *     and are processed after this one took over (one level; null when none)
   */
  record Run(String workflowId, String runId, String executionId, long seenNanos, long deliveredNanos, long closedNanos,
      Run previous) {
    Run {
      Objects.requireNonNull(workflowId, "workflowId == null");
      Objects.requireNonNull(runId, "runId == null");
    }

    ExecutionLocation location() {
      return new ExecutionLocation(executionId, workflowId, runId);
    }

    /** True when this front end reported the delivery that closes the run after {@code arrivalNanos}. */
    boolean deliveredAfter(long arrivalNanos) {
      return deliveredNanos != Long.MAX_VALUE && deliveredNanos - arrivalNanos > 0;
    }

    /** Open at {@code arrivalNanos} as far as this front end knows: neither delivered nor seen closed before. */
    boolean openAt(long arrivalNanos) {
      boolean deliveredBefore = deliveredNanos != Long.MAX_VALUE && deliveredNanos - arrivalNanos <= 0;
      boolean closedBefore = closedNanos != Long.MAX_VALUE && closedNanos - arrivalNanos <= 0;
      return !deliveredBefore && !closedBefore;
    }

    /** Takes no more calls that arrive from now on: delivered or seen closed (and so is the run before it). */
    boolean settled() {
      boolean self = deliveredNanos != Long.MAX_VALUE || closedNanos != Long.MAX_VALUE;
      return self && (previous == null || previous.settled());
    }

        Run withDelivered(long nanos) {
      return new Run(workflowId, runId, executionId, seenNanos, nanos, closedNanos, previous);
    }

    Run withClosed(long nanos) {
      return new Run(workflowId, runId, executionId, seenNanos, deliveredNanos, nanos, previous);
    }
  }

  private final BoundedMap<String, Run> runs;

  private final java.util.function.LongSupplier clock;

  OpenRuns() {
    this(System::nanoTime);
  }

  /** @param clock monotonic nanoseconds, the clock of the arrival times given to this class (for tests) */
  OpenRuns(java.util.function.LongSupplier clock) {
    this(new BoundedMap<>(MAX_RUNS, MAX_SETTLED, MAX_AGE, SETTLED_AGE, Run::settled, clock), clock);
  }

  OpenRuns(BoundedMap<String, Run> runs, java.util.function.LongSupplier clock) {
    this.runs = runs;
    this.clock = clock;
  }

  /**
   * True when an entry that a call arriving at {@code arrivalNanos} needs may have been forgotten
   * since: the call waited longer than a settled run is held, the size bound pushed an entry out
   * after it arrived, or the settled bound pushed out a run that settled after it arrived. {@link
   * #boundRun} finding nothing then does not prove that no run of the intent was open when the call
   * arrived; the gateway asks the engine before starting a new run.
   */
  boolean mayHaveForgotten(long arrivalNanos) {
    return clock.getAsLong() - arrivalNanos > SETTLED_AGE.toNanos()
        || runs.evictedBySizeSince(arrivalNanos);
  }

  /** A run that just took a call (so it was open then). A newer run of the intent replaces an older one. */
  void open(String workflowId, String runId, String executionId, long nanos) {
    runs.compute(workflowId, (k, known) -> {
      if (known != null && known.runId().equals(runId)) {
        return known;
      }
      if (known != null && known.previous() != null && known.previous().runId().equals(runId)) {
        return known; // a late answer from the older run: the newer one stays current
      }
      Run older = known == null ? null : new Run(known.workflowId(), known.runId(), known.executionId(), known.seenNanos(),
          known.deliveredNanos(), known.closedNanos(), null);
      return new Run(workflowId, runId, executionId, nanos, Long.MAX_VALUE, Long.MAX_VALUE, older);
    });
  }

  /** This front end is about to report a delivery of the run (a delivered report closes it). */
  void deliveryReported(String workflowId, String runId, long nanos) {
    runs.compute(workflowId, (k, known) -> update(known, runId, r -> r.deliveredNanos() == Long.MAX_VALUE ? r.withDelivered(nanos) : r));
  }

  /** The run was found closed. Calls that arrived before now stay bound to it (and read its final record). */
  void closed(String workflowId, String runId, long nanos) {
    runs.compute(workflowId, (k, known) -> update(known, runId, r -> r.closedNanos() == Long.MAX_VALUE ? r.withClosed(nanos) : r));
  }

  private static Run update(Run known, String runId, java.util.function.UnaryOperator<Run> change) {
    if (known == null) {
      return null;
    }
    if (known.runId().equals(runId)) {
      return change.apply(known);
    }
    if (known.previous() != null && known.previous().runId().equals(runId)) {
      return new Run(known.workflowId(), known.runId(), known.executionId(), known.seenNanos(), known.deliveredNanos(),
          known.closedNanos(), change.apply(known.previous()));
    }
    return known;
  }

  /**
   * The run a call that arrived at {@code arrivalNanos} belongs to: known open at that time, as far
   * as this front end knows — neither its delivery reported nor its closing seen before the call arrived.
   */
  Optional<Run> boundRun(String workflowId, long arrivalNanos) {
    Run run = runs.get(workflowId);
    if (run == null) {
      return Optional.empty();
    }
    Run previous = run.previous();
    if (previous != null && run.seenNanos() - arrivalNanos > 0 && previous.openAt(arrivalNanos)) {
      return Optional.of(previous); // arrived before the newer run existed, while the older one was open
    }
    return run.openAt(arrivalNanos) ? Optional.of(run) : Optional.empty();
  }

  int size() {
    return runs.size();
  }

  /** Entries held as settled (for tests and diagnostics). */
  int settledSize() {
    return runs.settledSize();
  }
}
