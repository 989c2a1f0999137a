package io.onceport.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.app.demo.DemoTarget.Handling;
import io.onceport.app.demo.DemoTarget.LedgerEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

/** The demo target's credential API: rotations, the active key, Idempotency-Key, and rotations armed to apply late or never. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DemoTargetCredentialsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType JSON_TYPE = MediaType.get("application/json");

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
  void aRotationAnswersTheOldAndTheNewKeyAndTheNewOneIsActive() throws IOException {
    Answer before = get("/v1/credentials/billing/active");
    Answer rotated = post("/v1/credentials/billing/rotate", "", Map.of());
    Answer after = get("/v1/credentials/billing/active");

    assertEquals(200, before.status);
    assertEquals("billing-key-1", json(before).get("key_id").asText());
    assertEquals(200, rotated.status);
    assertEquals("{\"service\":\"billing\",\"old_key_id\":\"billing-key-1\",\"new_key_id\":\"billing-key-2\"}", rotated.body);
    assertEquals("billing-key-2", json(after).get("key_id").asText());
    assertEquals(List.of(Handling.READ, Handling.ACTED, Handling.READ), handlings());
    assertEquals(List.of("GET /v1/credentials/billing/active", "POST /v1/credentials/billing/rotate",
        "GET /v1/credentials/billing/active"), target.ledger().stream().map(e -> e.method() + " " + e.path()).toList());
  }

  @Test
  void withoutAKeyEveryRotationRotatesAgain() throws IOException {
    post("/v1/credentials/billing/rotate", "{}", Map.of());
    Answer second = post("/v1/credentials/billing/rotate", "{}", Map.of());

    assertEquals("billing-key-2", json(second).get("old_key_id").asText());
    assertEquals("billing-key-3", json(second).get("new_key_id").asText());
    assertEquals("billing-key-3", json(get("/v1/credentials/billing/active")).get("key_id").asText());
    assertEquals(2, target.ledger().stream().filter(LedgerEntry::acted).count());
  }

  @Test
  void theSameIdempotencyKeyReplaysTheRotationWithoutRotatingAgain() throws IOException {
    Answer first = post("/v1/credentials/billing/rotate", "{\"reason\":\"quarterly\"}", Map.of("Idempotency-Key", "act_1"));
    Answer again = post("/v1/credentials/billing/rotate", "{ \"reason\" : \"quarterly\" }", Map.of("Idempotency-Key", "act_1"));
    Answer otherService = post("/v1/credentials/payroll/rotate", "{\"reason\":\"quarterly\"}", Map.of("Idempotency-Key", "act_1"));
    Answer otherBody = post("/v1/credentials/billing/rotate", "{}", Map.of("Idempotency-Key", "act_1"));

    assertEquals(first.body, again.body);
    assertEquals("true", again.replayed);
    assertNull(first.replayed);
    assertEquals(422, otherService.status);
    assertEquals("{\"error\":\"Idempotency-Key act_1 was used with a different request (service billing)\"}", otherService.body);
    assertEquals(422, otherBody.status);
    assertEquals(1, target.acted("act_1"));
    assertEquals(4, target.received("act_1"));
    assertEquals(List.of(Handling.ACTED, Handling.REPLAYED, Handling.REJECTED, Handling.REJECTED), handlings());
    assertEquals("billing-key-2", json(get("/v1/credentials/billing/active")).get("key_id").asText());
    assertEquals("payroll-key-1", json(get("/v1/credentials/payroll/active")).get("key_id").asText());
  }

  @Test
  void theStatusEndpointFindsARotationByItsKey() throws IOException {
    post("/v1/credentials/billing/rotate", "", Map.of("Idempotency-Key", "act_1"));

    Answer found = get("/v1/credentials/billing/rotations/by-key/act_1");
    Answer elsewhere = get("/v1/credentials/payroll/rotations/by-key/act_1");
    Answer missing = get("/v1/credentials/billing/rotations/by-key/act_2");

    assertEquals(200, found.status);
    JsonNode rotation = json(found);
    assertEquals(List.of("billing-key-1", "billing-key-2", "true", "act_1"), List.of(rotation.get("old_key_id").asText(),
        rotation.get("new_key_id").asText(), rotation.get("applied").asText(), rotation.get("key").asText()));
    assertEquals(404, elsewhere.status);
    assertEquals(404, missing.status);
    assertEquals("{\"error\":\"no rotation of billing with key act_2\"}", missing.body);
  }

  @Test
  void aRotationArmedToApplyLateIsAnsweredAtOnceAndActiveSaysRotatingUntilItLands() throws Exception {
    Answer armed = post("/admin/faults", "{\"next\":\"apply-late=700\"}", Map.of());
    long start = System.nanoTime();
    Answer rotated = post("/v1/credentials/billing/rotate", "", Map.of("Idempotency-Key", "act_1"));
    Answer during = get("/v1/credentials/billing/active");
    Answer secondRotation = post("/v1/credentials/billing/rotate", "", Map.of());
    Answer statusDuring = get("/v1/credentials/billing/rotations/by-key/act_1");

    assertEquals(200, armed.status);
    assertEquals("billing-key-2", json(rotated).get("new_key_id").asText());
    assertEquals(202, during.status);
    assertEquals("{\"service\":\"billing\",\"state\":\"rotating\"}", during.body);
    assertEquals(409, secondRotation.status, "no rotation while one is being applied");
    assertEquals(false, json(statusDuring).get("applied").asBoolean());
    Answer after = awaitActive("billing", 200);
    assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(700));
    assertEquals("billing-key-2", json(after).get("key_id").asText());
    assertEquals(true, json(get("/v1/credentials/billing/rotations/by-key/act_1")).get("applied").asBoolean());
    LedgerEntry entry = target.ledger().get(0);
    assertEquals(List.of("apply-late=700", "acted"), List.of(entry.fault(), entry.handling().wireName()));
  }

  @Test
  void aRotationArmedToApplyNeverIsAnsweredButTheOldKeyStaysActive() throws IOException {
    target.armFault(DemoTarget.APPLY_NEVER, 1);

    Answer rotated = post("/v1/credentials/billing/rotate", "", Map.of("Idempotency-Key", "act_1"));
    Answer active = get("/v1/credentials/billing/active");

    assertEquals("{\"service\":\"billing\",\"old_key_id\":\"billing-key-1\",\"new_key_id\":\"billing-key-2\"}", rotated.body);
    assertEquals(200, active.status);
    assertEquals("billing-key-1", json(active).get("key_id").asText(), "the old key is still active");
    assertEquals(DemoTarget.APPLY_NEVER, target.ledger().get(0).fault());
    Answer next = post("/v1/credentials/billing/rotate", "", Map.of());
    assertEquals("billing-key-3", json(next).get("new_key_id").asText());
    assertEquals("billing-key-3", json(get("/v1/credentials/billing/active")).get("key_id").asText());
  }

  @Test
  void aRotationFaultArmedWaitsForARotationAndOtherActionsPassItBy() throws IOException {
    target.armFault(DemoTarget.APPLY_NEVER, 1);

    Answer release = post("/v1/releases", "{\"service\":\"api\",\"version\":\"1\"}", Map.of());
    Answer rotated = post("/v1/credentials/billing/rotate", "", Map.of());

    assertEquals(201, release.status);
    assertNull(target.ledger().get(0).fault());
    assertEquals(DemoTarget.APPLY_NEVER, target.ledger().get(1).fault());
    assertEquals("billing-key-2", json(rotated).get("new_key_id").asText());
    assertEquals("billing-key-1", json(get("/v1/credentials/billing/active")).get("key_id").asText());
  }

  @Test
  void aRotationFaultByHeaderOnAnotherActionIs400AndNothingHappens() throws IOException {
    Answer answer = post("/v1/notifications", "{}", Map.of(DemoTarget.FAULT_HEADER, "apply-late=100"));

    assertEquals(400, answer.status);
    assertEquals("{\"error\":\"X-Demo-Fault apply-late=100 applies only to POST /v1/credentials/{service}/rotate\"}", answer.body);
    assertEquals(Handling.REJECTED, target.ledger().get(0).handling());
  }

  @Test
  void dropAfterAcceptRotatesThenDropsTheAnswer() throws IOException {
    assertThrows(IOException.class, () -> post("/v1/credentials/billing/rotate", "",
        Map.of("Idempotency-Key", "act_1", DemoTarget.FAULT_HEADER, DemoTarget.DROP_AFTER_ACCEPT)));

    assertEquals("billing-key-2", json(get("/v1/credentials/billing/active")).get("key_id").asText());
    assertEquals(1, target.acted("act_1"));
    assertNull(target.ledger().get(0).status(), "nothing was answered");
  }

  @Test
  void aRepeatedKeyWhileTheFirstRotationIsBeingHandledIs409AndItsStatusIs202() throws Exception {
    CompletableFuture<Answer> slow = CompletableFuture.supplyAsync(() -> {
      try {
        return post("/v1/credentials/billing/rotate", "", Map.of("Idempotency-Key", "act_1", DemoTarget.FAULT_HEADER, "delay=1500"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    awaitLedger(l -> l.size() == 1 && l.get(0).handling() == Handling.PROCESSING);

    Answer concurrent = post("/v1/credentials/billing/rotate", "", Map.of("Idempotency-Key", "act_1"));
    Answer status = get("/v1/credentials/billing/rotations/by-key/act_1");

    assertEquals(409, concurrent.status);
    assertEquals(202, status.status);
    assertEquals(200, slow.get(10, TimeUnit.SECONDS).status);
    assertEquals(1, target.acted("act_1"));
  }

  @Test
  void badRequestsAreRejected() throws IOException {
    assertEquals(400, post("/v1/credentials/billing/rotate", "[1]", Map.of()).status);
    assertEquals(400, post("/v1/credentials/bad%20name/rotate", "", Map.of()).status);
    assertEquals(405, call(new Request.Builder().url(target.url() + "/v1/credentials/billing/active")
        .post(RequestBody.create("", JSON_TYPE)).build()).status);
    assertEquals(404, get("/v1/credentials/billing").status);
    assertTrue(target.ledger().stream().noneMatch(LedgerEntry::acted));
    assertEquals("billing-key-1", json(get("/v1/credentials/billing/active")).get("key_id").asText());
  }

  @Test
  void theLedgerListsCredentialRequestsLikeEveryOther() throws IOException {
    post("/v1/credentials/billing/rotate", "", Map.of("Idempotency-Key", "act_1"));
    get("/v1/credentials/billing/active");

    JsonNode ledger = JSON.readTree(get("/ledger").body);

    assertEquals(2, ledger.size(), ledger.toString());
    assertEquals(List.of("POST", "/v1/credentials/billing/rotate", "act_1", "acted", "200"), List.of(ledger.get(0).get("method").asText(),
        ledger.get(0).get("path").asText(), ledger.get(0).get("key").asText(), ledger.get(0).get("handling").asText(),
        ledger.get(0).get("status").asText()));
    assertEquals(List.of("GET", "read", "200"), List.of(ledger.get(1).get("method").asText(),
        ledger.get(1).get("handling").asText(), ledger.get(1).get("status").asText()));
  }

  private Answer awaitActive(String service, int status) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      Answer a = get("/v1/credentials/" + service + "/active");
      if (a.status == status) {
        return a;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("active never answered " + status + ": " + a);
      }
      Thread.sleep(50);
    }
  }

  private void awaitLedger(java.util.function.Predicate<List<LedgerEntry>> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.test(target.ledger())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("ledger never matched: " + target.ledger());
      }
      Thread.sleep(20);
    }
  }

  private List<Handling> handlings() {
    return target.ledger().stream().map(LedgerEntry::handling).toList();
  }

  private static JsonNode json(Answer a) throws IOException {
    return JSON.readTree(a.body);
  }

  private record Answer(int status, String body, String replayed) {}

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
      return new Answer(response.code(), response.body().string(), response.header("Idempotent-Replayed"));
    }
  }
}
