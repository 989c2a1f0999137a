package io.onceport.activity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.vault.Credential;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.UrlTemplate;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A target that echoes what it received — the request headers in the body, the credential in a
 * header, or an encoded copy — must not put the vault secret into the result: every form of it is
 * replaced by {@code [redacted:<reference>]}, the result says which credential was redacted, and
 * the target still received the real secret.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SecretRedactionTest {
  /** Has characters that JSON, percent- and HTML-encoding all change. */
  private static final String SECRET = "tok/Zq8\"vN3 <do-not-leak>+41f9";

  private final MockWebServer server = new MockWebServer();
  private final HttpChannel channel = new HttpChannel();
  private final HttpChannelTest.RecordingContext context = new HttpChannelTest.RecordingContext();

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    context.credentials.put("bearer", new Credential("bearer", Credential.Type.BEARER, null, null, SECRET));
    context.credentials.put("basic", new Credential("basic", Credential.Type.BASIC, null, "ops", SECRET));
    context.credentials.put("header", new Credential("header", Credential.Type.HEADER, "X-Api-Key", null, SECRET));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** Answers with every request header in the body, as a debugging echo endpoint would. */
  private void echoHeaders(int code) {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        StringBuilder body = new StringBuilder();
        request.getHeaders().forEach(h -> body.append(h.getFirst()).append(": ").append(h.getSecond()).append('\n'));
        return new MockResponse.Builder().code(code).body(body.toString()).build();
      }
    });
  }

  @Test
  void aBearerTokenEchoedInTheBodyIsRedactedAndTheResultSaysSo() throws Exception {
    echoHeaders(200);

    DispatchResult result = channel.dispatch(HttpChannelTest.request(spec("bearer"), "{}"), context);

    assertFalse(result.body().contains(SECRET), result.body());
    assertTrue(result.body().contains("Authorization: Bearer [redacted:bearer]\n"), result.body());
    assertEquals(List.of("bearer"), result.redacted());
    assertEquals("Bearer " + SECRET, server.takeRequest().getHeaders().get("Authorization"), "the target got the real secret");
  }

  @Test
  void aBasicCredentialEchoedAsItsBase64AndAsThePasswordIsRedacted() {
    echoHeaders(200);
    String pair = Base64.getEncoder().encodeToString(("ops:" + SECRET).getBytes(StandardCharsets.UTF_8));

    DispatchResult result = channel.dispatch(HttpChannelTest.request(spec("basic"), "{}"), context);

    assertFalse(result.body().contains(pair), result.body());
    assertTrue(result.body().contains("Authorization: Basic [redacted:basic]\n"), result.body());
    assertEquals(List.of("basic"), result.redacted());
  }

  @Test
  void aHeaderCredentialIsRedactedFromTheBodyAndFromKeptHeadersInEveryEncoding() {
    String json = SECRET.replace("\"", "\\\"");
    String jsonSlashes = json.replace("/", "\\/");
    String percent = UrlTemplate.percentEncode(SECRET);
    String html = SECRET.replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    String base64 = Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8));
    String body = "{\"echo\":\"" + json + "\",\"escaped\":\"" + jsonSlashes + "\",\"html\":\"" + html + "\",\"b64\":\""
        + base64 + "\",\"lower\":\"" + percent.toLowerCase(java.util.Locale.ROOT) + "\"}";
    server.enqueue(new MockResponse.Builder().code(401)
        .addHeader("Location", "/login?next=" + percent)
        .addHeader("X-Request-Id", SECRET)
        .body(body).build());

    DispatchResult result = channel.dispatch(HttpChannelTest.request(spec("header"), "{}"), context);

    for (String form : List.of(SECRET, json, jsonSlashes, percent, percent.toLowerCase(java.util.Locale.ROOT), html, base64)) {
      assertFalse(result.body().contains(form), form + " in " + result.body());
      assertFalse(result.headers().toString().contains(form), form + " in " + result.headers());
    }
    assertEquals("{\"echo\":\"[redacted:header]\",\"escaped\":\"[redacted:header]\",\"html\":\"[redacted:header]\","
        + "\"b64\":\"[redacted:header]\",\"lower\":\"[redacted:header]\"}", result.body());
    assertEquals("/login?next=[redacted:header]", result.headers().get("location"));
    assertEquals("[redacted:header]", result.headers().get("x-request-id"));
    assertEquals(401, result.status());
    assertEquals(List.of("header"), result.redacted());
  }

  @Test
  void aSecretCrossingTheBodyCapIsNotLeftHalfInTheTruncatedBody() {
    String filler = "x".repeat(DispatchResult.BODY_CAP - 10);
    server.enqueue(new MockResponse.Builder().code(200).body(filler + SECRET + "y".repeat(100)).build());

    DispatchResult result = channel.dispatch(HttpChannelTest.request(spec("header"), "{}"), context);

    assertTrue(result.truncated());
    assertEquals(DispatchResult.BODY_CAP, result.body().length());
    assertEquals(filler + "[redacted:header]".substring(0, 10), result.body());
    assertEquals(List.of("header"), result.redacted());
  }

  @Test
  void aBodyBrokenOffInsideTheSecretKeepsNoPrefixOfIt() {
    String partial = "{\"token\":\"" + SECRET.substring(0, 12);
    server.enqueue(new MockResponse.Builder().code(200)
        .body(partial)
        .setHeader("Content-Length", "500")
        .onResponseEnd(new SocketEffect.CloseSocket())
        .build());

    DispatchResult result = channel.dispatch(HttpChannelTest.request(spec("header"), "{}"), context);

    assertTrue(result.truncated(), "a broken body is partial");
    assertEquals("{\"token\":\"[redacted:header]", result.body());
    assertEquals(List.of("header"), result.redacted());
  }

  @Test
  void aStatusAnswerEchoingTheCredentialIsRedacted() {
    echoHeaders(200);

    StatusResult status = channel.queryStatus(
        HttpChannelTest.statusRequest(server, "/v1/releases/by-key/{{execution_id}}", "header"), context);

    assertEquals(StatusResult.Verdict.COMPLETED, status.verdict());
    assertFalse(status.result().body().contains(SECRET), status.result().body());
    assertTrue(status.result().body().contains("X-Api-Key: [redacted:header]\n"), status.result().body());
    assertEquals(List.of("header"), status.result().redacted());
  }

  @Test
  void anAnswerWithoutTheSecretIsUntouchedAndNotMarked() {
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"rel_1\",\"note\":\"tok/Zq8\"}").build());

    DispatchResult result = channel.dispatch(HttpChannelTest.request(spec("bearer"), "{}"), context);

    assertEquals("{\"id\":\"rel_1\",\"note\":\"tok/Zq8\"}", result.body());
    assertEquals(List.of(), result.redacted());
  }

  private HttpSpec spec(String credential) {
    return new HttpSpec("POST", "http://127.0.0.1:" + server.getPort() + "/v1/echo", null, Map.of(), "Idempotency-Key", credential, 5000);
  }
}
