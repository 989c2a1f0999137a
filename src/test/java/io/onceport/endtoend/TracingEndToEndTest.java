package io.onceport.endtoend;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.ops.Metrics;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.temporal.connect.ClientSettings;
import io.onceport.shared.codec.Payloads;
import io.onceport.shared.trace.Tracing;
import io.onceport.testing.Conditions;
import io.onceport.testing.McpClient;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code tools/call} is one trace, from the agent's {@code traceparent} to the request the
 * target received: the front end's MCP span, Temporal's client, workflow and activity spans (its
 * tracing interceptors on the OpenTelemetry shim), and the send's span, whose context the target
 * gets as {@code traceparent}. Exported to the SDK's in-memory exporter; the whole gateway as
 * {@code serve} wires it (embedded engine, worker, front end), a real HTTP target.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TracingEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String AGENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String AGENT_SPAN = "00f067aa0ba902b7";
  @TempDir Path dir;
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private OpenTelemetrySdk sdk;
  private MockWebServer target;
  private EmbeddedEngine engine;
  private TemporalConnection connection;
  private WorkerRuntime worker;
  private FrontendRuntime frontend;
  private McpClient client;

  @BeforeEach
  void start() throws Exception {
    sdk = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build();
    target = new MockWebServer();
    for (int i = 0; i < 4; i++) {
      target.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"rel_" + i + "\"}").build());
    }
    target.start(java.net.InetAddress.getLoopbackAddress(), 0);
    Path data = Files.createDirectories(dir.resolve("data"));
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    Files.writeString(contracts.resolve("create_release.yaml"), """
        tool: create_release
        description: Deploy a release (tracing test).
        input_schema:
          type: object
          required: [service, version]
          properties:
            service: {type: string}
            version: {type: string}
        channel: http
        http:
          method: POST
          url: %s/v1/releases
          idempotency_header: Idempotency-Key
        replay:
          class: idempotency_key
          attach_window: PT10M
        """.formatted(target.url("/").toString().replaceAll("/$", "")));
    String token = new AgentRegistry(data).add("agent:traced");
    engine = EmbeddedEngine.start("127.0.0.1", 0);
    Metrics metrics = new Metrics();
    connection = TemporalConnection.connect(ClientSettings.plaintext(engine.target(), "default"), true,
        Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope(), List.of(), Tracing.of(sdk));
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    worker = WorkerRuntime.start(connection, "traced", data, null, "auto", Duration.ofMinutes(1), "traced");
    frontend = FrontendRuntime.start(connection, "traced", data, new ContractLoader().load(contracts),
        FrontendSettings.loopback(Duration.ofSeconds(20), "auto"), metrics);
    client = new McpClient(frontend.port(), token).initialize();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {frontend, worker, connection, engine, target}) {
      if (c != null) {
        c.close();
      }
    }
    if (sdk != null) {
      sdk.close();
    }
  }

  private JsonNode call(int id, String version, String traceparentInMeta) throws Exception {
    String meta = traceparentInMeta == null ? "" : ",\"_meta\":{\"traceparent\":\"" + traceparentInMeta + "\"}";
    return JSON.readTree(client.post("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":"
        + "\"create_release\",\"arguments\":{\"service\":\"catalog\",\"version\":\"" + version + "\"}" + meta + "}}").body());
  }

  private List<SpanData> trace(String traceId, Set<String> awaited) throws InterruptedException {
    try {
      Conditions.await("spans " + awaited + " in trace " + traceId, Duration.ofSeconds(30), () -> spans.getFinishedSpanItems().stream()
          .filter(s -> s.getTraceId().equals(traceId)).map(SpanData::getName).collect(Collectors.toSet()).containsAll(awaited));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; spans: " + spans.getFinishedSpanItems().stream()
          .map(s -> s.getName() + " " + s.getTraceId() + "/" + s.getSpanId() + "<" + s.getParentSpanId()).toList(), e);
    }
    return spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
  }

  private static SpanData named(List<SpanData> trace, String name) {
    return trace.stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow(() -> new AssertionError(
        "no span " + name + " in " + trace.stream().map(SpanData::getName).toList()));
  }

  @Test
  void oneCallIsOneTraceFromTheAgentsTraceparentToTheRequestTheTargetReceived() throws Exception {
    JsonNode answer = call(1, "1.0", "00-" + AGENT_TRACE + "-" + AGENT_SPAN + "-01");
    assertEquals("completed", answer.at("/result/structuredContent/state").asText(), answer.toString());
    String executionId = answer.at("/result/structuredContent/execution_id").asText();
    List<SpanData> trace = trace(AGENT_TRACE, Set.of("tools/call create_release", "RunWorkflow:ToolExecution", "onceport.send"));

    SpanData mcp = named(trace, "tools/call create_release");
    assertEquals(AGENT_SPAN, mcp.getParentSpanId(), "the agent's span is the parent of the front end's");
    assertEquals(SpanKind.SERVER, mcp.getKind());
    assertEquals("tools/call", mcp.getAttributes().get(AttributeKey.stringKey("mcp.method.name")));
    assertEquals("create_release", mcp.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.name")));
    assertEquals(executionId, mcp.getAttributes().get(AttributeKey.stringKey("onceport.execution_id")));
    assertEquals(Boolean.FALSE, mcp.getAttributes().get(AttributeKey.booleanKey("onceport.attached")), "this call started it");

    SpanData send = named(trace, "onceport.send");
    assertEquals("http", send.getAttributes().get(AttributeKey.stringKey("onceport.channel")));
    assertEquals(target.getHostName(), send.getAttributes().get(AttributeKey.stringKey("server.address")));
    assertEquals(201L, send.getAttributes().get(AttributeKey.longKey("onceport.target.status")));
    assertEquals(1L, send.getAttributes().get(AttributeKey.longKey("onceport.attempt")));
    assertTrue(trace.stream().anyMatch(s -> s.getName().startsWith("RunActivity:") && s.getSpanId().equals(send.getParentSpanId())),
        "the send is a child of the activity's span: " + trace.stream().map(SpanData::getName).toList());

    RecordedRequest received = target.takeRequest(10, TimeUnit.SECONDS);
    String traceparent = received.getHeaders().get("traceparent");
    assertEquals("00-" + AGENT_TRACE + "-" + send.getSpanId() + "-01", traceparent, "the target sees the send's span of this trace");
    assertNull(received.getHeaders().get("baggage"));
    assertNull(received.getHeaders().get("tracestate"));
    writeTrace(trace, traceparent);
  }

  /** The trace of the call, for reading (target/traces/one-call.txt): name, span id, parent, attributes. */
  private static void writeTrace(List<SpanData> trace, String targetSaw) throws java.io.IOException {
    StringBuilder b = new StringBuilder("trace " + AGENT_TRACE + " (agent span " + AGENT_SPAN + ")\n");
    trace.stream().sorted(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos)).forEach(s -> b.append(String.format(
        "%-40s span %s parent %s %s%n", s.getName(), s.getSpanId(), s.getParentSpanId(), s.getAttributes().asMap())));
    b.append("target received traceparent: ").append(targetSaw).append('\n');
    Path out = Files.createDirectories(Path.of("target", "traces")).resolve("one-call.txt");
    Files.writeString(out, b.toString());
  }

  @Test
  void theHttpHeaderIsTheParentWithoutMetaAndARetryWithAnotherTraceStillAttaches() throws Exception {
    String headerTrace = "0af7651916cd43dd8448eb211c80319c";
    JsonNode first = JSON.readTree(client.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_release\","
        + "\"arguments\":{\"service\":\"catalog\",\"version\":\"2.0\"}}}", "traceparent", "00-" + headerTrace + "-b7ad6b7169203331-01").body());
    String executionId = first.at("/result/structuredContent/execution_id").asText();
    SpanData mcp = named(trace(headerTrace, Set.of("tools/call create_release", "onceport.send")), "tools/call create_release");
    assertEquals("b7ad6b7169203331", mcp.getParentSpanId());
    String retryTrace = "11111111111111111111111111111111";
    JsonNode retry = call(2, "2.0", "00-" + retryTrace + "-2222222222222222-01");
    assertEquals(executionId, retry.at("/result/structuredContent/execution_id").asText(),
        "a traceparent is not part of the intent: the retry attaches to the same execution");
    SpanData attached = named(trace(retryTrace, Set.of("tools/call create_release")), "tools/call create_release");
    assertEquals(Boolean.TRUE, attached.getAttributes().get(AttributeKey.booleanKey("onceport.attached")));
    assertEquals(executionId, attached.getAttributes().get(AttributeKey.stringKey("onceport.execution_id")));
    assertEquals(1, target.getRequestCount(), "sent once");
    assertFalse(spans.getFinishedSpanItems().stream().anyMatch(s -> s.getTraceId().equals(retryTrace) && s.getName().equals("onceport.send")));
    assertNotEquals(headerTrace, retryTrace);
  }

  @Test
  void aMalformedTraceparentStartsANewTraceAndNeverFailsTheCall() throws Exception {
    JsonNode answer = call(1, "3.0", "00-not-a-trace-01");
    assertEquals("completed", answer.at("/result/structuredContent/state").asText(), answer.toString());
    Conditions.await("the front end's span", Duration.ofSeconds(30),
        () -> spans.getFinishedSpanItems().stream().anyMatch(s -> s.getName().equals("tools/call create_release")));
    SpanData mcp = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("tools/call create_release")).findFirst().orElseThrow();
    assertFalse(mcp.getParentSpanContext().isValid(), "a root span");
  }
}
