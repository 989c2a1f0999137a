package io.onceport.frontend.demo;

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
import java.io.IOException;
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
    assertEquals(1, target.ledger().size());
    DemoTarget.LedgerEntry entry = target.ledger().get(0);
    assertEquals(List.of("POST", "/v1/releases", "k1", RELEASE), List.of(entry.method(), entry.path(), entry.key(), entry.body()));
  }

  @Test
  void sameIdempotencyKeyWithADifferentBodyIsRejectedWith422() throws IOException {
    post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1"));

    Answer conflict = post("/v1/releases", RELEASE.replace("1.2.3", "1.2.4"), Map.of("Idempotency-Key", "k1"));

    assertEquals(422, conflict.status);
    assertEquals("{\"error\":\"Idempotency-Key k1 was used with a different request body\"}", conflict.body);
    assertEquals(1, target.ledger().size());
  }

  @Test
  void withoutAKeyEveryPostActsAndRegionDefaults() throws IOException {
    Answer first = post("/v1/releases", "{\"service\":\"api\",\"version\":\"1\"}", Map.of());
    Answer second = post("/v1/releases", "{\"service\":\"api\",\"version\":\"1\"}", Map.of());

    assertEquals("{\"id\":\"rel_1\",\"service\":\"api\",\"version\":\"1\",\"region\":\"us-east-1\",\"key\":null}", first.body);
    assertEquals(201, second.status);
    assertTrue(second.body.startsWith("{\"id\":\"rel_2\""), second.body);
    assertEquals(2, target.ledger().size());
    assertEquals(2, JSON.readTree(get("/v1/releases").body).size());
  }

  @Test
  void invalidReleaseIsRejectedAndNotAnAction() throws IOException {
    Answer answer = post("/v1/releases", "{\"service\":\"api\"}", Map.of("Idempotency-Key", "k1"));

    assertEquals(400, answer.status);
    assertEquals("{\"error\":\"service and version are required strings\"}", answer.body);
    assertEquals(List.of(), target.ledger());
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
    assertEquals(2, target.ledger().size());
  }

  @Test
  void ledgerEndpointListsActionsWithParsedBodies() throws IOException {
    post("/v1/releases", RELEASE, Map.of("Idempotency-Key", "k1"));

    JsonNode ledger = JSON.readTree(get("/ledger").body);

    assertEquals(1, ledger.size());
    JsonNode entry = ledger.get(0);
    assertEquals("POST", entry.get("method").asText());
    assertEquals("/v1/releases", entry.get("path").asText());
    assertEquals("k1", entry.get("key").asText());
    assertEquals(JSON.readTree(RELEASE), entry.get("body"));
    assertTrue(entry.get("time").asText().endsWith("Z"), entry.toString());
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
    assertEquals(1, target.ledger().size());
    assertEquals("act_01DROP", target.ledger().get(0).key());
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
    assertEquals(2, target.ledger().size());
  }

  @Test
  void invalidArmedFaultIsRejected() throws IOException {
    Answer answer = post("/admin/faults", "{\"next\":\"explode\"}", Map.of());

    assertEquals(400, answer.status);
    assertEquals("{\"error\":\"next must be \\\"drop-after-accept\\\" or \\\"delay=MS\\\"\"}", answer.body);
  }

  @Test
  void delayFaultDelaysTheAnswer() throws IOException {
    long start = System.nanoTime();
    Answer answer = post("/v1/notifications", "{}", Map.of("X-Demo-Fault", "delay=400"));

    assertEquals(201, answer.status);
    assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(400));
  }

  @Test
  void unknownRouteIs404() throws IOException {
    Answer answer = get("/nope");

    assertEquals(404, answer.status);
    assertNull(answer.replayed);
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
