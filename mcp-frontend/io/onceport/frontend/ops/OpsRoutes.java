package io.onceport.frontend.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.util.Objects;

/**
 * {@code /metrics}, {@code /healthz} and {@code /readyz} on a Javalin app (the front end's listen
 * address). The same responses as {@link MetricsServer}, which serves them for worker-only processes.
 */
public final class OpsRoutes {
  static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Metrics metrics;
  private final HealthChecks checks;
  private final Readiness readiness;

  public OpsRoutes(Metrics metrics, HealthChecks checks) {
    this.metrics = Objects.requireNonNull(metrics, "metrics == null");
    this.checks = Objects.requireNonNull(checks, "checks == null");
    this.readiness = null;
  }

  /** With {@code /readyz} evaluated through {@code readiness}, so a change it sees is logged once and gates calls. */
  public OpsRoutes(Metrics metrics, Readiness readiness) {
    this.metrics = Objects.requireNonNull(metrics, "metrics == null");
    this.readiness = Objects.requireNonNull(readiness, "readiness == null");
    this.checks = readiness.checks();
  }

  /** Registers the routes, e.g. {@code Javalin.create(cfg -> opsRoutes.register(cfg.routes))}. */
  public void register(JavalinDefaultRoutingApi routes) {
    routes.get("/metrics", ctx -> ctx.contentType(PROMETHEUS_TYPE).result(metrics.scrape()));
    routes.get("/healthz", ctx -> ctx.contentType("application/json").result(healthz()));
    routes.get("/readyz", ctx -> {
      Response r = readyz();
      ctx.status(r.status()).contentType("application/json").result(r.body());
    });
  }

  /** A status and JSON body. */
  record Response(int status, String body) {}

  static String healthz() {
    return "{\"status\":\"alive\"}";
  }

  Response readyz() {
    HealthChecks.Report report = readiness != null ? readiness.evaluate() : checks.evaluate();
    ObjectNode body = JSON.createObjectNode().put("status", report.ready() ? "ready" : "not ready");
    if (!report.ready()) {
      report.failing().forEach(body.putArray("failing")::add);
      report.firstProblem().filter(v -> v.fix() != null).ifPresent(v -> body.put("reason", v.reason()).put("fix", v.fix()));
    }
    ObjectNode detail = body.putObject("checks");
    report.checks().forEach(detail::put);
    return new Response(report.ready() ? 200 : 503, body.toString());
  }

  String scrape() {
    return metrics.scrape();
  }
}
