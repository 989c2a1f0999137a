package io.onceport.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.http.HttpChannel;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.StatusResult;
import io.temporal.failure.ApplicationFailure;
import io.onceport.workflow.dispatch.DispatchResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DemoTargetTest {
  private static final String DROP_AFTER_ACCEPT = DemoTarget.DROP_AFTER_ACCEPT;
  private static final String FAULT_HEADER = DemoTarget.FAULT_HEADER;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType JSON_TYPE = MediaType.get("application/json");
  private static final String RELEASE = "{\"service\":\"api\",\"version\":\"1.2.3\",\"region\":\"eu-west-1\"}";

  private final OkHttpClient client = new OkHttpClient.Builder().retryOnConnectionFailure(false).build();
  private DemoTarget target;

  @BeforeEach
  void start() throws IOException {
    target = DemoTarget.start("127.0.0.1", 0);
  }

  @AfterEach
  void stop() {
    target.close();
  }

  @Test
  void sameIdempotencyKeyAndBodyReplaysTheOriginalResponseWithoutActingAgain() throws IOException {
    Answer first = post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1"));
    Answer second = post("/v1/releases", RELEASE.replace(",", " , "), Map.of("Idempotency-Key", "k1"));

    assertEquals(201, first.status);
    assertEquals("{\"id\":\"rel_1\",\"service\":\"api\",\"version\":\"1.2.3\",\"region\":\"eu-west-1\",\"key\":\"k1\"}", first.body);
    assertEquals("/v1/releases/rel_1", first.location);
    assertEquals(201, second.status);
    assertEquals(first.body, second.body);
    assertEquals("true", second.replayed);
    assertEquals(2, target.received("k1"), "both requests are in the ledger");
    assertEquals(1, target.acted("k1"), "one action");
    DemoTarget.LedgerEntry entry = target.ledger().get(0);
    assertEquals(List.of("POST", "/v1/releases", "k1", RELEASE), List.of(entry.method(), entry.path(), entry.key(), entry.body()));
    assertEquals(List.of(DemoTarget.Handling.ACTED, DemoTarget.Handling.REPLAYED),
        target.ledger().stream().map(DemoTarget.LedgerEntry::handling).toList());
    assertEquals(List.of(201, 201), target.ledger().stream().map(DemoTarget.LedgerEntry::status).toList());
  }

  @Test
  void sameIdempotencyKeyWithADifferentBodyIsRejectedWith422() throws IOException {
    post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1"));

    Answer conflict = post("/v1/releases", RELEASE.replace("1.2.3", "1.2.4"), Map.of("Idempotency-Key", "k1"));

    assertEquals(422, conflict.status);
    assertEquals("{\"error\":\"Idempotency-Key k1 was used with a different request body\"}", conflict.body);
    assertEquals(1, target.acted("k1"));
    assertEquals(DemoTarget.Handling.REJECTED, target.ledger().get(1).handling());
    assertEquals(422, target.ledger().get(1).status());
  }

  @Test
  void withoutAKeyEveryPostActsAndRegionDefaults() throws IOException {
    Answer first = post("/v1/releases", "{\"service\":\"api\",\"version\":\"1\"}", Map.of());
    Answer second = post("/v1/releases", "{\"service\":\"api\",\"version\":\"1\"}", Map.of());

    assertEquals("{\"id\":\"rel_1\",\"service\":\"api\",\"version\":\"1\",\"region\":\"us-east-1\",\"key\":null}", first.body);
    assertEquals(201, second.status);
    assertTrue(second.body.startsWith("{\"id\":\"rel_2\""), second.body);
    assertEquals(2, JSON.readTree(get("/v1/releases").body).size());
    assertEquals(List.of(DemoTarget.Handling.ACTED, DemoTarget.Handling.ACTED, DemoTarget.Handling.READ),
        target.ledger().stream().map(DemoTarget.LedgerEntry::handling).toList());
  }

  @Test
  void invalidReleaseIsRejectedAndNotAnAction() throws IOException {
    Answer answer = post("/v1/releases", "{\"service\":\"api\"}", Map.of("Idempotency-Key", "k1"));

    assertEquals(400, answer.status);
    assertEquals("{\"error\":\"service and version are required strings\"}", answer.body);
    assertEquals(0, target.acted("k1"));
    assertEquals(1, target.received("k1"));
    assertEquals(DemoTarget.Handling.REJECTED, target.ledger().get(0).handling());
  }

  @Test
  void releaseIsFoundByItsKeyAndAnUnknownKeyIs404() throws IOException {
    post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "act_01ABC"));

    Answer found = get("/v1/releases/by-key/act_01ABC");
    Answer missing = get("/v1/releases/by-key/act_other");

    assertEquals(200, found.status);
    assertEquals("rel_1", JSON.readTree(found.body).get("id").asText());
    assertEquals(404, missing.status);
    assertEquals("{\"error\":\"no release with key act_other\"}", missing.body);
  }

  @Test
  void notificationsActEveryTimeEvenWithAKey() throws IOException {
    Answer first = post("/v1/notifications", "{\"message\":\"hi\"}", Map.of("Idempotency-Key", "k1"));
    Answer second = post("/v1/notifications", "{\"message\":\"hi\"}", Map.of("Idempotency-Key", "k1"));

    assertEquals("{\"id\":\"ntf_1\",\"message\":\"hi\"}", first.body);
    assertEquals("{\"id\":\"ntf_2\",\"message\":\"hi\"}", second.body);
    assertEquals(2, target.acted("k1"));
  }

  @Test
  void ledgerEndpointListsEveryRequestWithWhatWasDoneButNotItsOwnReads() throws IOException {
    post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1"));
    post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1"));
    get("/v1/releases/by-key/k1");
    get("/ledger");

    JsonNode ledger = JSON.readTree(get("/ledger").body);

    assertEquals(3, ledger.size(), ledger.toString());
    JsonNode entry = ledger.get(0);
    assertEquals(1, entry.get("seq").asInt());
    assertEquals("POST", entry.get("method").asText());
    assertEquals("/v1/releases", entry.get("path").asText());
    assertEquals("k1", entry.get("key").asText());
    assertEquals(JSON.readTree(RELEASE), entry.get("body"));
    assertTrue(entry.get("time").asText().endsWith("Z"), entry.toString());
    assertTrue(entry.get("finished").asText().endsWith("Z"), entry.toString());
    assertEquals("acted", entry.get("handling").asText());
    assertEquals(201, entry.get("status").asInt());
    assertTrue(entry.get("fault").isNull());
    assertEquals("replayed", ledger.get(1).get("handling").asText());
    assertEquals("k1", ledger.get(1).get("key").asText());
    assertEquals(List.of("GET", "/v1/releases/by-key/k1", "read", "200"), List.of(ledger.get(2).get("method").asText(),
        ledger.get(2).get("path").asText(), ledger.get(2).get("handling").asText(), ledger.get(2).get("status").asText()));
  }

  @Test
  void dropAfterAcceptActsThenTheDispatcherSeesAnUnknownOutcomeThatTheStatusQueryResolves() {
    HttpChannel channel = new HttpChannel();
    StatusSpec status = new StatusSpec("GET", target.url() + "/v1/releases/by-key/{{execution_id}}", List.of(200), List.of(404));
    HttpSpec http = new HttpSpec("POST", target.url() + "/v1/releases", null,
        Map.of("X-Demo-Fault", "drop-after-accept"), "Idempotency-Key", null, 5000);
    ToolContract contract = new ToolContract("create_release", "", "{}", null, ToolContract.Channel.HTTP, http, null,
        new ReplaySpec(ReplayClass.STATUS_QUERY, Duration.ofHours(1), status), null, null);
    DispatchRequest request = new DispatchRequest("act_01DROP", "hmac-sha256:00", contract, RELEASE, 1);

    ApplicationFailure failure = assertThrows(ApplicationFailure.class, () -> channel.dispatch(request, NO_CONTEXT));
    StatusResult resolved = channel.queryStatus(request, NO_CONTEXT);

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, failure.getType());
    assertEquals(1, target.received("act_01DROP"));
    assertEquals(1, target.acted("act_01DROP"));
    DemoTarget.LedgerEntry post = target.ledger().get(0);
    assertEquals(DROP_AFTER_ACCEPT, post.fault());
    assertNull(post.status(), "nothing was answered");
    assertEquals(StatusResult.Verdict.COMPLETED, resolved.verdict());
    assertTrue(resolved.result().body().contains("\"id\":\"rel_1\""), resolved.result().body());
  }

  @Test
  void armedFaultDropsTheNextActionOnly() throws IOException {
    Answer armed = post("/admin/faults", "{\"next\":\"drop-after-accept\",\"count\":1}", Map.of());

    assertThrows(IOException.class, () -> post("/v1/notifications", "{\"message\":\"a\"}", Map.of()));
    Answer next = post("/v1/notifications", "{\"message\":\"b\"}", Map.of());

    assertEquals("{\"next\":\"drop-after-accept\",\"count\":1}", armed.body);
    assertEquals(201, next.status);
    assertEquals(List.of(DROP_AFTER_ACCEPT, "-"),
        target.ledger().stream().map(e -> e.fault() == null ? "-" : e.fault()).toList());
    assertTrue(target.ledger().stream().allMatch(DemoTarget.LedgerEntry::acted));
  }

  @Test
  void faultsArmedFromJavaApplyToTheNextActionsInOrderOfArrival() throws IOException {
    target.armFault(DemoTarget.DROP_WITHOUT_ACTING, 2);

    assertThrows(IOException.class, () -> post("/v1/notifications", "{\"message\":\"a\"}", Map.of()));
    assertThrows(IOException.class, () -> post("/v1/notifications", "{\"message\":\"b\"}", Map.of()));
    Answer third = post("/v1/notifications", "{\"message\":\"c\"}", Map.of());

    assertEquals(201, third.status);
    assertEquals(List.of(DemoTarget.Handling.DROPPED, DemoTarget.Handling.DROPPED, DemoTarget.Handling.ACTED),
        target.ledger().stream().map(DemoTarget.LedgerEntry::handling).toList());
    IllegalArgumentException invalid = assertThrows(IllegalArgumentException.class, () -> target.armFault("explode", 1));
    assertEquals("Invalid fault 'explode': expected " + DemoTarget.FAULTS, invalid.getMessage());
  }

  @Test
  void invalidArmedFaultIsRejected() throws IOException {
    Answer answer = post("/admin/faults", "{\"next\":\"explode\"}", Map.of());

    assertEquals(400, answer.status);
    assertEquals("{\"error\":\"next must be " + DemoTarget.FAULTS + "\"}", answer.body);
  }

  @Test
  void delayFaultDelaysTheAnswer() throws IOException {
    long start = System.nanoTime();
    Answer answer = post("/v1/notifications", "{}", Map.of("X-Demo-Fault", "delay=400"));

    assertEquals(201, answer.status);
    assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(400));
  }

  @Test
  void unknownRouteIs404AndListedAsRejected() throws IOException {
    Answer answer = get("/nope");

    assertEquals(404, answer.status);
    assertNull(answer.replayed);
    assertEquals(DemoTarget.Handling.REJECTED, target.ledger().get(0).handling());
  }

  @Test
  void dropWithoutActingClosesTheConnectionAndNothingHappens() throws IOException {
    assertThrows(IOException.class,
        () -> post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1", FAULT_HEADER, DemoTarget.DROP_WITHOUT_ACTING)));

    assertEquals(404, get("/v1/releases/by-key/k1").status);
    assertEquals("[]", get("/v1/releases").body);
    DemoTarget.LedgerEntry entry = target.ledger().get(0);
    assertEquals(DemoTarget.Handling.DROPPED, entry.handling());
    assertNull(entry.status());
    assertEquals(1, target.received("k1"));
    assertEquals(0, target.acted("k1"));
  }

  @Test
  void statusFaultAnswersThatStatusWithRetryAfterWithoutActing() throws Exception {
    // Not the test's OkHttp client: it would re-send the POST on 503 + Retry-After: 0 (the bug this fault exists for).
    java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(target.url() + "/v1/releases"))
            .header("Idempotency-Key", "k1").header(FAULT_HEADER, "status=503,retry-after=0")
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(RELEASE)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(503, response.statusCode());
    assertEquals("0", response.headers().firstValue("Retry-After").orElse(null));
    assertEquals("{\"error\":\"fault status=503,retry-after=0: nothing was done\"}", response.body());
    Answer plain500 = post("/v1/notifications", "{}", Map.of(FAULT_HEADER, "status=500"));

    assertEquals(500, plain500.status);
    assertEquals(404, get("/v1/releases/by-key/k1").status);
    assertEquals(List.of(503, 500), target.ledger().subList(0, 2).stream().map(DemoTarget.LedgerEntry::status).toList());
    assertTrue(target.ledger().subList(0, 2).stream().noneMatch(DemoTarget.LedgerEntry::acted));
  }

  @Test
  void invalidFaultHeaderIs400AndNothingHappens() throws IOException {
    Answer answer = post("/v1/notifications", "{}", Map.of(FAULT_HEADER, "status=200"));

    assertEquals(400, answer.status);
    assertEquals("{\"error\":\"X-Demo-Fault must be " + DemoTarget.FAULTS + "\"}", answer.body);
    assertEquals(DemoTarget.Handling.REJECTED, target.ledger().get(0).handling());
  }

  @Test
  void theHttpChannelSendsAnIrreversiblePostOnceWhenTheKeepAliveTargetAnswers503RetryAfterZero() {
    HttpSpec http = new HttpSpec("POST", target.url() + "/v1/notifications", null,
        Map.of(FAULT_HEADER, "status=503,retry-after=0"), "Idempotency-Key", null, 5000);
    ToolContract contract = new ToolContract("send_notification", "", "{}", null, ToolContract.Channel.HTTP, http, null,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), null, null);
    CountingContext context = new CountingContext();

    DispatchResult result = new HttpChannel().dispatch(
        new DispatchRequest("act_01RETRYAFTER", "hmac-sha256:00", contract, "{\"message\":\"once\"}", 1), context);

    assertEquals(503, result.status());
    assertEquals("0", result.headers().get("retry-after"));
    assertEquals(1, target.received("act_01RETRYAFTER"), "requests the target received");
    assertEquals(0, target.acted("act_01RETRYAFTER"));
    assertEquals(1, context.beforeSend);
  }

  @Test
  void aRepeatedKeyWhileTheFirstRequestIsStillBeingHandledIs409AndDoesNotAct() throws Exception {
    CompletableFuture<Answer> slow = CompletableFuture.supplyAsync(() -> {
      try {
        return post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1", FAULT_HEADER, "delay=1500"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    awaitLedger(l -> l.size() == 1 && l.get(0).handling() == DemoTarget.Handling.PROCESSING);

    Answer concurrent = post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1"));

    assertEquals(409, concurrent.status);
    assertEquals("{\"error\":\"a request with Idempotency-Key k1 is still being processed\"}", concurrent.body);
    assertEquals(201, slow.get(10, TimeUnit.SECONDS).status);
    assertEquals(2, target.received("k1"));
    assertEquals(1, target.acted("k1"));
  }

  @Test
  void aSlowActionIsProcessingToTheStatusEndpointUntilItActsAfterTheClientGaveUp() throws Exception {
    HttpChannel channel = new HttpChannel();
    StatusSpec status = new StatusSpec("GET", target.url() + "/v1/releases/by-key/{{execution_id}}", List.of(200), List.of(404));
    HttpSpec http = new HttpSpec("POST", target.url() + "/v1/releases", null,
        Map.of(FAULT_HEADER, "delay=2000"), "Idempotency-Key", null, 300);
    ToolContract contract = new ToolContract("create_release", "", "{}", null, ToolContract.Channel.HTTP, http, null,
        new ReplaySpec(ReplayClass.STATUS_QUERY, Duration.ofHours(1), status), null, null);
    DispatchRequest request = new DispatchRequest("act_01SLOW", "hmac-sha256:00", contract, RELEASE, 1);

    ApplicationFailure timedOut = assertThrows(ApplicationFailure.class, () -> channel.dispatch(request, NO_CONTEXT));
    StatusResult during = channel.queryStatus(request, NO_CONTEXT);
    awaitLedger(l -> l.get(0).handling() != DemoTarget.Handling.PROCESSING);
    StatusResult after = channel.queryStatus(request, NO_CONTEXT);

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, timedOut.getType());
    assertEquals(202, during.result().status(), "processing, neither completed nor not executed");
    assertEquals("{\"state\":\"processing\",\"key\":\"act_01SLOW\"}", during.result().body());
    assertEquals(StatusResult.Verdict.UNKNOWN, during.verdict());
    assertEquals(StatusResult.Verdict.COMPLETED, after.verdict());
    assertEquals(1, target.acted("act_01SLOW"), "it acted at the end, after the client gave up");
    DemoTarget.LedgerEntry post = target.ledger().get(0);
    assertTrue(post.finished().toEpochMilli() - post.time().toEpochMilli() >= 2000, post.toString());
    assertEquals(201, post.status());
  }

  @Test
  void aSlowInvalidRequestIsProcessingThenNotExecuted() throws Exception {
    CompletableFuture<Answer> slow = CompletableFuture.supplyAsync(() -> {
      try {
        return post("/v1/releases", "{\"service\":\"api\"}", Map.of("Idempotency-Key", "k1", FAULT_HEADER, "delay=800"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    awaitLedger(l -> l.size() == 1 && l.get(0).handling() == DemoTarget.Handling.PROCESSING);

    Answer during = get("/v1/releases/by-key/k1");
    assertEquals(400, slow.get(10, TimeUnit.SECONDS).status);
    Answer after = get("/v1/releases/by-key/k1");

    assertEquals(202, during.status);
    assertEquals(404, after.status);
  }

  private void awaitLedger(java.util.function.Predicate<List<DemoTarget.LedgerEntry>> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.test(target.ledger())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("ledger never matched: " + target.ledger());
      }
      Thread.sleep(20);
    }
  }

  private static final class CountingContext implements DispatchContext {
    int beforeSend;

    @Override
    public void beforeSend() {
      beforeSend++;
    }

    @Override
    public void heartbeat(String phase) {}

    @Override
    public Credential credential(String reference) {
      throw new AssertionError("no credentials in this test");
    }
  }

  private record Answer(int status, String body, String location, String replayed) {}

  private Answer post(String path, String body, Map<String, String> headers) throws IOException {
    Request.Builder builder = new Request.Builder().url(target.url() + path).post(RequestBody.create(body, JSON_TYPE));
    headers.forEach(builder::header);
    return call(builder.build());
  }

  private Answer get(String path) throws IOException {
    return call(new Request.Builder().url(target.url() + path).build());
  }

  private Answer call(Request request) throws IOException {
    try (Response response = client.newCall(request).execute()) {
      return new Answer(response.code(), response.body().string(), response.header("Location"), response.header("Idempotent-Replayed"));
    }
  }

  private static final DispatchContext NO_CONTEXT = new DispatchContext() {
    @Override
    public void beforeSend() {}

    @Override
    public void heartbeat(String phase) {}

    @Override
    public Credential credential(String reference) {
      throw new AssertionError("no credentials in this test");
    }
  };
}
