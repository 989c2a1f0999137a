package io.onceport.activity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.temporal.failure.ApplicationFailure;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HttpChannelTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EXECUTION_ID = "act_01JTESTEXECUTION";

  private final MockWebServer server = new MockWebServer();
  private final HttpChannel channel = new HttpChannel();
  private final RecordingContext context = new RecordingContext();

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void createdResponseBecomesResultWithBodyAndSelectedHeaders() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201)
        .addHeader("Content-Type", "application/json")
        .addHeader("Location", "/v1/releases/rel_1")
        .addHeader("X-Unrelated", "dropped")
        .body("{\"id\":\"rel_1\"}").build());

    DispatchResult result = channel.dispatch(request(post("/v1/releases", null), "{\"service\":\"api\"}"), context);

    assertEquals(201, result.status());
    assertEquals("{\"id\":\"rel_1\"}", result.body());
    assertFalse(result.truncated());
    assertEquals(Map.of("content-type", "application/json", "location", "/v1/releases/rel_1"), result.headers());
    assertEquals(1, context.beforeSendCalls);
  }

  @Test
  void serverErrorIsReturnedAsResultWithItsBody() {
    server.enqueue(new MockResponse.Builder().code(500).body("boom").build());

    DispatchResult result = channel.dispatch(request(post("/v1/releases", null), "{}"), context);

    assertEquals(500, result.status());
    assertEquals("boom", result.body());
    assertFalse(result.succeeded());
  }

  @Test
  void idempotencyHeaderCarriesTheExecutionId() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).build());

    channel.dispatch(request(post("/v1/releases", null), "{}"), context);

    assertEquals(EXECUTION_ID, server.takeRequest().getHeaders().get("Idempotency-Key"));
  }

  @Test
  void urlPlaceholdersArePercentEncodedAsOnePathSegment() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).build());
    HttpSpec spec = spec("GET", "/v1/items/{{name}}?run={{execution_id}}&n={{n}}", null, Map.of(), null, null);

    channel.dispatch(request(spec, "{\"name\":\"a/b c\",\"n\":7}"), context);

    assertEquals("/v1/items/a%2Fb%20c?run=" + EXECUTION_ID + "&n=7", server.takeRequest().getTarget());
  }

  @Test
  void wholeStringBodyPlaceholdersKeepTheArgumentsJsonTypes() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).build());
    String template = "{\"count\":\"{{n}}\",\"flag\":\"{{f}}\",\"meta\":\"{{m}}\",\"label\":\"v{{n}} of {{name}} in {{execution_id}}\",\"fixed\":[1,\"x\"]}";

    channel.dispatch(request(post("/v1/things", template), "{\"n\":3,\"f\":true,\"m\":{\"a\":[1,2]},\"name\":\"api\"}"), context);

    RecordedRequest recorded = server.takeRequest();
    assertEquals(
        JSON.readTree("{\"count\":3,\"flag\":true,\"meta\":{\"a\":[1,2]},\"label\":\"v3 of api in " + EXECUTION_ID + "\",\"fixed\":[1,\"x\"]}"),
        JSON.readTree(recorded.getBody().utf8()));
    assertEquals("application/json; charset=utf-8", recorded.getHeaders().get("Content-Type"));
  }

  @Test
  void absentBodyTemplateSendsTheArgumentsObject() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).build());

    channel.dispatch(request(post("/v1/things", null), "{\"service\":\"api\",\"replicas\":2}"), context);

    assertEquals("{\"service\":\"api\",\"replicas\":2}", server.takeRequest().getBody().utf8());
  }

  @Test
  void contractHeadersAreTemplated() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).build());
    HttpSpec spec = spec("POST", "/v1/things", null, Map.of("X-Service", "svc-{{service}}"), null, null);

    channel.dispatch(request(spec, "{\"service\":\"api\"}"), context);

    assertEquals("svc-api", server.takeRequest().getHeaders().get("X-Service"));
  }

  @Test
  void missingPlaceholderArgumentIsAnInvalidRequestAndNothingIsSent() {
    HttpSpec spec = spec("POST", "/v1/releases/{{version}}", null, Map.of(), null, null);

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(request(spec, "{\"service\":\"api\"}"), context));

    assertEquals(ErrorTypes.INVALID_REQUEST, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertEquals("Placeholder {{version}} in url has no argument value", failure.getOriginalMessage());
    assertEquals(0, server.getRequestCount());
    assertEquals(0, context.beforeSendCalls);
  }

  @Test
  void malformedPlaceholderIsAnInvalidRequest() {
    HttpSpec spec = spec("POST", "/v1/releases/{{version", null, Map.of(), null, null);

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(request(spec, "{}"), context));

    assertEquals(ErrorTypes.INVALID_REQUEST, failure.getType());
    assertEquals("Malformed placeholder in url template 'http://127.0.0.1:" + server.getPort() + "/v1/releases/{{version'",
        failure.getOriginalMessage());
  }

  @Test
  void connectionRefusedIsNotSentAndRetryable() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      closedPort = socket.getLocalPort();
    }
    HttpSpec spec = new HttpSpec("POST", "http://127.0.0.1:" + closedPort + "/v1/releases", null, Map.of(), "Idempotency-Key", null, 2000);

    ApplicationFailure failure = assertThrows(ApplicationFailure.class, () -> channel.dispatch(request(spec, "{}"), context));

    assertEquals(ErrorTypes.NOT_SENT, failure.getType());
    assertFalse(failure.isNonRetryable());
    assertTrue(failure.getOriginalMessage().startsWith("POST http://127.0.0.1:" + closedPort + "/v1/releases: request not sent ("),
        failure.getOriginalMessage());
    assertEquals(0, context.beforeSendCalls);
  }

  @Test
  void connectionDroppedAfterTheTargetReadTheRequestIsOutcomeUnknown() throws Exception {
    server.enqueue(new MockResponse.Builder().onResponseStart(new SocketEffect.CloseSocket()).build());

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(request(post("/v1/releases", null), "{\"service\":\"api\"}"), context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertTrue(failure.getOriginalMessage().contains("request may have reached the target, no response observed"),
        failure.getOriginalMessage());
    assertEquals(1, server.getRequestCount());
    assertEquals("{\"service\":\"api\"}", server.takeRequest().getBody().utf8());
    assertEquals(1, context.beforeSendCalls);
  }

  @Test
  void disconnectAtStartIsOutcomeUnknownBecauseRequestBytesMayHaveLeft() {
    server.enqueue(new MockResponse.Builder().onRequestStart(new SocketEffect.CloseSocket()).build());

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(request(post("/v1/releases", null), "{}"), context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, failure.getType());
    assertEquals(1, context.beforeSendCalls);
  }

  @Test
  void noResponseWithinTheTimeoutIsOutcomeUnknown() throws Exception {
    server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
    // The contract timeout bounds the whole call, connecting included: it must leave room for the
    // request to leave on a busy machine (a call that times out before sending is NOT_SENT, rightly).
    HttpSpec spec = new HttpSpec("POST", server.url("/v1/releases").toString(), null, Map.of(), null, null, 2000);

    ApplicationFailure failure = assertThrows(ApplicationFailure.class, () -> channel.dispatch(request(spec, "{}"), context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, failure.getType(), failure.getOriginalMessage());
    // The call timeout and the read timeout are both 2 s: on a loaded machine either fires first.
    assertTrue(failure.getOriginalMessage().contains("timeout") || failure.getOriginalMessage().contains("Read timed out"),
        failure.getOriginalMessage());
    assertEquals("/v1/releases", server.takeRequest().getTarget());
    assertEquals(1, server.getRequestCount());
  }

  @Test
  void headerCredentialIsInjectedAndNeverAppearsInFailureMessages() throws Exception {
    String secret = "s3cr3t-token-value";
    context.credentials.put("demo-key", new Credential("demo-key", Credential.Type.HEADER, "X-Api-Key", null, secret));
    HttpSpec spec = spec("POST", "/v1/releases", null, Map.of(), null, "demo-key");
    server.enqueue(new MockResponse.Builder().code(201).build());
    server.enqueue(new MockResponse.Builder().onResponseStart(new SocketEffect.CloseSocket()).build());

    channel.dispatch(request(spec, "{}"), context);
    ApplicationFailure failure = assertThrows(ApplicationFailure.class, () -> channel.dispatch(request(spec, "{}"), context));

    assertEquals(secret, server.takeRequest().getHeaders().get("X-Api-Key"));
    assertFalse(failure.getOriginalMessage().contains(secret));
    assertFalse(failure.toString().contains(secret));
  }

  @Test
  void bearerAndBasicCredentialsBecomeAuthorizationHeaders() throws Exception {
    context.credentials.put("bearer", new Credential("bearer", Credential.Type.BEARER, null, null, "tok"));
    context.credentials.put("basic", new Credential("basic", Credential.Type.BASIC, null, "ops", "pw"));
    server.enqueue(new MockResponse.Builder().code(201).build());
    server.enqueue(new MockResponse.Builder().code(201).build());

    channel.dispatch(request(spec("POST", "/a", null, Map.of(), null, "bearer"), "{}"), context);
    channel.dispatch(request(spec("POST", "/b", null, Map.of(), null, "basic"), "{}"), context);

    assertEquals("Bearer tok", server.takeRequest().getHeaders().get("Authorization"));
    assertEquals("Basic b3BzOnB3", server.takeRequest().getHeaders().get("Authorization"));
  }

  @Test
  void credentialValueThatCannotBeAHeaderFailsWithoutQuotingIt() {
    context.credentials.put("bad", new Credential("bad", Credential.Type.HEADER, "X-Api-Key", null, "line1\nsecret-part"));

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(request(spec("POST", "/a", null, Map.of(), null, "bad"), "{}"), context));

    assertEquals(ErrorTypes.INVALID_REQUEST, failure.getType());
    assertEquals("Credential 'bad' does not fit in header X-Api-Key (invalid characters)", failure.getOriginalMessage());
    assertEquals(0, server.getRequestCount());
  }

  @Test
  void responseBodyIsCappedAndMarkedTruncated() {
    server.enqueue(new MockResponse.Builder().code(200).body("x".repeat(DispatchResult.BODY_CAP + 10)).build());

    DispatchResult result = channel.dispatch(request(post("/big", null), "{}"), context);

    assertEquals(DispatchResult.BODY_CAP, result.body().length());
    assertTrue(result.truncated());
  }

  @Test
  void bodyIsDecodedWithTheResponseCharset() {
    server.enqueue(new MockResponse.Builder().code(200)
        .addHeader("Content-Type", "text/plain; charset=ISO-8859-1")
        .body(new okio.Buffer().write(new byte[] {(byte) 0xE9})).build());

    DispatchResult result = channel.dispatch(request(post("/latin", null), "{}"), context);

    assertEquals("\u00e9", result.body());
  }

  @Test
  void redirectIsNotFollowedForPost() {
    server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "/elsewhere").build());
    server.enqueue(new MockResponse.Builder().code(200).build());

    DispatchResult result = channel.dispatch(request(post("/v1/releases", null), "{}"), context);

    assertEquals(302, result.status());
    assertEquals("/elsewhere", result.headers().get("location"));
    assertEquals(1, server.getRequestCount());
  }

  @Test
  void everyDispatchOpensAFreshConnectionSoAStalePooledSocketCannotFakeAnUnknownOutcome() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).build());
    server.enqueue(new MockResponse.Builder().code(201).build());

    channel.dispatch(request(post("/a", null), "{}"), context);
    channel.dispatch(request(post("/b", null), "{}"), context);

    assertEquals(0, server.takeRequest().getExchangeIndex());
    assertEquals(0, server.takeRequest().getExchangeIndex());
  }

  @Test
  void redirectIsNotFollowedForGetEitherTheRedirectIsTheAnswer() throws Exception {
    server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "/elsewhere").build());
    server.enqueue(new MockResponse.Builder().code(200).body("here").build());

    DispatchResult result = channel.dispatch(request(spec("GET", "/v1/releases", null, Map.of(), null, null), "{}"), context);

    assertEquals(302, result.status());
    assertEquals("/elsewhere", result.headers().get("location"));
    assertEquals(1, context.beforeSendCalls);
    assertEquals(1, server.getRequestCount());
    assertEquals(0, server.takeRequest().getBodySize());
  }

  @Test
  void failingBeforeSendPropagatesAndTheTargetSeesNoRequest() {
    ApplicationFailure journalDown = ApplicationFailure.newNonRetryableFailure("journal is down", ErrorTypes.JOURNAL_UNAVAILABLE);
    context.beforeSendFailure = journalDown;
    server.enqueue(new MockResponse.Builder().code(201).build());

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(request(post("/v1/releases", null), "{}"), context));

    assertSame(journalDown, failure);
    assertEquals(0, server.getRequestCount());
  }

  @Test
  void statusQueryMapsStatusCodesToVerdicts() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).body("{\"id\":\"rel_1\"}").build());
    server.enqueue(new MockResponse.Builder().code(404).build());
    server.enqueue(new MockResponse.Builder().code(503).build());
    DispatchRequest request = statusRequest();

    StatusResult completed = channel.queryStatus(request, context);
    StatusResult notExecuted = channel.queryStatus(request, context);
    StatusResult unknown = channel.queryStatus(request, context);

    assertEquals(StatusResult.Verdict.COMPLETED, completed.verdict());
    assertEquals("{\"id\":\"rel_1\"}", completed.result().body());
    assertEquals(StatusResult.Verdict.NOT_EXECUTED, notExecuted.verdict());
    assertEquals(StatusResult.Verdict.UNKNOWN, unknown.verdict());
    assertEquals("status endpoint answered 503, which is in neither completed_when [200] nor not_executed_when [404]", unknown.detail());
    RecordedRequest first = server.takeRequest();
    assertEquals("GET", first.getMethod());
    assertEquals("/v1/releases/by-key/" + EXECUTION_ID + "?service=api", first.getTarget());
    assertNull(first.getHeaders().get("Idempotency-Key"));
    assertEquals(0, context.beforeSendCalls);
  }

  @Test
  void statusQueryThatCannotConnectIsRetryable() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      closedPort = socket.getLocalPort();
    }
    StatusSpec status = new StatusSpec("GET", "http://127.0.0.1:" + closedPort + "/s/{{execution_id}}", List.of(200), List.of(404));
    ToolContract contract = new ToolContract("create_release", "", "{}", null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", "http://127.0.0.1:" + closedPort + "/x", null, Map.of(), null, null, 2000),
        null, new ReplaySpec(ReplayClass.STATUS_QUERY, Duration.ofHours(1), status), null, null);

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> channel.queryStatus(new DispatchRequest(EXECUTION_ID, "hmac-sha256:00", contract, "{}", 1), context));

    assertEquals(ErrorTypes.NOT_SENT, failure.getType());
    assertFalse(failure.isNonRetryable());
  }

  private DispatchRequest statusRequest() {
    return statusRequest(server, "/v1/releases/by-key/{{execution_id}}?service={{service}}");
  }

  /** A status_query tool on {@code server} whose status URL is {@code pathTemplate}, completed 200, not executed 404. */
  static DispatchRequest statusRequest(MockWebServer server, String pathTemplate) {
    return statusRequest(server, pathTemplate, null);
  }

  static DispatchRequest statusRequest(MockWebServer server, String pathTemplate, String credential) {
    String base = "http://127.0.0.1:" + server.getPort();
    StatusSpec status = new StatusSpec("GET", base + pathTemplate, List.of(200), List.of(404));
    HttpSpec http = new HttpSpec("POST", base + "/v1/releases", null, Map.of(), "Idempotency-Key", credential, 5000);
    ToolContract contract = new ToolContract("create_release", "", "{}", null, ToolContract.Channel.HTTP,
        http, null, new ReplaySpec(ReplayClass.STATUS_QUERY, Duration.ofHours(1), status), null, null);
    return new DispatchRequest(EXECUTION_ID, "hmac-sha256:00", contract, "{\"service\":\"api\"}", 1);
  }

  private HttpSpec post(String path, String body) {
    return spec("POST", path, body, Map.of(), "Idempotency-Key", null);
  }

  private HttpSpec spec(String method, String path, String body, Map<String, String> headers, String idempotencyHeader, String credential) {
    String base = "http://127.0.0.1:" + server.getPort();
    return new HttpSpec(method, base + path, body, headers, idempotencyHeader, credential, 5000);
  }

  /**
   * The channel's own guard, for a request that reaches it (the front end refuses such arguments
   * first): a secret argument that cannot be a header value, or that fills the path of a request
   * that fails, is never quoted in the failure — OkHttp's refusal quoted the whole value.
   */
  @Test
  void aSecretArgumentIsNeverQuotedInAFailure() throws Exception {
    String pin = "p\u00e9n-Zq8vN3\r\nX-Injected: 1";
    HttpSpec header = new HttpSpec("POST", server.url("/v1/doors").toString(), null, Map.of("X-Pin", "{{pin}}"), null, null, 5000);
    ApplicationFailure refused = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(secretRequest(header, pin), context));
    assertEquals(ErrorTypes.INVALID_REQUEST, refused.getType());
    assertEquals("Invalid header X-Pin (template {{pin}}): the name or the rendered value has a character a header cannot "
        + "carry (a line break, another control character or a non-ASCII character); the value is not shown",
        refused.getOriginalMessage());
    assertEquals(0, server.getRequestCount());

    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    HttpSpec path = new HttpSpec("POST", "http://127.0.0.1:" + closed + "/v1/doors/{{pin}}/unlock", null, Map.of(), null, null, 5000);
    ApplicationFailure notSent = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(secretRequest(path, "Zq8vN3-in-the-path"), context));
    assertEquals(ErrorTypes.NOT_SENT, notSent.getType());
    assertTrue(notSent.getOriginalMessage().startsWith("POST http://127.0.0.1:" + closed + "/v1/doors/{{pin}}/unlock: request not sent"),
        notSent.getOriginalMessage());
    assertFalse(notSent.getOriginalMessage().contains("Zq8vN3"), notSent.getOriginalMessage());
  }

  private static DispatchRequest secretRequest(HttpSpec spec, String pin) {
    ToolContract contract = new ToolContract("unlock", "", "{}", null, ToolContract.Channel.HTTP, spec, null,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), null, List.of("pin"));
    return new DispatchRequest(EXECUTION_ID, "hmac-sha256:00", contract,
        new ObjectMapper().createObjectNode().put("pin", pin).toString(), 1);
  }

  static DispatchRequest request(HttpSpec spec, String arguments) {
    ToolContract contract = new ToolContract("create_release", "", "{}", null, ToolContract.Channel.HTTP, spec, null,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), null, null);
    return new DispatchRequest(EXECUTION_ID, "hmac-sha256:00", contract, arguments, 1);
  }

  static final class RecordingContext implements DispatchContext {
    int beforeSendCalls;
    RuntimeException beforeSendFailure;
    final List<String> phases = new ArrayList<>();
    final Map<String, Credential> credentials = new HashMap<>();

    @Override
    public void beforeSend() {
      if (beforeSendFailure != null) {
        throw beforeSendFailure;
      }
      beforeSendCalls++;
    }

    @Override
    public void heartbeat(String phase) {
      phases.add(phase);
    }

    @Override
    public Credential credential(String reference) {
      Credential c = credentials.get(reference);
      if (c == null) {
        throw ApplicationFailure.newNonRetryableFailure("Credential '" + reference + "' is unavailable", ErrorTypes.CREDENTIAL_UNAVAILABLE);
      }
      return c;
    }
  }
}
