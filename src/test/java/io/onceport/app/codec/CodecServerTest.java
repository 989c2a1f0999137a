package io.onceport.app.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.javalin.Javalin;
import io.onceport.shared.codec.AesGcmPayloadCodec;
import io.onceport.shared.codec.KeyRing;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DefaultDataConverter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CodecServerTest {
  private static final String UI = "http://127.0.0.1:8233";
  private static final String TOKEN = "op_test_token";
  @TempDir Path data;
  private AesGcmPayloadCodec codec;
  private Javalin app;
  private String base;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void start() {
    codec = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data));
    app = new CodecServer(codec, TOKEN::equals, List.of(UI, "http://localhost:8233"), CodecServer.DEFAULT_PREFIX).app().start("127.0.0.1", 0);
    base = "http://127.0.0.1:" + app.port() + "/codec";
  }

  @AfterEach
  void stop() {
    app.stop();
  }

  private HttpResponse<String> post(String path, String body, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .header("X-Namespace", "default")
        .header("Origin", UI)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void decodeReturnsThePayloadsTheCodecEncrypted() throws Exception {
    Payload original = DefaultDataConverter.newDefaultInstance().toPayload("service=catalog version=7").orElseThrow();
    Payload encrypted = codec.encode(List.of(original)).get(0);

    HttpResponse<String> response = post("/decode", CodecServer.render(List.of(encrypted)), TOKEN);

    assertEquals(200, response.statusCode());
    assertEquals(Optional.of(UI), response.headers().firstValue("Access-Control-Allow-Origin"));
    assertEquals(List.of(original), CodecServer.parse(response.body().getBytes()));
    assertTrue(response.body().contains("\"metadata\":{\"encoding\":\"anNvbi9wbGFpbg==\"}"), response.body());
  }

  @Test
  void encodeThenDecodeThroughTheServerRoundTrips() throws Exception {
    Payload original = DefaultDataConverter.newDefaultInstance().toPayload(List.of("a", 1)).orElseThrow();

    HttpResponse<String> encoded = post("/encode", CodecServer.render(List.of(original)), TOKEN);
    assertEquals(200, encoded.statusCode());
    Payload encrypted = CodecServer.parse(encoded.body().getBytes()).get(0);
    assertEquals("binary/encrypted", encrypted.getMetadataMap().get("encoding").toStringUtf8());

    HttpResponse<String> decoded = post("/decode", encoded.body(), TOKEN);
    assertEquals(List.of(original), CodecServer.parse(decoded.body().getBytes()));
  }

  @Test
  void namespaceTemplatedPathOfTheTemporalCliDecodesToo() throws Exception {
    Payload original = DefaultDataConverter.newDefaultInstance().toPayload("x").orElseThrow();

    HttpResponse<String> response = post("/default/decode", CodecServer.render(codec.encode(List.of(original))), TOKEN);

    assertEquals(200, response.statusCode());
    assertEquals(List.of(original), CodecServer.parse(response.body().getBytes()));
  }

  @Test
  void requestWithoutTokenIsRejectedAndDecryptsNothing() throws Exception {
    Payload encrypted = codec.encode(List.of(DefaultDataConverter.newDefaultInstance().toPayload("secret").orElseThrow())).get(0);

    HttpResponse<String> response = post("/decode", CodecServer.render(List.of(encrypted)), null);

    assertEquals(401, response.statusCode());
    assertEquals("{\"error\":\"not signed in: open a sign-in link (the one serve prints, or `onceport operator codec-link`) or send "
        + "an operator's codec token (`onceport operator codec-token`)\"}", response.body());
    assertEquals(Optional.of("Bearer"), response.headers().firstValue("WWW-Authenticate"));
    assertFalse(response.body().contains("secret"));
  }

  @Test
  void requestWithAWrongTokenIsRejected() throws Exception {
    HttpResponse<String> response = post("/encode", "{\"payloads\":[]}", "op_other");

    assertEquals(401, response.statusCode());
    assertEquals("{\"error\":\"token not allowed to use the codec server\"}", response.body());
  }

  @Test
  void preflightFromTheUiOriginAllowsTheUiHeaders() throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/decode"))
        .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
        .header("Origin", UI)
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "content-type,authorization,x-namespace")
        .build(), HttpResponse.BodyHandlers.ofString());

    assertEquals(204, response.statusCode());
    assertEquals(Optional.of(UI), response.headers().firstValue("Access-Control-Allow-Origin"));
    assertEquals(Optional.of("Content-Type, Authorization, X-Namespace"),
        response.headers().firstValue("Access-Control-Allow-Headers"));
    assertEquals(Optional.of("POST, OPTIONS"), response.headers().firstValue("Access-Control-Allow-Methods"));
  }

  @Test
  void preflightFromAnotherOriginGetsNoCorsGrant() throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/decode"))
        .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
        .header("Origin", "http://evil.example")
        .header("Access-Control-Request-Method", "POST")
        .build(), HttpResponse.BodyHandlers.ofString());

    assertEquals(Optional.empty(), response.headers().firstValue("Access-Control-Allow-Origin"));
  }

  @Test
  void payloadOfAnUnknownKeyIsABadRequestNamingTheKey() throws Exception {
    Payload foreign = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data.resolve("other")))
        .encode(List.of(DefaultDataConverter.newDefaultInstance().toPayload("x").orElseThrow())).get(0);

    HttpResponse<String> response = post("/decode", CodecServer.render(List.of(foreign)), TOKEN);

    assertEquals(400, response.statusCode());
    assertTrue(response.body().startsWith("{\"error\":\"payload encrypted with unknown key "
        + foreign.getMetadataMap().get("encryption-key-id").toStringUtf8()), response.body());
  }

  @Test
  void malformedBodyIsABadRequest() throws Exception {
    HttpResponse<String> response = post("/decode", "[1,2]", TOKEN);

    assertEquals(400, response.statusCode());
    assertEquals("{\"error\":\"invalid codec request: expected a JSON object with \\\"payloads\\\"\"}", response.body());
  }
}
