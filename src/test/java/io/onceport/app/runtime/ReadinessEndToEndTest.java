package io.onceport.app.runtime;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.ops.Metrics;
import io.onceport.frontend.ops.Readiness;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.codec.Payloads;
import io.onceport.testing.Cluster;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.testing.TemporalCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * {@code /readyz} means a call can succeed, on the real Temporal CLI dev server: a front end
 * pointed at a namespace that does not exist, at one without Onceport's search attributes, or at a
 * task queue no worker polls answers 503 with the reason and the command that fixes it, logs it
 * once, and refuses a call at once with that reason (before, it said {@code ready} and every call
 * failed after 20 s). Running the named command fixes it. On the embedded engine the same checks
 * pass for a working gateway.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReadinessEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static TemporalCliServer server;
  private static Cluster cluster;

  @BeforeAll
  static void startServer() throws Exception {
    cluster = new Cluster();
    server = TemporalCliServer.start(TemporalCli.binaryOrSkip(), cluster.dir.resolve("temporal"), "127.0.0.1", 0, 0, true, null,
        Duration.ofSeconds(90));
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aMissingNamespaceIsNotReadyNamesTheSetupCommandAndThatCommandFixesIt() throws Exception {
    try (TemporalConnection connection = connect("absent");
        FrontendRuntime frontend = frontend(connection, "ready-absent")) {
      JsonNode ready = readyz(frontend, 503);
      assertEquals("[\"namespace\",\"search_attributes\",\"worker\"]", ready.get("failing").toString(), ready.toString());
      String setup = "onceport temporal setup --temporal " + server.target() + " --namespace absent";
      assertEquals("namespace absent does not exist at " + server.target(), ready.get("reason").asText());
      assertEquals(setup, ready.get("fix").asText());
      assertRefusedAtOnce(frontend, "not ready: namespace absent does not exist at " + server.target() + "; fix: " + setup);

      StringWriter out = new StringWriter();
      var cl = OnceportCommand.commandLine();
      cl.setOut(new PrintWriter(out));
      assertEquals(0, cl.execute(setup.substring("onceport ".length()).split(" ")), out.toString());
      assertTrue(out.toString().contains("created namespace absent"), out.toString());
      // The namespace reaches the server's namespace cache within seconds; then only the worker is missing.
      JsonNode next = awaitFailing(frontend, "[\"worker\"]");
      assertEquals("onceport worker --temporal " + server.target() + " --namespace absent --task-queue ready-absent",
          next.get("fix").asText());
      try (WorkerRuntime worker = WorkerRuntime.start(connection, "ready-absent", cluster.data, null, "auto", Duration.ofMinutes(1),
          "ready-absent")) {
        readyzEventually(frontend);
        JsonNode r = new McpClient(frontend.port(), cluster.token).initialize()
            .call(2, "create_release", McpClient.json("{\"service\":\"catalog\",\"version\":\"2026.9.1\"}"));
        assertEquals("completed", r.at("/result/structuredContent/state").asText(), r.toString());
      }
    }
  }

  @Test
  void unregisteredSearchAttributesAreNamedAndTheChangeIsLoggedOnce() throws Exception {
    assertEquals(0, OnceportCommand.commandLine().execute("temporal", "setup", "--temporal", server.target(), "--namespace", "bare"));
    try (TemporalConnection operator = connect("bare")) {
      // A namespace made by someone else, without Onceport's attributes: remove what setup registered.
      var stubs = io.temporal.serviceclient.OperatorServiceStubs.newServiceStubs(
          io.temporal.serviceclient.OperatorServiceStubsOptions.newBuilder().setChannel(operator.stubs().getRawChannel())
              .validateAndBuildWithDefaults());
      stubs.blockingStub().removeSearchAttributes(io.temporal.api.operatorservice.v1.RemoveSearchAttributesRequest.newBuilder()
          .setNamespace("bare").addAllSearchAttributes(ExecutionSearchAttributes.NAMES).build());
      stubs.shutdownNow();
    }
    ListAppender<ILoggingEvent> logs = capture();
    try (TemporalConnection connection = connect("bare");
        FrontendRuntime frontend = frontend(connection, "ready-bare")) {
      JsonNode ready = awaitFailing(frontend, "[\"search_attributes\",\"worker\"]");
      assertEquals("search attributes not registered in namespace bare: " + String.join(", ", ExecutionSearchAttributes.NAMES),
          ready.get("reason").asText());
      assertEquals("onceport temporal setup --temporal " + server.target() + " --namespace bare", ready.get("fix").asText());
      readyz(frontend, 503);
      readyz(frontend, 503);
      long warnings = logs.list.stream().filter(e -> e.getLevel() == Level.WARN
          && e.getFormattedMessage().startsWith("not ready: search attributes not registered in namespace bare")).count();
      assertEquals(1, warnings, logs.list.toString());
    } finally {
      release(logs);
    }
  }

  @Test
  void noWorkerPollingIsNotReadyAndACallFailsAtOnceNamingTheWorkerCommand() throws Exception {
    try (TemporalConnection connection = connect("default");
        FrontendRuntime frontend = frontend(connection, "nobody-polls")) {
      JsonNode ready = readyz(frontend, 503);
      assertEquals("[\"worker\"]", ready.get("failing").toString(), ready.toString());
      String fix = "onceport worker --temporal " + server.target() + " --namespace default --task-queue nobody-polls";
      assertEquals(fix, ready.get("fix").asText());
      assertRefusedAtOnce(frontend, "not ready: no worker polls task queue nobody-polls in namespace default at "
          + server.target() + "; fix: " + fix);
      assertEquals("not ready: no worker polls task queue nobody-polls in namespace default at " + server.target()
          + " (fix: " + fix + ")", frontend.readiness().evaluate().summary());
    }
  }

  @Test
  void onTheEmbeddedEngineAWorkingGatewayIsReady() throws Exception {
    try (GatewayHarness gateway = new GatewayHarness(true)) {
      JsonNode ready = readyz(gateway.frontend, 200);
      assertEquals("{\"temporal\":\"ok\",\"namespace\":\"ok\",\"search_attributes\":\"ok\",\"worker\":\"ok\",\"payload_keys\":\"ok\","
          + "\"contracts\":\"ok\"}", ready.get("checks").toString());
      JsonNode r = gateway.client().call(1, "create_release", McpClient.json("{\"service\":\"catalog\",\"version\":\"2026.9.2\"}"));
      assertEquals("completed", r.at("/result/structuredContent/state").asText(), r.toString());
    }
  }

  private static TemporalConnection connect(String namespace) {
    return TemporalConnection.connect(server.target(), namespace, false, Payloads.dataConverter(true, cluster.data),
        Duration.ofSeconds(10));
  }

  private static FrontendRuntime frontend(TemporalConnection connection, String taskQueue) throws Exception {
    return FrontendRuntime.start(connection, taskQueue, cluster.data, new ContractLoader().load(cluster.contracts),
        FrontendSettings.loopback(Duration.ofSeconds(30), "auto"), new Metrics());
  }

  /** A tools/call is answered within 5 s (not after the 20 s attach budget) with the reason and fix. */
  private static void assertRefusedAtOnce(FrontendRuntime frontend, String message) throws Exception {
    McpClient client = new McpClient(frontend.port(), cluster.token).initialize();
    long start = System.nanoTime();
    JsonNode r = client.call(1, "create_release", McpClient.json("{\"service\":\"catalog\",\"version\":\"2026.9.3\"}"));
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(millis < 5_000, "answered after " + millis + " ms: " + r);
    assertEquals(-32603, r.at("/error/code").asInt(), r.toString());
    assertEquals("Execution layer: " + message + " (nothing was started for this call)", r.at("/error/message").asText());
  }

  private static JsonNode readyz(FrontendRuntime frontend, int status) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + frontend.port() + "/readyz")).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(status, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  /** Polls /readyz until exactly {@code failing} fail (the server's namespace cache catches up within seconds). */
  private static JsonNode awaitFailing(FrontendRuntime frontend, String failing) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + frontend.port() + "/readyz")).timeout(Duration.ofSeconds(20)).build(),
          HttpResponse.BodyHandlers.ofString());
      last = JSON.readTree(r.body());
      if (r.statusCode() == 503 && failing.equals(last.path("failing").toString())) {
        return last;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("readyz never failed exactly " + failing + ": " + last);
  }

  private static void readyzEventually(FrontendRuntime frontend) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (frontend.readiness().evaluate().ready()) {
        readyz(frontend, 200);
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("never ready: " + frontend.readiness().evaluate().checks());
  }

  private static ListAppender<ILoggingEvent> capture() {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    logs.setContext(context);
    logs.start();
    context.getLogger(Readiness.class).addAppender(logs);
    return logs;
  }

  private static void release(ListAppender<ILoggingEvent> logs) {
    Logger logger = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(Readiness.class);
    logger.detachAppender(logs);
  }
}
