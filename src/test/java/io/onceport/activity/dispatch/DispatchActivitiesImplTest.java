package io.onceport.activity.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.http.HttpChannel;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DispatchActivitiesImplTest {
  private final MockWebServer server = new MockWebServer();
  private final List<String> journal = new CopyOnWriteArrayList<>();
  private final List<String> heartbeats = new CopyOnWriteArrayList<>();
  private TestActivityEnvironment env;
  private DispatchActivitiesImpl activities;

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    env = TestActivityEnvironment.newInstance();
    env.setActivityHeartbeatListener(String.class, heartbeats::add);
  }

  @AfterEach
  void stop() {
    env.close();
    if (activities != null) {
      activities.close();
    }
    server.close();
  }

  private DispatchActivities stub(DispatchJournal journal, CredentialResolver credentials) {
    activities = new DispatchActivitiesImpl(Map.of(ToolContract.Channel.HTTP, new HttpChannel()), journal, credentials);
    env.registerActivitiesImplementations(activities);
    return env.newActivityStub(DispatchActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setHeartbeatTimeout(Duration.ofSeconds(1))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());
  }

  @Test
  void dispatchJournalsBeforeSendingAndHeartbeatsWhileTheTargetIsSlow() throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).headersDelay(3500, TimeUnit.MILLISECONDS).body("{\"id\":\"rel_1\"}").build());
    DispatchActivities dispatch = stub(r -> journal.add(r.executionId()), CredentialResolver.NONE);

    DispatchResult result = dispatch.dispatch(request(httpContract(null)));

    assertEquals(201, result.status());
    assertEquals("{\"id\":\"rel_1\"}", result.body());
    assertEquals(List.of("act_1"), journal);
    assertEquals(1, server.getRequestCount());
    // One heartbeat per interval while the response is outstanding (none before the first)
    // (throttled by the SDK to 0.8 x the 1 s heartbeat timeout).
    assertTrue(heartbeats.size() >= 3, "heartbeats: " + heartbeats);
    assertTrue(heartbeats.contains("sent"), "heartbeats: " + heartbeats);
  }

  @Test
  void journalFailureMeansTheTargetSeesNothing() {
    server.enqueue(new MockResponse.Builder().code(201).build());
    DispatchActivities dispatch = stub(r -> {
      throw ApplicationFailure.newNonRetryableFailure("journal disk full", ErrorTypes.JOURNAL_UNAVAILABLE);
    }, CredentialResolver.NONE);

    ActivityFailure failure = assertThrows(ActivityFailure.class, () -> dispatch.dispatch(request(httpContract(null))));

    ApplicationFailure cause = assertInstanceOf(ApplicationFailure.class, failure.getCause());
    assertEquals(ErrorTypes.JOURNAL_UNAVAILABLE, cause.getType());
    assertEquals("journal disk full", cause.getOriginalMessage());
    assertEquals(0, server.getRequestCount());
  }

  @Test
  void unresolvableCredentialIsNonRetryableAndNothingIsSent() {
    DispatchActivities dispatch = stub(r -> journal.add(r.executionId()), CredentialResolver.NONE);

    ActivityFailure failure = assertThrows(ActivityFailure.class, () -> dispatch.dispatch(request(httpContract("deploy-token"))));

    ApplicationFailure cause = assertInstanceOf(ApplicationFailure.class, failure.getCause());
    assertEquals(ErrorTypes.CREDENTIAL_UNAVAILABLE, cause.getType());
    assertTrue(cause.isNonRetryable());
    assertEquals("Credential 'deploy-token' is unavailable: no vault is configured", cause.getOriginalMessage());
    assertEquals(List.of(), journal);
    assertEquals(0, server.getRequestCount());
  }

  @Test
  void channelWithoutImplementationIsAnInvalidRequest() {
    DispatchActivities dispatch = stub(DispatchJournal.NONE, CredentialResolver.NONE);
    ToolContract ssh = new ToolContract("restart", "", "{}", null, ToolContract.Channel.SSH, null,
        new SshSpec("127.0.0.1", 22, "ops", "ssh-ed25519 AAAA", null, null, List.of("true"), null, false, null, null, 1000),
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), null, null);

    ActivityFailure failure = assertThrows(ActivityFailure.class, () -> dispatch.dispatch(request(ssh)));

    ApplicationFailure cause = assertInstanceOf(ApplicationFailure.class, failure.getCause());
    assertEquals(ErrorTypes.INVALID_REQUEST, cause.getType());
    assertEquals("No dispatch channel for ssh (tool restart)", cause.getOriginalMessage());
  }

  private ToolContract httpContract(String credential) {
    HttpSpec http = new HttpSpec("POST", "http://127.0.0.1:" + server.getPort() + "/v1/releases", null, Map.of(),
        "Idempotency-Key", credential, 10_000);
    return new ToolContract("create_release", "", "{}", null, ToolContract.Channel.HTTP, http, null,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), null, null);
  }

  private static DispatchRequest request(ToolContract contract) {
    return new DispatchRequest("act_1", "hmac-sha256:00", contract, "{\"service\":\"api\"}", 1);
  }
}
