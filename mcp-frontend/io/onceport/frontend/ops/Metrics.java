package io.onceport.frontend.ops;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.serviceclient.MetricsTag;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One process's metrics: Onceport's own meters and the Temporal SDK's, in one Prometheus registry
 * served at {@code /metrics}. Counters are per process; Prometheus sums them across front ends and
 * workers ({@code sum by (tool) (onceport_executions_total)}).
 */
public final class Metrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicLong reviewsWaiting = new AtomicLong();
  private Scope scope;

  /**
   * Tag keys the Temporal SDK puts on every meter recorded through its scopes, as {@code "none"}
   * unless the metric is about that thing ({@code MetricsTag.defaultTags}). Onceport's own meters
   * recorded in an activity (dispatch latency, executions, unknown outcomes) are never about a
   * signal, query, update, Nexus operation, gRPC status or exception: on them the keys are dropped,
   * instead of five {@code ="none"} labels on every series. The keys are dropped whatever their
   * value, so each meter keeps one label set (Prometheus requires it).
   */
  static final Set<String> TEMPORAL_PADDING = Set.of(MetricsTag.SIGNAL_NAME, MetricsTag.QUERY_TYPE, MetricsTag.UPDATE_NAME,
      MetricsTag.STATUS_CODE, MetricsTag.EXCEPTION, MetricsTag.OPERATION_NAME, MetricsTag.NEXUS_SERVICE,
      MetricsTag.NEXUS_OPERATION, MetricsTag.TASK_FAILURE_TYPE);

  public Metrics() {
    registry.config().meterFilter(new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        if (!id.getName().startsWith("onceport")) {
          return id;
        }
        return id.replaceTags(id.getTags().stream().filter(t -> !TEMPORAL_PADDING.contains(t.getKey())).toList());
      }
    });
    Gauge.builder("onceport.reviews.waiting", reviewsWaiting, AtomicLong::get)
        .description("Executions waiting for an operator decision (needs_review or approval), as last counted")
        .register(registry);
  }

  /** An execution this process saw finish: {@code state} and {@code outcome} as in the ExecutionRecord, lower case. */
  public void executionFinished(String tool, String state, String outcome) {
    Counter.builder("onceport.executions")
        .description("Executions by tool, final state and outcome")
        .tags("tool", tag(tool), "state", tag(state), "outcome", tag(outcome))
        .register(registry).increment();
  }

  /**
   * Counts a settled execution once: call it from the one place that observes the final record
   * (the front end that started the run, not the ones that attached), or the counts double.
   */
  public void executionFinished(io.onceport.workflow.execution.ExecutionRecord record) {
    executionFinished(record.tool(), record.state().wireName(), record.outcome().wireName());
  }

  /** A tools/call that attached to an execution already running or settled: a duplicate that was not dispatched. */
  public void attached(String tool) {
    Counter.builder("onceport.attaches").description("Calls attached to an existing execution (duplicates suppressed)")
        .tags("tool", tag(tool)).register(registry).increment();
  }

  /** A dispatch whose outcome could not be known (the request may or may not have reached the target). */
  public void unknownOutcome(String tool) {
    Counter.builder("onceport.unknown.outcomes").description("Dispatches with an unknown outcome")
        .tags("tool", tag(tool)).register(registry).increment();
  }

  /** A status query that settled an unknown outcome; {@code verdict} e.g. {@code delivered}, {@code not_delivered}, {@code unknown}. */
  public void statusQueryResolved(String tool, String verdict) {
    Counter.builder("onceport.status.query.resolutions").description("Status-query verdicts on unknown outcomes")
        .tags("tool", tag(tool), "verdict", tag(verdict)).register(registry).increment();
  }

  /** Sets the number of executions waiting for review (a gauge: the lead counts, this reports). */
  public void reviewsWaiting(long count) {
    reviewsWaiting.set(count);
  }

  /** Time from sending a request to the target to its classified result; {@code channel} is {@code http} or {@code ssh}. */
  public void dispatchLatency(String tool, String channel, Duration elapsed) {
    Objects.requireNonNull(elapsed, "elapsed == null");
    Timer.builder("onceport.dispatch").description("Dispatch latency by tool and channel")
        .tags("tool", tag(tool), "channel", tag(channel))
        .publishPercentileHistogram()
        .register(registry).record(elapsed);
  }

  /**
   * A {@code read_only} call answered on the read path (no execution): {@code outcome} is
   * {@code completed}, {@code failed} (the target answered with an error) or {@code no_answer}.
   * Prometheus: {@code onceport_reads_total{tool,outcome}}, {@code onceport_read_seconds{tool}}.
   */
  public void read(String tool, String outcome, Duration elapsed) {
    Objects.requireNonNull(elapsed, "elapsed == null");
    Counter.builder("onceport.reads").description("Reads answered without an execution, by tool and outcome")
        .tags("tool", tag(tool), "outcome", tag(outcome)).register(registry).increment();
    Timer.builder("onceport.read").description("Read-path latency by tool (validation to answer)")
        .tags("tool", tag(tool)).register(registry).record(elapsed);
  }

  /**
   * The tally scope for {@code WorkflowServiceStubsOptions.newBuilder().setMetricsScope(...)}: the
   * Temporal SDK's client and worker metrics land in this registry, flushed every 10 seconds.
   */
  public synchronized Scope metricsScope() {
    if (scope == null) {
      scope = new RootScopeBuilder()
          .reporter(new MicrometerClientStatsReporter(registry))
          .reportEvery(com.uber.m3.util.Duration.ofSeconds(10));
    }
    return scope;
  }

  /** The Prometheus text exposition of every meter. */
  public String scrape() {
    return registry.scrape();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public synchronized void close() {
    if (scope != null) {
      try {
        scope.close();
      } catch (com.uber.m3.tally.ScopeCloseException e) {
        // Closing only flushes the last interval; nothing to recover.
      }
    }
    registry.close();
  }

  private static String tag(String value) {
    return value == null || value.isEmpty() ? "unknown" : value;
  }
}
