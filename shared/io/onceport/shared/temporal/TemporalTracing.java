package io.onceport.shared.temporal;

import io.onceport.shared.trace.Tracing;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.interceptors.WorkflowClientInterceptor;
import io.temporal.opentracing.OpenTracingClientInterceptor;
import io.temporal.opentracing.OpenTracingOptions;
import io.temporal.opentracing.OpenTracingWorkerInterceptor;
import java.util.List;

/**
 * Temporal's own tracing interceptors ({@code temporal-opentracing}) on OpenTelemetry through an
 * OpenTracing bridge ({@link OpenTracingBridge}): the client's start, update and signal spans, and
 * the worker's workflow and activity spans, joined by the trace context Temporal carries in its
 * headers. Temporal's native {@code temporal-opentelemetry} module and OpenTelemetry's OpenTracing
 * shim are not served from the Maven repository this project builds from. None when tracing is
 * off: the interceptors are then not installed at all, so a call pays nothing for them.
 */
final class TemporalTracing {
  private final List<WorkflowClientInterceptor> client;
  private final List<WorkerInterceptor> worker;

  private TemporalTracing(List<WorkflowClientInterceptor> client, List<WorkerInterceptor> worker) {
    this.client = client;
    this.worker = worker;
  }

  static TemporalTracing of(Tracing tracing) {
    if (!tracing.enabled()) {
      return new TemporalTracing(List.of(), List.of());
    }
    OpenTracingOptions options = OpenTracingOptions.newBuilder()
        .setTracer(new OpenTracingBridge(tracing.openTelemetry().getTracer("io.temporal")))
        .build();
    return new TemporalTracing(List.of(new OpenTracingClientInterceptor(options)), List.of(new OpenTracingWorkerInterceptor(options)));
  }

  List<WorkflowClientInterceptor> client() {
    return client;
  }

  List<WorkerInterceptor> worker() {
    return worker;
  }
}
