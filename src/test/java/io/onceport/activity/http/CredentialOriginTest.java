package io.onceport.activity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.vault.Credential;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Credentials never leave the origin they were configured for. A dispatch follows no redirect, so a
 * target redirecting to another host gets no request at all; a status query follows a redirect
 * only within its origin. Every credential type is covered: bearer and basic (the Authorization
 * header, which OkHttp would strip on a host change) and header (e.g. X-Api-Key, which OkHttp would
 * have carried along).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CredentialOriginTest {
  private static final String SECRET = "s3cr3t-origin-bound-7Hq2";

  private final MockWebServer origin = new MockWebServer();
  private final MockWebServer elsewhere = new MockWebServer();
  private final HttpChannel channel = new HttpChannel();
  private final HttpChannelTest.RecordingContext context = new HttpChannelTest.RecordingContext();

  @BeforeEach
  void start() throws Exception {
    origin.start(InetAddress.getByName("127.0.0.1"), 0);
    elsewhere.start(InetAddress.getByName("127.0.0.1"), 0);
    context.credentials.put("bearer", new Credential("bearer", Credential.Type.BEARER, null, null, SECRET));
    context.credentials.put("basic", new Credential("basic", Credential.Type.BASIC, null, "ops", SECRET));
    context.credentials.put("header", new Credential("header", Credential.Type.HEADER, "X-Api-Key", null, SECRET));
  }

  @AfterEach
  void stop() {
    origin.close();
    elsewhere.close();
  }

  static Stream<Arguments> credentialsAndRedirects() {
    Stream.Builder<Arguments> cases = Stream.builder();
    for (String credential : new String[] {"bearer", "basic", "header"}) {
      for (int code : new int[] {301, 302, 303, 307, 308}) {
        cases.add(Arguments.of(credential, code));
      }
    }
    return cases.build();
  }

  @ParameterizedTest(name = "{0} credential, {1} to another host")
  @MethodSource("credentialsAndRedirects")
  void aDispatchRedirectedToAnotherHostSendsNothingThereAndTheRedirectIsTheAnswer(String credential, int code)
      throws Exception {
    String away = "http://localhost:" + elsewhere.getPort() + "/collect";
    origin.enqueue(new MockResponse.Builder().code(code).addHeader("Location", away).build());
    elsewhere.enqueue(new MockResponse.Builder().code(200).body("thanks for the credential").build());

    DispatchResult result = channel.dispatch(HttpChannelTest.request(spec(credential), "{}"), context);

    assertEquals(code, result.status());
    assertEquals(away, result.headers().get("location"));
    assertEquals(0, elsewhere.getRequestCount(), "requests at the other host");
    assertEquals(1, origin.getRequestCount());
    assertCarriesTheCredential(origin.takeRequest(), credential);
  }

  @ParameterizedTest(name = "{0} credential")
  @MethodSource("credentialTypes")
  void aStatusQueryRedirectedToAnotherHostIsNotFollowedAndItsRedirectIsAnUnknownVerdict(String credential) {
    origin.enqueue(new MockResponse.Builder().code(302)
        .addHeader("Location", "http://localhost:" + elsewhere.getPort() + "/status").build());
    elsewhere.enqueue(new MockResponse.Builder().code(200).build());

    StatusResult status = channel.queryStatus(statusRequest(credential), context);

    assertEquals(StatusResult.Verdict.UNKNOWN, status.verdict());
    assertEquals(302, status.result().status());
    assertTrue(status.detail().endsWith("(a redirect to another origin is not followed)"), status.detail());
    assertEquals(0, elsewhere.getRequestCount(), "requests at the other host");
    assertEquals(1, origin.getRequestCount());
  }

  static Stream<String> credentialTypes() {
    return Stream.of("bearer", "basic", "header");
  }

  @ParameterizedTest(name = "{0} credential")
  @MethodSource("credentialTypes")
  void aStatusQueryFollowsASameOriginRedirectWithItsCredential(String credential) throws Exception {
    origin.enqueue(new MockResponse.Builder().code(303).addHeader("Location", "/v1/releases/rel_1").build());
    origin.enqueue(new MockResponse.Builder().code(200).body("{\"id\":\"rel_1\"}").build());

    StatusResult status = channel.queryStatus(statusRequest(credential), context);

    assertEquals(StatusResult.Verdict.COMPLETED, status.verdict());
    assertEquals("{\"id\":\"rel_1\"}", status.result().body());
    assertEquals(2, origin.getRequestCount());
    assertCarriesTheCredential(origin.takeRequest(), credential);
    RecordedRequest redirected = origin.takeRequest();
    assertEquals("/v1/releases/rel_1", redirected.getTarget());
    assertCarriesTheCredential(redirected, credential);
  }

  @Test
  void theSameHostOnAnotherPortIsAnotherOrigin() {
    origin.enqueue(new MockResponse.Builder().code(307)
        .addHeader("Location", "http://127.0.0.1:" + elsewhere.getPort() + "/status").build());

    StatusResult status = channel.queryStatus(statusRequest("header"), context);

    assertEquals(307, status.result().status());
    assertEquals(0, elsewhere.getRequestCount());
  }

  @Test
  void aStatusQueryStopsAfterFiveRedirectsAndTakesTheLastAsItsAnswer() {
    for (int i = 0; i <= HttpChannel.MAX_STATUS_REDIRECTS; i++) {
      origin.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "/hop/" + i).build());
    }
    origin.enqueue(new MockResponse.Builder().code(200).build());

    StatusResult status = channel.queryStatus(statusRequest("bearer"), context);

    assertEquals(302, status.result().status());
    assertEquals("/hop/5", status.result().headers().get("location"));
    assertEquals(StatusResult.Verdict.UNKNOWN, status.verdict());
    assertTrue(status.detail().endsWith("(more than 5 redirects are not followed)"), status.detail());
    assertEquals(HttpChannel.MAX_STATUS_REDIRECTS + 1, origin.getRequestCount());
  }

  @Test
  void aRedirectStatusTheContractListsIsTheAnswerNotARedirectToFollow() {
    origin.enqueue(new MockResponse.Builder().code(303).addHeader("Location", "/v1/releases/rel_1").build());
    origin.enqueue(new MockResponse.Builder().code(404).build());
    io.onceport.workflow.dispatch.DispatchRequest base = statusRequest("bearer");
    var replay = base.contract().replay();
    var listed = new io.onceport.workflow.contract.StatusSpec(replay.status().method(), replay.status().url(),
        java.util.List.of(303), java.util.List.of(404));
    var contract = new io.onceport.workflow.contract.ToolContract(base.contract().tool(), "", base.contract().inputSchema(),
        null, base.contract().channel(), base.contract().http(), null,
        new io.onceport.workflow.contract.ReplaySpec(replay.replayClass(), replay.attachWindow(), listed), null, null);

    StatusResult status = channel.queryStatus(new io.onceport.workflow.dispatch.DispatchRequest(
        base.executionId(), base.fingerprint(), contract, base.arguments(), 1), context);

    assertEquals(StatusResult.Verdict.COMPLETED, status.verdict());
    assertEquals(303, status.result().status());
    assertEquals(1, origin.getRequestCount());
  }

  private HttpSpec spec(String credential) {
    return new HttpSpec("POST", "http://127.0.0.1:" + origin.getPort() + "/v1/releases", null, Map.of(), "Idempotency-Key", credential, 5000);
  }

  private io.onceport.workflow.dispatch.DispatchRequest statusRequest(String credential) {
    return HttpChannelTest.statusRequest(origin, "/v1/releases/by-key/{{execution_id}}", credential);
  }

  private static void assertCarriesTheCredential(RecordedRequest request, String credential) {
    switch (credential) {
      case "bearer" -> assertEquals("Bearer " + SECRET, request.getHeaders().get("Authorization"));
      case "basic" -> assertEquals(okhttp3.Credentials.basic("ops", SECRET), request.getHeaders().get("Authorization"));
      case "header" -> {
        assertEquals(SECRET, request.getHeaders().get("X-Api-Key"));
        assertNull(request.getHeaders().get("Authorization"));
      }
      default -> throw new AssertionError(credential);
    }
  }
}
