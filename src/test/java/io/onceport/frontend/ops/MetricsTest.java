package io.onceport.frontend.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsTest {
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static double value(String scrape, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " ([0-9.eE+-]+)$").matcher(scrape);
    assertTrue(m.find(), "no series " + series + " in\n" + scrape);
    return Double.parseDouble(m.group(1));
  }

  @Test
  void scrapeShowsOnceportSeriesWithTheRecordedCounts() {
    try (Metrics metrics = new Metrics()) {
      metrics.executionFinished("create_release", "completed", "completed");
      metrics.executionFinished("create_release", "completed", "completed");
      metrics.executionFinished("create_release", "needs_review", "unknown");
      metrics.attached("create_release");
      metrics.attached("create_release");
      metrics.attached("create_release");
      metrics.unknownOutcome("create_release");
      metrics.statusQueryResolved("create_release", "delivered");
      metrics.reviewsWaiting(4);
      metrics.dispatchLatency("create_release", "http", Duration.ofMillis(120));
      metrics.dispatchLatency("create_release", "http", Duration.ofMillis(80));

      String scrape = metrics.scrape();

      assertEquals(2.0, value(scrape, "onceport_executions_total{outcome=\"completed\",state=\"completed\",tool=\"create_release\"}"));
      assertEquals(1.0, value(scrape, "onceport_executions_total{outcome=\"unknown\",state=\"needs_review\",tool=\"create_release\"}"));
      assertEquals(3.0, value(scrape, "onceport_attaches_total{tool=\"create_release\"}"));
      assertEquals(1.0, value(scrape, "onceport_unknown_outcomes_total{tool=\"create_release\"}"));
      assertEquals(1.0, value(scrape, "onceport_status_query_resolutions_total{tool=\"create_release\",verdict=\"delivered\"}"));
      assertEquals(4.0, value(scrape, "onceport_reviews_waiting"));
      assertEquals(2.0, value(scrape, "onceport_dispatch_seconds_count{channel=\"http\",tool=\"create_release\"}"));
      assertEquals(0.2, value(scrape, "onceport_dispatch_seconds_sum{channel=\"http\",tool=\"create_release\"}"), 1e-9);
      assertTrue(scrape.contains("onceport_dispatch_seconds_bucket{channel=\"http\",tool=\"create_release\",le=\"+Inf\"} 2"), scrape);
    }
  }

  @Test
  void temporalSdkMetricsLandInTheSameRegistry() throws Exception {
    try (Metrics metrics = new Metrics(); TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
          .setChannel(env.getWorkflowServiceStubs().getRawChannel())
          .setMetricsScope(metrics.metricsScope())
          .build());
      try {
        WorkflowClient.newInstance(stubs).listExecutions("WorkflowType='x'").limit(1).count();
      } catch (RuntimeException expectedOnTestServer) {
        // The test server has no visibility queries; the failed request is still a request.
      }
      stubs.shutdownNow();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!metrics.scrape().contains("temporal_request") && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      assertTrue(metrics.scrape().contains("temporal_request"), metrics.scrape());
    }
  }

  @Test
  void aTemporalConnectionWithTheMetricsScopeReportsWorkerMetrics() throws Exception {
    try (Metrics metrics = new Metrics();
        io.onceport.app.engine.EmbeddedEngine engine = io.onceport.app.engine.EmbeddedEngine.start("127.0.0.1", 0);
        io.onceport.shared.temporal.TemporalConnection connection = io.onceport.shared.temporal.TemporalConnection.connect(
            engine.target(), "default", true, null, Duration.ofSeconds(10), metrics.metricsScope())) {
      connection.client().getWorkflowServiceStubs().blockingStub().getSystemInfo(
          io.temporal.api.workflowservice.v1.GetSystemInfoRequest.getDefaultInstance());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!metrics.scrape().contains("temporal_request_total") && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      assertTrue(metrics.scrape().contains("temporal_request_total"), metrics.scrape());
      assertTrue(new HealthChecks().add("temporal", HealthChecks.temporalReachable(connection.stubs())).evaluate().ready());
    }
  }

  @io.temporal.workflow.WorkflowInterface
  public interface Counted {
    @io.temporal.workflow.WorkflowMethod
    void run(String tool);
  }

  public static class CountedImpl implements Counted {
    @Override
    public void run(String tool) {
      io.temporal.workflow.Workflow.sleep(Duration.ofMillis(50)); // a second workflow task: a replay point
      io.temporal.workflow.Workflow.getMetricsScope()
          .tagged(java.util.Map.of("tool", tool, "state", "completed", "outcome", "completed"))
          .counter("onceport_executions").inc(1);
    }
  }

  /** The alternative for workflow-level counts: the SDK's replay-safe workflow scope lands in the same registry. */
  @Test
  void workflowMetricsScopeCountsOncePerExecutionInTheSameRegistry() throws Exception {
    try (Metrics metrics = new Metrics();
        TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(io.temporal.testing.TestEnvironmentOptions.newBuilder()
            .setMetricsScope(metrics.metricsScope()).build())) {
      env.newWorker("counted").registerWorkflowImplementationTypes(CountedImpl.class);
      env.start();
      for (int i = 0; i < 2; i++) {
        env.getWorkflowClient().newWorkflowStub(Counted.class,
            io.temporal.client.WorkflowOptions.newBuilder().setTaskQueue("counted").setWorkflowId("counted-" + i).build()).run("t");
      }
      Pattern series = Pattern.compile("(?m)^onceport_executions_total\\{[^}]*tool=\"t\"[^}]*\\} ([0-9.]+)$");
      // The reporter flushes every 10 s: wait for a flush that includes both runs (or time out and show the scrape).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
      Matcher m = series.matcher(metrics.scrape());
      while (!(m.find() && Double.parseDouble(m.group(1)) >= 2.0) && System.nanoTime() < deadline) {
        Thread.sleep(200);
        m = series.matcher(metrics.scrape());
      }
      m = series.matcher(metrics.scrape());
      assertTrue(m.find(), metrics.scrape());
      assertEquals(2.0, Double.parseDouble(m.group(1)), m.group());
    }
  }

  @Test
  void readyzIs503NamingTheFailingCheckWhileHealthzStaysUp() throws Exception {
    HealthChecks checks = new HealthChecks()
        .add("temporal", () -> false)
        .add("contracts", () -> true)
        .add("vault", () -> {
          throw new IllegalStateException("vault is locked");
        });
    try (Metrics metrics = new Metrics(); MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics, checks)) {
      String base = "http://127.0.0.1:" + server.port();

      HttpResponse<String> ready = get(base + "/readyz");
      assertEquals(503, ready.statusCode());
      assertEquals("{\"status\":\"not ready\",\"failing\":[\"temporal\",\"vault\"],"
          + "\"checks\":{\"temporal\":\"failing\",\"contracts\":\"ok\",\"vault\":\"failing: vault is locked\"}}", ready.body());

      HttpResponse<String> health = get(base + "/healthz");
      assertEquals(200, health.statusCode());
      assertEquals("{\"status\":\"alive\"}", health.body());
    }
  }

  @Test
  void metricsServerServesTheScrapeAndReadyWhenChecksPass() throws Exception {
    HealthChecks checks = new HealthChecks().add("contracts", () -> true);
    try (Metrics metrics = new Metrics(); MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics, checks)) {
      metrics.attached("t");
      String base = "http://127.0.0.1:" + server.port();

      HttpResponse<String> scrape = get(base + "/metrics");
      assertEquals(200, scrape.statusCode());
      assertEquals(1.0, value(scrape.body(), "onceport_attaches_total{tool=\"t\"}"));
      assertTrue(scrape.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));

      HttpResponse<String> ready = get(base + "/readyz");
      assertEquals(200, ready.statusCode());
      assertEquals("{\"status\":\"ready\",\"checks\":{\"contracts\":\"ok\"}}", ready.body());
      assertEquals(404, get(base + "/metricsx").statusCode());
    }
  }

  @Test
  void opsRoutesOnJavalinAnswerLikeTheMetricsServer() throws Exception {
    HealthChecks checks = new HealthChecks().add("temporal", () -> false);
    try (Metrics metrics = new Metrics()) {
      OpsRoutes routes = new OpsRoutes(metrics, checks);
      io.javalin.Javalin app = io.javalin.Javalin.create(cfg -> routes.register(cfg.routes)).start("127.0.0.1", 0);
      try {
        metrics.unknownOutcome("t");
        String base = "http://127.0.0.1:" + app.port();
        assertEquals(1.0, value(get(base + "/metrics").body(), "onceport_unknown_outcomes_total{tool=\"t\"}"));
        HttpResponse<String> ready = get(base + "/readyz");
        assertEquals(503, ready.statusCode());
        assertEquals("{\"status\":\"not ready\",\"failing\":[\"temporal\"],\"checks\":{\"temporal\":\"failing\"}}", ready.body());
        assertEquals(200, get(base + "/healthz").statusCode());
      } finally {
        app.stop();
      }
    }
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
