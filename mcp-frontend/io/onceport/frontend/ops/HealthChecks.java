package io.onceport.frontend.ops;

import io.grpc.health.v1.HealthCheckResponse;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The named readiness checks behind {@code /readyz}. A process is ready when every check passes;
 * a check that throws counts as failing (with its message), so one broken dependency cannot turn
 * the probe into a 500. {@code /healthz} does not run checks: it only says the process answers.
 *
 * <p>A check may say why it fails and which command fixes it ({@link Verdict}): a front end pointed
 * at a namespace that does not exist used to answer {@code ready} and fail every call 20 s later;
 * now {@code /readyz} names the namespace and the command that creates it.
 */
public final class HealthChecks {
  /**
   * One check's outcome.
   *
   * @param reason why it fails, or null (passing, or a plain failing check)
   * @param fix the command that fixes it, or null
   * @param blocksCalls whether a call cannot succeed while this fails (a missing namespace), as
   *     opposed to a failure that may pass by itself in a moment (Temporal restarting)
   */
  public record Verdict(boolean ok, String reason, String fix, boolean blocksCalls) {
    public static final Verdict OK = new Verdict(true, null, null, false);

    public Verdict {
      if (ok && (reason != null || fix != null || blocksCalls)) {
        throw new IllegalArgumentException("a passing verdict has no reason, fix or block");
      }
    }

    /** Failing so that no call can succeed until {@code fix} is run. */
    public static Verdict blocking(String reason, String fix) {
      return new Verdict(false, Objects.requireNonNull(reason, "reason == null"), fix, true);
    }

    /** Failing for now (it may pass by itself); calls still try. */
    public static Verdict failing(String reason) {
      return new Verdict(false, reason, null, false);
    }

    /** {@code "ok"}, {@code "failing"} or {@code "failing: <reason>"}. */
    public String text() {
      return ok ? "ok" : reason == null ? "failing" : "failing: " + reason;
    }
  }

  /**
   * One named check; {@code name} appears in the readyz body, so keep it short ({@code temporal},
   * {@code contracts}).
   *
   * @param after the check this one needs to pass first (null: none); while that one fails this one
   *     is not run — a Temporal that does not answer is one failure, not four
   */
  public record Check(String name, String after, Supplier<Verdict> verdict) {
    public Check {
      Objects.requireNonNull(name, "name == null");
      Objects.requireNonNull(verdict, "verdict == null");
    }
  }

  /**
   * The evaluation: check name to {@code "ok"} or the failure text, in registration order, and the
   * first failing check that names its fix (what {@code /readyz} and the start-up line show).
   */
  public record Report(boolean ready, Map<String, String> checks, List<String> failing, Map<String, Verdict> verdicts) {
    public Report {
      checks = Collections.unmodifiableMap(new LinkedHashMap<>(checks));
      failing = List.copyOf(failing);
      verdicts = Collections.unmodifiableMap(new LinkedHashMap<>(verdicts));
    }

    /** The first failing check that says why and how to fix it, else the first failing check. */
    public Optional<Verdict> firstProblem() {
      return verdicts.values().stream().filter(v -> !v.ok() && v.fix() != null).findFirst()
          .or(() -> verdicts.values().stream().filter(v -> !v.ok()).findFirst());
    }

    /** The first failing check that no call can get past, if any. */
    public Optional<Verdict> blocking() {
      return verdicts.values().stream().filter(Verdict::blocksCalls).findFirst();
    }

    /** One line: {@code ready}, or {@code not ready: <reason> (fix: <command>)}. */
    public String summary() {
      if (ready) {
        return "ready";
      }
      Optional<Verdict> problem = firstProblem();
      String name = failing.get(0);
      return "not ready: " + problem.map(v -> (v.reason() == null ? name + " failing" : v.reason())
          + (v.fix() == null ? "" : " (fix: " + v.fix() + ")")).orElse(name + " failing");
    }
  }

  private final List<Check> checks = new CopyOnWriteArrayList<>();

  public HealthChecks add(String name, BooleanSupplier passes) {
    Objects.requireNonNull(passes, "passes == null");
    return addVerdict(name, () -> passes.getAsBoolean() ? Verdict.OK : Verdict.failing(null));
  }

  /** A check that says why it fails and what fixes it. */
  public HealthChecks addVerdict(String name, Supplier<Verdict> verdict) {
    return addVerdict(name, null, verdict);
  }

  /** A check run only when the check named {@code after} passed (else shown as not checked). */
  public HealthChecks addVerdict(String name, String after, Supplier<Verdict> verdict) {
    checks.add(new Check(name, after, verdict));
    return this;
  }

  public Report evaluate() {
    Map<String, String> results = new LinkedHashMap<>();
    Map<String, Verdict> verdicts = new LinkedHashMap<>();
    List<String> failing = new ArrayList<>();
    for (Check check : checks) {
      if (check.after() != null && !"ok".equals(results.getOrDefault(check.after(), "ok"))) {
        results.put(check.name(), "not checked: " + check.after() + " failing");
        continue;
      }
      Verdict verdict;
      try {
        verdict = Objects.requireNonNull(check.verdict().get(), "verdict == null");
      } catch (RuntimeException e) {
        verdict = Verdict.failing(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      }
      results.put(check.name(), verdict.text());
      verdicts.put(check.name(), verdict);
      if (!verdict.ok()) {
        failing.add(check.name());
      }
    }
    return new Report(failing.isEmpty(), results, failing, verdicts);
  }

  /** A check that the Temporal frontend answers its gRPC health check. */
  public static BooleanSupplier temporalReachable(WorkflowServiceStubs stubs) {
    Objects.requireNonNull(stubs, "stubs == null");
    return () -> stubs.healthCheck().getStatus() == HealthCheckResponse.ServingStatus.SERVING;
  }
}
