package io.onceport.frontend.ops;

import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The named readiness checks behind {@code /readyz}. A process is ready when every check passes;
 * a check that throws counts as failing (with its message), so one broken dependency cannot turn
 * the probe into a 500. {@code /healthz} does not run checks: it only says the process answers.
 */
public final class HealthChecks {
  /** One named check; {@code name} appears in the readyz body, so keep it short ({@code temporal}, {@code contracts}). */
  public record Check(String name, BooleanSupplier passes) {
    public Check {
      Objects.requireNonNull(name, "name == null");
      Objects.requireNonNull(passes, "passes == null");
    }
  }

  /** The evaluation: check name to {@code "ok"} or the failure text, in registration order. */
  public record Report(boolean ready, Map<String, String> checks, List<String> failing) {
    public Report {
      checks = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(checks));
      failing = List.copyOf(failing);
    }
  }

  private final List<Check> checks = new java.util.concurrent.CopyOnWriteArrayList<>();

  public HealthChecks add(String name, BooleanSupplier passes) {
    checks.add(new Check(name, passes));
    return this;
  }

  public Report evaluate() {
    Map<String, String> results = new LinkedHashMap<>();
    List<String> failing = new ArrayList<>();
    for (Check check : checks) {
      String result;
      try {
        result = check.passes().getAsBoolean() ? "ok" : "failing";
      } catch (RuntimeException e) {
        result = "failing: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      }
      results.put(check.name(), result);
      if (!result.equals("ok")) {
        failing.add(check.name());
      }
    }
    return new Report(failing.isEmpty(), results, failing);
  }

  /** A check that the Temporal frontend answers its gRPC health check. */
  public static BooleanSupplier temporalReachable(WorkflowServiceStubs stubs) {
    Objects.requireNonNull(stubs, "stubs == null");
    return () -> stubs.healthCheck().getStatus() == io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING;
  }
}
