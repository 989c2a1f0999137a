package io.onceport.frontend.ops;

import io.onceport.frontend.ops.HealthChecks.Report;
import io.onceport.frontend.ops.HealthChecks.Verdict;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last readiness report and what a call may do with it. A call made while a blocking check
 * fails (the namespace does not exist, no worker polls) is refused at once with the reason and the
 * fixing command, instead of spending the gateway's 20 s attach budget on an execution nothing can
 * run. Each change of state is logged once (a problem as a warning with its fix, recovery as info),
 * not once per probe or call.
 *
 * <p>Costs nothing on the request path while ready: calls read the last report and never ask
 * Temporal; {@code /readyz} refreshes it. While not ready a call re-evaluates at most once per
 * {@link #RECHECK_MILLIS}, so the first call after the fix (a worker started, {@code temporal
 * setup} run) goes through.
 */
public final class Readiness {
  private static final Logger LOG = LoggerFactory.getLogger(Readiness.class);
  /** How old a not-ready report a call may be refused on: a fix is noticed within a second. */
  static final long RECHECK_MILLIS = 1_000;

  private final HealthChecks checks;
  private volatile Report last;
  private volatile long lastNanos;
  private String logged = "ready";

  public Readiness(HealthChecks checks) {
    this.checks = Objects.requireNonNull(checks, "checks == null");
  }

  /** Runs every check now, logs a change of state, and keeps the report for calls. */
  public Report evaluate() {
    Report report = checks.evaluate();
    synchronized (this) {
      last = report;
      lastNanos = System.nanoTime();
      String summary = report.summary();
      if (!summary.equals(logged)) {
        if (report.ready()) {
          LOG.info("ready ({})", report.checks());
        } else {
          LOG.warn("{}; checks: {}", summary, report.checks());
        }
        logged = summary;
      }
    }
    return report;
  }

  /** The check a call cannot get past, if one failed when last asked (asked again when that is over a second old). */
  public Optional<Verdict> blocking() {
    Report report = last;
    if (report == null || report.ready()) {
      return Optional.empty();
    }
    if (System.nanoTime() - lastNanos > TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)) {
      report = evaluate();
    }
    return report.blocking();
  }

  /** The checks behind this readiness (for {@code /readyz}). */
  public HealthChecks checks() {
    return checks;
  }
}
