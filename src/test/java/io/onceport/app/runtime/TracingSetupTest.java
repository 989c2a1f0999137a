package io.onceport.app.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.shared.trace.Tracing;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tracing is off unless the standard {@code OTEL_*} variables configure an exporter (autoconfigure
 * alone would export OTLP to localhost for every deployment), and its description never carries
 * the exporter's headers (which hold a tracing backend's key).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TracingSetupTest {
  @Test
  void offUnlessAnExporterIsConfigured() {
    assertFalse(TracingSetup.configured(Map.of()));
    assertFalse(TracingSetup.configured(Map.of("OTEL_SERVICE_NAME", "x", "OTEL_PROPAGATORS", "tracecontext")));
    assertFalse(TracingSetup.configured(Map.of("OTEL_TRACES_EXPORTER", "none", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317")));
    assertFalse(TracingSetup.configured(Map.of("OTEL_SDK_DISABLED", "true", "OTEL_TRACES_EXPORTER", "otlp")));
    assertTrue(TracingSetup.configured(Map.of("OTEL_TRACES_EXPORTER", "otlp")));
    assertTrue(TracingSetup.configured(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317")));
    assertTrue(TracingSetup.configured(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces")));
    try (TracingSetup off = TracingSetup.fromEnvironment("worker", Map.of())) {
      assertSame(Tracing.OFF, off.tracing());
    }
  }

  @Test
  void anExporterFromTheEnvironmentTurnsItOnAndTheDescriptionNamesNoHeader() {
    Map<String, String> env = Map.of("OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317",
        "OTEL_EXPORTER_OTLP_HEADERS", "x-honeycomb-team=secret-team-key");
    assertEquals("otlp to http://127.0.0.1:4317", TracingSetup.describe(env));
    assertEquals("off", TracingSetup.describe(Map.of()));
  }
}
