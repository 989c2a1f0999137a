package io.onceport.activity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.vault.CredentialResolver;
import io.onceport.activity.dispatch.DispatchActivitiesImpl;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.dispatch.DispatchResult;
import io.temporal.failure.ApplicationFailure;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every answer OkHttp's follow-up logic would act on — 503 and 429 with {@code Retry-After: 0},
 * 408, 401 and 407 challenges, every redirect status, 421 — against a keep-alive target that
 * counts what it receives and would answer a second request with a 200 (so a hidden re-send could
 * not hide behind a failure): exactly one request, the first answer is the result with its status
 * and headers, and the dispatched entry ({@code beforeSend}) is made once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoHiddenResendTest {
  private final MockWebServer server = new MockWebServer();
  private final HttpChannelTest.RecordingContext context = new HttpChannelTest.RecordingContext();

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  static Stream<Arguments> followUpAnswers() {
    Stream.Builder<Arguments> cases = Stream.builder();
    for (String method : new String[] {"POST", "GET", "PUT", "DELETE"}) {
      cases.add(Arguments.of(method, 503, Map.of("Retry-After", "0")));
      cases.add(Arguments.of(method, 429, Map.of("Retry-After", "0")));
      cases.add(Arguments.of(method, 408, Map.of()));
      cases.add(Arguments.of(method, 408, Map.of("Retry-After", "0")));
      cases.add(Arguments.of(method, 401, Map.of("WWW-Authenticate", "Basic realm=\"target\"")));
      cases.add(Arguments.of(method, 407, Map.of("Proxy-Authenticate", "Basic realm=\"proxy\"")));
      cases.add(Arguments.of(method, 421, Map.of()));
      for (int redirect : new int[] {300, 301, 302, 303, 307, 308}) {
        cases.add(Arguments.of(method, redirect, Map.of("Location", "/v1/elsewhere")));
      }
    }
    return cases.build();
  }

  @ParameterizedTest(name = "{0} answered {1} {2}")
  @MethodSource("followUpAnswers")
  void anAnswerOkHttpWouldFollowUpIsTheResultAndTheTargetReceivesOneRequest(
      String method, int code, Map<String, String> headers) throws Exception {
    MockResponse.Builder first = new MockResponse.Builder().code(code).body("first answer");
    headers.forEach(first::addHeader);
    server.enqueue(first.build());
    server.enqueue(new MockResponse.Builder().code(200).body("a hidden re-send").build());
    AtomicInteger challenges = new AtomicInteger();
    OkHttpClient base = new OkHttpClient.Builder()
        .authenticator((route, response) -> {
          challenges.incrementAndGet();
          return response.request().newBuilder().header("Authorization", "Basic dXNlcjpwdw==").build();
        })
        .proxyAuthenticator((route, response) -> {
          challenges.incrementAndGet();
          return response.request().newBuilder().header("Proxy-Authorization", "Basic dXNlcjpwdw==").build();
        })
        .build();
    HttpChannel channel = new HttpChannel(base);

    DispatchResult result = channel.dispatch(HttpChannelTest.request(spec(method), "{\"service\":\"api\"}"), context);

    assertEquals(code, result.status());
    assertEquals("first answer", result.body());
    headers.forEach((name, value) -> {
      String lower = name.toLowerCase(java.util.Locale.ROOT);
      if (HttpChannel.SELECTED_HEADERS.contains(lower)) {
        assertEquals(value, result.headers().get(lower), result.headers().toString());
      }
    });
    assertEquals(1, server.getRequestCount(), "requests the target received");
    assertEquals(1, context.beforeSendCalls, "dispatched entries");
    assertEquals(0, challenges.get(), "authenticators consulted");
    RecordedRequest received = server.takeRequest();
    assertEquals(method, received.getMethod());
    assertEquals(0, received.getExchangeIndex());
  }

  @Test
  void theTargetIsKeepAliveSoAFollowUpCouldReuseTheConnection() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).build());
    server.enqueue(new MockResponse.Builder().code(200).build());
    OkHttpClient plain = new OkHttpClient();
    String url = server.url("/probe").toString();
    for (int i = 0; i < 2; i++) {
      try (Response r = plain.newCall(new okhttp3.Request.Builder().url(url).build()).execute()) {
        r.body().string();
      }
    }
    server.takeRequest();
    assertEquals(1, server.takeRequest().getExchangeIndex(), "the second request reused the first connection");
  }

  @Test
  void aSharedClientWhoseInterceptorRetriesCannotSendASecondRequestAndTheDispatchFailsLoudly() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "1").body("busy").build());
    server.enqueue(new MockResponse.Builder().code(201).body("a hidden re-send").build());
    OkHttpClient retrying = new OkHttpClient.Builder()
        .addInterceptor(chain -> {
          Response response = chain.proceed(chain.request());
          if (response.code() == 503) {
            response.close();
            return chain.proceed(chain.request());
          }
          return response;
        })
        .build();
    HttpChannel channel = new HttpChannel(retrying);

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(HttpChannelTest.request(spec("POST"), "{\"service\":\"api\"}"), context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertTrue(failure.getOriginalMessage().contains("a second request within one dispatch was refused"),
        failure.getOriginalMessage());
    assertEquals(1, server.getRequestCount(), "requests the target received");
    assertEquals(1, context.beforeSendCalls);
  }

  @Test
  void aStatusQueryIsNotRetriedBelowTheWorkflowEither() throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "0").build());
    server.enqueue(new MockResponse.Builder().code(200).body("{\"id\":\"rel_1\"}").build());
    HttpChannel channel = new HttpChannel();

    var status = channel.queryStatus(HttpChannelTest.statusRequest(server, "/v1/releases/by-key/{{execution_id}}"), context);

    assertEquals(503, status.result().status());
    assertEquals("0", status.result().headers().get("retry-after"));
    assertEquals(io.onceport.workflow.dispatch.StatusResult.Verdict.UNKNOWN, status.verdict());
    assertEquals(1, server.getRequestCount());
    assertFalse(status.result().succeeded());
  }

  @Test
  void throughTheDispatchActivityA503RetryAfterZeroIsOneJournalledSendAndTheResult() {
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "0").body("busy").build());
    server.enqueue(new MockResponse.Builder().code(201).body("a hidden re-send").build());
    java.util.List<String> dispatched = new java.util.concurrent.CopyOnWriteArrayList<>();
    TestActivityEnvironment env = TestActivityEnvironment.newInstance();
    try (DispatchActivitiesImpl impl = new DispatchActivitiesImpl(
        Map.of(ToolContract.Channel.HTTP, new HttpChannel()), r -> dispatched.add(r.executionId()), CredentialResolver.NONE)) {
      env.registerActivitiesImplementations(impl);
      DispatchActivities activities = env.newActivityStub(DispatchActivities.class, ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build());

      DispatchResult result = activities.dispatch(HttpChannelTest.request(spec("POST"), "{\"service\":\"api\"}"));

      assertEquals(503, result.status());
      assertEquals("busy", result.body());
      assertEquals("0", result.headers().get("retry-after"));
      assertEquals(java.util.List.of("act_01JTESTEXECUTION"), dispatched, "dispatched journal entries");
      assertEquals(1, server.getRequestCount(), "requests the target received");
    } finally {
      env.close();
    }
  }

  private HttpSpec spec(String method) {
    String body = method.equals("GET") || method.equals("DELETE") ? null : "{\"service\":\"{{service}}\"}";
    return new HttpSpec(method, server.url("/v1/releases").toString(), body, Map.of(), "Idempotency-Key", null, 5000);
  }
}
