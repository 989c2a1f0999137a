package io.onceport.shared.temporal;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentracing.Scope;
import io.opentracing.References;
import io.opentracing.ScopeManager;
import io.opentracing.Span;
import io.opentracing.SpanContext;
import io.opentracing.Tracer;
import io.opentracing.propagation.Format;
import io.opentracing.propagation.TextMapExtract;
import io.opentracing.propagation.TextMapInject;
import io.opentracing.tag.Tag;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The OpenTracing API that Temporal's {@code temporal-opentracing} interceptors speak, on top of
 * OpenTelemetry — the part of OpenTelemetry's OpenTracing shim those interceptors use. Hand-written
 * because the shim ({@code io.opentelemetry:opentelemetry-opentracing-shim}) is not served from the
 * Maven repository this project builds from (1.68.0, 1.67.0 and 1.60.1 refused, like
 * {@code temporal-opentelemetry}). What it covers: spans (names, tags as attributes, errors, logs
 * as events, explicit timestamps), child-of and follows-from references (a link), the active span
 * as OpenTelemetry's current context, and W3C {@code traceparent} in the text maps Temporal
 * carries in its headers. Baggage is not carried (nothing of Onceport's uses it). OpenTelemetry's
 * own {@code Span}, {@code SpanContext} and {@code Tracer} are written out in full where OpenTracing's
 * types of the same names are meant otherwise.
 */
final class OpenTracingBridge implements Tracer {
  private final io.opentelemetry.api.trace.Tracer tracer;
  private final ScopeManager scopes = new Scopes();

  OpenTracingBridge(io.opentelemetry.api.trace.Tracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public ScopeManager scopeManager() {
    return scopes;
  }

  @Override
  public Span activeSpan() {
    return scopes.activeSpan();
  }

  @Override
  public Scope activateSpan(Span span) {
    return scopes.activate(span);
  }

  @Override
  public Tracer.SpanBuilder buildSpan(String operationName) {
    return new Builder(tracer.spanBuilder(operationName));
  }

  @Override
  public <C> void inject(SpanContext spanContext, Format<C> format, C carrier) {
    if (spanContext instanceof Ctx ctx && carrier instanceof TextMapInject map) {
      W3CTraceContextPropagator.getInstance().inject(Context.root().with(io.opentelemetry.api.trace.Span.wrap(ctx.otel)), map,
          (m, key, value) -> m.put(key, value));
    }
  }

  @Override
  public <C> SpanContext extract(Format<C> format, C carrier) {
    if (!(carrier instanceof TextMapExtract map)) {
      return null;
    }
    Map<String, String> entries = new HashMap<>();
    map.forEach(e -> entries.put(e.getKey(), e.getValue()));
    Context extracted = W3CTraceContextPropagator.getInstance().extract(Context.root(), entries, MapGetter.INSTANCE);
    io.opentelemetry.api.trace.SpanContext otel = io.opentelemetry.api.trace.Span.fromContext(extracted).getSpanContext();
    return otel.isValid() ? new Ctx(otel) : null;
  }

  @Override
  public void close() {}

  /** An OpenTelemetry span context seen as an OpenTracing one. */
  private record Ctx(io.opentelemetry.api.trace.SpanContext otel) implements SpanContext {
    @Override
    public String toTraceId() {
      return otel.getTraceId();
    }

    @Override
    public String toSpanId() {
      return otel.getSpanId();
    }

    @Override
    public Iterable<Map.Entry<String, String>> baggageItems() {
      return Map.<String, String>of().entrySet();
    }
  }

  /** The active span is OpenTelemetry's current span: both APIs see the same one. */
  private static final class Scopes implements ScopeManager {
    @Override
    public Scope activate(Span span) {
      io.opentelemetry.context.Scope scope = Context.current().with(((Bridged) span).span).makeCurrent();
      return scope::close;
    }

    @Override
    public Span activeSpan() {
      io.opentelemetry.api.trace.Span current = io.opentelemetry.api.trace.Span.current();
      return current.getSpanContext().isValid() ? new Bridged(current) : null;
    }
  }

  private final class Builder implements Tracer.SpanBuilder {
    private final io.opentelemetry.api.trace.SpanBuilder builder;
    private Context parent;
    private boolean ignoreActive;

    Builder(io.opentelemetry.api.trace.SpanBuilder builder) {
      this.builder = builder;
    }

    @Override
    public Tracer.SpanBuilder asChildOf(SpanContext context) {
      return addReference(References.CHILD_OF, context);
    }

    @Override
    public Tracer.SpanBuilder asChildOf(Span span) {
      return span == null ? this : asChildOf(span.context());
    }

    @Override
    public Tracer.SpanBuilder addReference(String type, SpanContext context) {
      // As OpenTelemetry's shim does: the first reference is the parent, child-of or follows-from (Temporal's
      // workflow and activity spans follow from the span that started them); any further one is a link.
      if (context instanceof Ctx ctx) {
        if (parent == null) {
          parent = Context.root().with(io.opentelemetry.api.trace.Span.wrap(ctx.otel));
        } else {
          builder.addLink(ctx.otel);
        }
      }
      return this;
    }

    @Override
    public Tracer.SpanBuilder ignoreActiveSpan() {
      ignoreActive = true;
      return this;
    }

    @Override
    public Tracer.SpanBuilder withTag(String key, String value) {
      if (key != null && value != null) {
        builder.setAttribute(key, value);
      }
      return this;
    }

    @Override
    public Tracer.SpanBuilder withTag(String key, boolean value) {
      builder.setAttribute(key, value);
      return this;
    }

    @Override
    public Tracer.SpanBuilder withTag(String key, Number value) {
      if (key != null && value != null) {
        builder.setAttribute(key, value.toString());
      }
      return this;
    }

    @Override
    public <T> Tracer.SpanBuilder withTag(Tag<T> tag, T value) {
      return value == null ? this : withTag(tag.getKey(), value.toString());
    }

    @Override
    public Tracer.SpanBuilder withStartTimestamp(long microseconds) {
      builder.setStartTimestamp(microseconds, TimeUnit.MICROSECONDS);
      return this;
    }

    @Override
    public Span start() {
      if (parent != null) {
        builder.setParent(parent);
      } else if (ignoreActive) {
        builder.setNoParent();
      }
      builder.setSpanKind(SpanKind.INTERNAL);
      return new Bridged(builder.startSpan());
    }
  }

  /** An OpenTelemetry span behind the OpenTracing span API. */
  private static final class Bridged implements Span {
    private final io.opentelemetry.api.trace.Span span;

    Bridged(io.opentelemetry.api.trace.Span span) {
      this.span = span;
    }

    @Override
    public SpanContext context() {
      return new Ctx(span.getSpanContext());
    }

    @Override
    public Span setTag(String key, String value) {
      if (key != null && value != null) {
        span.setAttribute(key, value);
      }
      return this;
    }

    @Override
    public Span setTag(String key, boolean value) {
      if ("error".equals(key) && value) {
        span.setStatus(StatusCode.ERROR);
      }
      span.setAttribute(AttributeKey.booleanKey(key), value);
      return this;
    }

    @Override
    public Span setTag(String key, Number value) {
      return value == null ? this : setTag(key, value.toString());
    }

    @Override
    public <T> Span setTag(Tag<T> tag, T value) {
      if (value instanceof Boolean b) {
        return setTag(tag.getKey(), b.booleanValue());
      }
      return value == null ? this : setTag(tag.getKey(), value.toString());
    }

    @Override
    public Span log(Map<String, ?> fields) {
      return log(TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()), fields);
    }

    @Override
    public Span log(long timestampMicroseconds, Map<String, ?> fields) {
      Object event = fields.get("event");
      AttributesBuilder attributes = Attributes.builder();
      fields.forEach((k, v) -> attributes.put(k, String.valueOf(v)));
      span.addEvent(event == null ? "log" : event.toString(), attributes.build(), timestampMicroseconds, TimeUnit.MICROSECONDS);
      return this;
    }

    @Override
    public Span log(String event) {
      span.addEvent(event);
      return this;
    }

    @Override
    public Span log(long timestampMicroseconds, String event) {
      span.addEvent(event, timestampMicroseconds, TimeUnit.MICROSECONDS);
      return this;
    }

    @Override
    public Span setBaggageItem(String key, String value) {
      return this;
    }

    @Override
    public String getBaggageItem(String key) {
      return null;
    }

    @Override
    public Span setOperationName(String operationName) {
      span.updateName(operationName);
      return this;
    }

    @Override
    public void finish() {
      span.end();
    }

    @Override
    public void finish(long finishMicros) {
      span.end(finishMicros, TimeUnit.MICROSECONDS);
    }
  }

  private enum MapGetter implements TextMapGetter<Map<String, String>> {
    INSTANCE;

    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  }
}
