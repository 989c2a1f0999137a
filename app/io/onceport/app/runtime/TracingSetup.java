package io.onceport.app.runtime;

import io.onceport.shared.trace.Tracing;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Tracing from the standard {@code OTEL_*} variables, read by OpenTelemetry's SDK autoconfigure —
 * but off unless an exporter is configured: autoconfigure alone defaults to exporting OTLP to
 * {@code localhost:4317}, which would make every deployment pay for spans nobody collects (and log
 * export failures). On means {@code OTEL_TRACES_EXPORTER} names an exporter other than
 * {@code none}, or an OTLP endpoint is set ({@code OTEL_EXPORTER_OTLP_ENDPOINT},
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}); {@code OTEL_SDK_DISABLED=true} turns it off.
 * Onceport exports traces only: metrics stay on {@code /metrics} and logs on stderr unless the
 * {@code OTEL_METRICS_EXPORTER} / {@code OTEL_LOGS_EXPORTER} variables say otherwise.
 */
public final class TracingSetup implements AutoCloseable {
  private final Tracing tracing;
  private final OpenTelemetrySdk sdk;

  private TracingSetup(Tracing tracing, OpenTelemetrySdk sdk) {
    this.tracing = tracing;
    this.sdk = sdk;
  }

  /** Whether {@code env} configures an exporter for traces. */
  static boolean configured(Map<String, String> env) {
    if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "").strip())) {
      return false;
    }
    String exporter = env.getOrDefault("OTEL_TRACES_EXPORTER", "").strip().toLowerCase(Locale.ROOT);
    if (!exporter.isEmpty()) {
      return !exporter.equals("none");
    }
    return !env.getOrDefault("OTEL_EXPORTER_OTLP_ENDPOINT", "").isBlank()
        || !env.getOrDefault("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").isBlank();
  }

  /**
   * Tracing for a process of {@code role} ({@code serve}, {@code worker}, {@code frontend}): the
   * service name is {@code OTEL_SERVICE_NAME}, else {@code onceport-ROLE}.
   */
  public static TracingSetup fromEnvironment(String role, Map<String, String> env) {
    if (!configured(env)) {
      return new TracingSetup(Tracing.OFF, null);
    }
    Map<String, String> defaults = new HashMap<>();
    defaults.put("otel.service.name", "onceport-" + role);
    defaults.put("otel.metrics.exporter", "none");
    defaults.put("otel.logs.exporter", "none");
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> defaults) // defaults: OTEL_* variables and -Dotel.* properties win over them
        .disableShutdownHook()
        .build()
        .getOpenTelemetrySdk();
    return new TracingSetup(Tracing.of(sdk), sdk);
  }

  public Tracing tracing() {
    return tracing;
  }

  /** A one-line description for the start-up log: where spans go, or that tracing is off. */
  public static String describe(Map<String, String> env) {
    if (!configured(env)) {
      return "off";
    }
    String exporter = env.getOrDefault("OTEL_TRACES_EXPORTER", "otlp");
    String endpoint = env.getOrDefault("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env.getOrDefault("OTEL_EXPORTER_OTLP_ENDPOINT", ""));
    return exporter + (endpoint.isBlank() ? "" : " to " + endpoint);
  }

  /** Flushes the spans still buffered (at most 5 s), then stops the exporter. */
  @Override
  public void close() {
    if (sdk != null) {
      sdk.getSdkTracerProvider().forceFlush().join(5, TimeUnit.SECONDS);
      sdk.shutdown().join(5, TimeUnit.SECONDS);
    }
  }
}
