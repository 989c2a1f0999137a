package io.onceport.activity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.vault.Credential;
import io.onceport.app.demo.DemoTarget;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifyCondition;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyAnswer.Verdict;
import io.onceport.workflow.verify.VerifyEvaluator;
import io.onceport.workflow.verify.VerifyRequest;
import io.temporal.common.converter.DataConverter;
import io.temporal.failure.ApplicationFailure;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One verification check through the HTTP channel against real targets: the demo target's credential
 * API (the rotation example) and a recording server for credentials, redirects and echoed secrets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpVerifyTest {
  private static final String ARGUMENTS = "{\"service\":\"billing\"}";
  private final HttpChannel channel = new HttpChannel();
  private final HttpChannelTest.RecordingContext context = new HttpChannelTest.RecordingContext();
  private DemoTarget target;
  private final MockWebServer server = new MockWebServer();

  @BeforeEach
  void start() throws Exception {
    target = DemoTarget.start("127.0.0.1", 0);
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() {
    target.close();
    server.close();
  }

  private static ToolContract rotation(String base, String credential) {
    VerifySpec verify = VerifySpec.newBuilder()
        .setHttp("GET", base + "/v1/credentials/{{service}}/active")
        .setVerifiedWhen(new VerifyCondition(List.of(200), "/key_id", "/new_key_id", null, null))
        .setNotAppliedWhen(new VerifyCondition(List.of(200), "/key_id", "/old_key_id", null, null))
        .build();
    return new ToolContract("rotate_credential", "", "{\"type\":\"object\"}", null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", base + "/v1/credentials/{{service}}/rotate", null, Map.of(), "Idempotency-Key", credential, 5_000),
        null, new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null, verify), List.of(), List.of());
  }

  /** Rotates through the channel (as a send would) and returns the check the workflow would then ask for. */
  private VerifyRequest rotateThenCheck(ToolContract contract, String executionId) {
    DispatchResult rotated = channel.dispatch(new DispatchRequest(executionId, "hmac-sha256:00", contract, ARGUMENTS, 1), context);
    assertEquals(200, rotated.status(), rotated.body());
    VerifySpec v = contract.replay().verify();
    return new VerifyRequest(executionId, "hmac-sha256:00", contract, ARGUMENTS, 1,
        VerifyEvaluator.expectation(v.verifiedWhen(), VerifyEvaluator.parse(rotated.body()), VerifyEvaluator.parse(ARGUMENTS)),
        VerifyEvaluator.expectation(v.notAppliedWhen(), VerifyEvaluator.parse(rotated.body()), VerifyEvaluator.parse(ARGUMENTS)));
  }

  @Test
  void theNewKeyActiveIsVerifiedAndTheCheckIsOneReadInTheLedger() {
    VerifyRequest check = rotateThenCheck(rotation(target.url(), null), "act_01VERIFIED");

    VerifyAnswer answer = channel.verify(check, context);

    assertEquals(Verdict.VERIFIED, answer.verdict(), answer.detail());
    assertEquals(200, answer.status());
    assertEquals(List.of(new VerifyAnswer.Held("verified_when", "/key_id", "\"billing-key-2\"", "\"billing-key-2\""),
        new VerifyAnswer.Held("not_applied_when", "/key_id", "\"billing-key-2\"", "\"billing-key-1\"")), answer.held());
    assertEquals(List.of("POST /v1/credentials/billing/rotate acted", "GET /v1/credentials/billing/active read"),
        target.ledger().stream().map(e -> e.method() + " " + e.path() + " " + e.handling().wireName()).toList());
    assertEquals(1, context.beforeSendCalls, "the rotation's send only: a check is no send");
  }

  @Test
  void aRotationThatNeverAppliedIsNotAppliedAndOneAppliedLateIsNotYetKnownUntilItLands() throws Exception {
    target.armFault(DemoTarget.APPLY_NEVER, 1);
    VerifyRequest never = rotateThenCheck(rotation(target.url(), null), "act_01NEVER");
    assertEquals(Verdict.NOT_APPLIED, channel.verify(never, context).verdict());

    target.armFault(DemoTarget.APPLY_LATE + "800", 1);
    VerifyRequest late = rotateThenCheck(rotation(target.url(), null), "act_01LATE");
    VerifyAnswer during = channel.verify(late, context);
    assertEquals(Verdict.NOT_YET_KNOWN, during.verdict());
    assertEquals(202, during.status());
    assertEquals("not yet known: verified_when: status 202 is not in [200]; not_applied_when: status 202 is not in [200]", during.detail());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    VerifyAnswer after = during;
    while (after.verdict() == Verdict.NOT_YET_KNOWN && System.nanoTime() < deadline) {
      Thread.sleep(100);
      after = channel.verify(late, context);
    }
    assertEquals(Verdict.VERIFIED, after.verdict(), after.detail());
    assertEquals("\"billing-key-3\"", after.held().get(0).value(), "billing-key-2 was never applied; the late rotation made key 3");
  }

  @Test
  void theCheckCarriesTheCredentialFollowsSameOriginRedirectsAndReturnsNoSecret() throws Exception {
    String secret = "s3cr3t-rotator-token";
    context.credentials.put("rotator", new Credential("rotator", Credential.Type.BEARER, null, null, secret));
    String base = "http://127.0.0.1:" + server.getPort();
    server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "/v2/active").build());
    server.enqueue(new MockResponse.Builder().code(200)
        .body("{\"key_id\":\"" + secret + "\",\"echo\":\"Bearer " + secret + "\"}").build());
    VerifySpec verify = VerifySpec.newBuilder().setHttp("GET", base + "/v1/credentials/{{service}}/active")
        .setVerifiedWhen(new VerifyCondition(List.of(200), "/key_id", null, "\"k2\"", null)).build();
    ToolContract contract = new ToolContract("rotate_credential", "", "{\"type\":\"object\"}", null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", base + "/v1/credentials/{{service}}/rotate", null, Map.of(), "Idempotency-Key", "rotator", 5_000),
        null, new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null, verify), List.of(), List.of());
    VerifyRequest check = new VerifyRequest("act_01CRED", "hmac-sha256:00", contract, ARGUMENTS, 1,
        VerifyEvaluator.expectation(verify.verifiedWhen(), null, null), null);

    VerifyAnswer answer = channel.verify(check, context);

    RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
    RecordedRequest second = server.takeRequest(5, TimeUnit.SECONDS);
    assertEquals("GET /v1/credentials/billing/active", first.getMethod() + " " + first.getUrl().encodedPath());
    assertEquals("Bearer " + secret, first.getHeaders().get("Authorization"));
    assertEquals("/v2/active", second.getUrl().encodedPath());
    assertEquals(null, first.getHeaders().get("Idempotency-Key"), "a check is not a send of the action");
    assertEquals(Verdict.NOT_YET_KNOWN, answer.verdict());
    String serialized = new String(DataConverter.getDefaultInstance().toPayload(answer).orElseThrow().getData().toByteArray(),
        StandardCharsets.UTF_8);
    assertFalse(serialized.contains(secret), serialized);
    assertTrue(answer.held().get(0).value().contains("[redacted:rotator]"), answer.held().toString());
  }

  @Test
  void aTargetThatCannotBeReachedIsARetryableFailureAndAnSshToolHasNoCheck() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    ToolContract contract = rotation("http://127.0.0.1:" + port, null);
    VerifyRequest check = new VerifyRequest("act_01DOWN", "hmac-sha256:00", contract, ARGUMENTS, 1, null, null);

    ApplicationFailure down = assertThrows(ApplicationFailure.class, () -> channel.verify(check, context));

    assertEquals(ErrorTypes.NOT_SENT, down.getType());
    assertFalse(down.isNonRetryable());
    assertTrue(down.getOriginalMessage().startsWith("verification GET http://127.0.0.1:" + port + "/v1/credentials/billing/active failed"),
        down.getOriginalMessage());
  }
}
