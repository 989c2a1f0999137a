package io.onceport.app.soak;

import io.onceport.app.engine.LocalEngine;
import io.onceport.app.engine.WorkerTuning;
import java.time.Duration;
import java.util.Objects;

/**
 * What one soak run does.
 *
 * @param duration how long the steady phase runs (set-up, warm-up and the waiting executions come first)
 * @param engine the engine, chosen as {@code serve} chooses it
 * @param waiting executions held waiting for session authorization throughout
 * @param waitingPerSession waiting executions per agent session (1: every one is a new session's first call)
 * @param rate calls per second in the steady phase; 0 for none (an idle soak); infinite for as fast as the callers go
 * @param callers concurrent MCP sessions making the calls
 * @param interval time between samples
 * @param sampleCalls also sample whenever the completed count crosses a multiple of this (0: off)
 * @param warmup calls before the baseline sample (class loading, JIT, caches)
 * @param tuning the worker's cache and thread bounds
 * @param untilCompleted stop the steady phase once this many calls were made in all (warm-up included), before
 *     the duration ends if they are done sooner; 0 for the duration alone
 * @param approvalTimeout how long waiting executions wait before they are rejected; null for
 *     {@code max(PT1H, duration + PT10M)}, long enough that none expires during the soak
 */
public record SoakSettings(Duration duration, LocalEngine.Mode engine, int waiting, int waitingPerSession, double rate,
    int callers, Duration interval, long sampleCalls, int warmup, WorkerTuning tuning, long untilCompleted, Duration approvalTimeout) {
  public SoakSettings {
    Objects.requireNonNull(duration, "duration == null");
    Objects.requireNonNull(engine, "engine == null");
    Objects.requireNonNull(interval, "interval == null");
    Objects.requireNonNull(tuning, "tuning == null");
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("Invalid soak duration: " + duration + " (must be positive)");
    }
    if (interval.toMillis() < 100) {
      throw new IllegalArgumentException("Invalid sample interval: " + interval + " (at least PT0.1S)");
    }
    if (waiting < 0 || waitingPerSession < 1) {
      throw new IllegalArgumentException("Invalid waiting executions: " + waiting + " in sessions of " + waitingPerSession
          + " (waiting must be 0 or more, per session at least 1)");
    }
    if (Double.isNaN(rate) || rate < 0) {
      throw new IllegalArgumentException("Invalid rate: " + rate + " calls/s (must be 0 or more)");
    }
    if (callers < 1) {
      throw new IllegalArgumentException("Invalid callers: " + callers + " (at least 1)");
    }
    if (sampleCalls < 0 || warmup < 0) {
      throw new IllegalArgumentException("Invalid sample-calls " + sampleCalls + " or warm-up " + warmup + " (0 or more)");
    }
    if (untilCompleted < 0) {
      throw new IllegalArgumentException("Invalid --soak-until " + untilCompleted + " (0 or more)");
    }
    if (approvalTimeout != null && (approvalTimeout.isNegative() || approvalTimeout.isZero())) {
      throw new IllegalArgumentException("Invalid approval timeout: " + approvalTimeout);
    }
  }

  /** The approval timeout the worker gets. */
  public Duration effectiveApprovalTimeout() {
    if (approvalTimeout != null) {
      return approvalTimeout;
    }
    Duration covering = duration.plusMinutes(10);
    return covering.compareTo(Duration.ofHours(1)) > 0 ? covering : Duration.ofHours(1);
  }
}
