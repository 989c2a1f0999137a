package io.onceport.shared.trace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * OpenTelemetry for Onceport's spans — the MCP request in the front end, the send in the worker —
 * or {@link #OFF}. Every role gets one from its composition root (never a JVM-wide global) and
 * checks {@link #enabled()} before doing any tracing work, so that tracing costs nothing on the
 * request path unless an exporter is configured.
 *
 * <p>Only W3C trace context crosses Onceport's edges: {@code traceparent} (and {@code tracestate})
 * is read from the agent ({@code params._meta} or the HTTP header), and only {@code traceparent} is
 * sent to targets — never baggage, which an agent could fill with anything.
 */
public final class Tracing {
  /** Tracing off: no spans, no headers, no interceptors. */
  public static final Tracing OFF = new Tracing(OpenTelemetry.noop(), false);

  /** The instrumentation scope of Onceport's own spans. */
  public static final String SCOPE = "io.onceport";
  public static final String TRACEPARENT = "traceparent";
  public static final String TRACESTATE = "tracestate";

  private final OpenTelemetry openTelemetry;
  private final boolean enabled;
  private final Tracer tracer;

  private Tracing(OpenTelemetry openTelemetry, boolean enabled) {
    this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry == null");
    this.enabled = enabled;
    this.tracer = openTelemetry.getTracer(SCOPE);
  }

  /** Tracing on, exporting through {@code openTelemetry}'s tracer provider. */
  public static Tracing of(OpenTelemetry openTelemetry) {
    return new Tracing(openTelemetry, true);
  }

  public boolean enabled() {
    return enabled;
  }

  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  public Tracer tracer() {
    return tracer;
  }

  /**
   * The trace context a caller sent, read by {@code header} ({@code traceparent}, {@code tracestate}),
   * as the parent of the span about to start; {@link Context#root()} when there is none or it is
   * malformed (a bad header starts a new trace, it never fails a call).
   */
  public Context extract(Function<String, String> header) {
    return W3CTraceContextPropagator.getInstance().extract(Context.root(), header, Getter.INSTANCE);
  }

  /** The {@code traceparent} header for the current span, or null when there is none (or tracing is off). */
  public String traceparent() {
    if (!enabled) {
      return null;
    }
    SpanContext current = Span.current().getSpanContext();
    if (!current.isValid()) {
      return null;
    }
    String[] out = new String[1];
    W3CTraceContextPropagator.getInstance().inject(Context.current(), null, (carrier, key, value) -> {
      if (TRACEPARENT.equals(key)) {
        out[0] = value;
      }
    });
    return out[0];
  }

  /** Reads a carrier that is a function of the header name. */
  private enum Getter implements TextMapGetter<Function<String, String>> {
    INSTANCE;

    @Override
    public Iterable<String> keys(Function<String, String> carrier) {
      return Map.of(TRACEPARENT, "", TRACESTATE, "").keySet();
    }

    @Override
    public String get(Function<String, String> carrier, String key) {
      return carrier == null ? null : carrier.apply(key);
    }
  }
}
