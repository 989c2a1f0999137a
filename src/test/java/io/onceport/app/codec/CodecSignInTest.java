package io.onceport.app.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.javalin.Javalin;
import io.onceport.app.cli.OnceportCommand;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.shared.codec.AesGcmPayloadCodec;
import io.onceport.shared.codec.KeyRing;
import io.onceport.testing.Operators;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DefaultDataConverter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The codec server's browser sign-in: one-time links (the data directory's, an operator's), the
 * session cookie they buy, and what is refused — a spent, expired, foreign or forged link, a cookie
 * after its hour or after the operator's key was rotated, a cookie-only form post, a request with
 * only an allowed Origin.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CodecSignInTest {
  private static final String UI = "http://127.0.0.1:8233";
  @TempDir Path data;
  @TempDir Path other;
  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-06T12:00:00Z"));
  private final Clock clock = new Clock() {
    @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(java.time.ZoneId zone) { return this; }
    @Override public Instant instant() { return now.get(); }
  };

  private CodecSignIn signIn(Path dir) throws Exception {
    return new CodecSignIn(CodecSignIn.keyOf(FingerprintKey.loadOrCreate(dir)), new OperatorRegistry(dir), clock);
  }

  @Test
  void aLocalLinkSignsInOnceAndItsCookieLastsAnHour() throws Exception {
    CodecSignIn s = signIn(data);
    String ticket = s.mintLocal(Duration.ofMinutes(10));
    CodecSignIn.Who who = s.redeem(ticket);
    assertEquals("local", who.subject());
    assertEquals(now.get().plus(CodecSignIn.SESSION), who.until());
    assertEquals("this sign-in link was used already; get a new one (onceport operator codec-link)",
        assertThrows(CodecSignIn.Refused.class, () -> s.redeem(ticket)).getMessage());
    String cookie = s.cookie(who);
    assertTrue(s.session(cookie).isPresent());
    now.set(now.get().plus(CodecSignIn.SESSION));
    assertTrue(s.session(cookie).isEmpty(), "a cookie after its hour");
  }

  @Test
  void expiredForeignAndForgedLinksAreRefused() throws Exception {
    CodecSignIn s = signIn(data);
    String expiring = s.mintLocal(Duration.ofMinutes(10));
    now.set(now.get().plus(Duration.ofMinutes(10)));
    assertTrue(assertThrows(CodecSignIn.Refused.class, () -> s.redeem(expiring)).getMessage().startsWith("this sign-in link expired at"));
    String foreign = signIn(other).mintLocal(Duration.ofMinutes(10));
    assertEquals("this sign-in link was not made for this deployment (its data directory's keys)",
        assertThrows(CodecSignIn.Refused.class, () -> s.redeem(foreign)).getMessage());
    String good = s.mintLocal(Duration.ofMinutes(10));
    String forged = good.substring(0, good.lastIndexOf('.') - 2) + "xx" + good.substring(good.lastIndexOf('.'));
    assertThrows(CodecSignIn.Refused.class, () -> s.redeem(forged));
    assertEquals("not a sign-in link of this codec server", assertThrows(CodecSignIn.Refused.class, () -> s.redeem("oct_abc")).getMessage());
    assertTrue(s.session("v1.e30.AAAA").isEmpty(), "a forged cookie");
    assertTrue(s.session(signIn(other).cookie(new CodecSignIn.Who("local", null, now.get().plusSeconds(60)))).isEmpty(),
        "another deployment's cookie");
  }

  @Test
  void anOperatorsLinkIsCheckedAgainstTheRegistryAndARotationEndsItsSessions() throws Exception {
    OperatorKey carol = Operators.register(data, "carol");
    CodecSignIn s = signIn(data);
    CodecSignIn.Who who = s.redeem(CodecSignIn.mintOperator(carol, now.get(), CodecSignIn.LINK));
    assertEquals("operator:carol", who.subject());
    assertEquals(carol.keyId(), who.keyId());
    String cookie = s.cookie(who);
    assertTrue(s.session(cookie).isPresent());

    OperatorKey mallory = OperatorKey.generate("mallory");
    assertEquals("operator mallory with key " + mallory.keyId() + " is not registered here (onceport operator list)",
        assertThrows(CodecSignIn.Refused.class, () -> s.redeem(CodecSignIn.mintOperator(mallory, now.get(), CodecSignIn.LINK))).getMessage());

    new OperatorRegistry(data).rotate(OperatorKey.generate("carol"));
    assertTrue(s.session(cookie).isEmpty(), "the rotated key's session");
    assertThrows(CodecSignIn.Refused.class, () -> s.redeem(CodecSignIn.mintOperator(carol, now.get(), CodecSignIn.LINK)));
  }

  @Test
  void onlyTheCookieOfASignInDecodesAndNeverAFormPostOrAnOriginAlone() throws Exception {
    CodecSignIn s = CodecSignIn.forDataDir(data);
    AesGcmPayloadCodec codec = new AesGcmPayloadCodec(KeyRing.loadOrCreate(data));
    Javalin app = new CodecServer(codec, token -> false, List.of(UI), CodecServer.DEFAULT_PREFIX, s).app().start("127.0.0.1", 0);
    try {
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + app.port() + "/codec";
      Payload plain = DefaultDataConverter.newDefaultInstance().toPayload("service=catalog").orElseThrow();
      String body = CodecServer.render(codec.encode(List.of(plain)));

      assertEquals(401, post(http, base, body, null, "application/json").statusCode(), "an allowed Origin alone");
      HttpResponse<String> signedIn = http.send(HttpRequest.newBuilder(URI.create(base + "/sign-in?ticket="
          + URLEncoder.encode(s.mintLocal(Duration.ofMinutes(1)), StandardCharsets.UTF_8) + "&next=/namespaces/default/workflows"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(303, signedIn.statusCode(), signedIn.body());
      assertEquals("/namespaces/default/workflows", signedIn.headers().firstValue("Location").orElseThrow());
      assertEquals("no-referrer", signedIn.headers().firstValue("Referrer-Policy").orElseThrow());
      String setCookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
      assertTrue(setCookie.contains("; Path=/codec; Max-Age=3600; HttpOnly; SameSite=Strict"), setCookie);
      String cookie = setCookie.substring(0, setCookie.indexOf(';'));

      HttpResponse<String> decoded = post(http, base, body, cookie, "application/json");
      assertEquals(200, decoded.statusCode(), decoded.body());
      assertEquals(List.of(plain), CodecServer.parse(decoded.body().getBytes(StandardCharsets.UTF_8)));
      assertEquals(UI, decoded.headers().firstValue("Access-Control-Allow-Origin").orElseThrow());
      assertEquals("true", decoded.headers().firstValue("Access-Control-Allow-Credentials").orElseThrow());
      assertEquals(415, post(http, base, body, cookie, "text/plain").statusCode(), "a form post riding on the cookie");

      HttpResponse<String> next = http.send(HttpRequest.newBuilder(URI.create(base + "/sign-in?ticket="
          + URLEncoder.encode(s.mintLocal(Duration.ofMinutes(1)), StandardCharsets.UTF_8) + "&next=//evil.example/"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, next.statusCode(), "no redirect off this host");
      assertTrue(next.body().startsWith("Signed in to Onceport's codec server as local until "), next.body());
    } finally {
      app.stop();
    }
  }

  @Test
  void operatorCodecLinkPrintsALinkTheCodecServerRedeems() throws Exception {
    OperatorKey carol = Operators.register(data, "carol");
    Path keyFile = other.resolve("carol.key");
    carol.write(keyFile, false);
    CodecSignIn s = CodecSignIn.forDataDir(data);
    String signed = run("operator", "codec-link", "--url", "https://onceport.example.com/codec/", "--key-file", keyFile.toString(),
        "--operator", "carol");
    assertTrue(signed.startsWith("https://onceport.example.com/codec/sign-in?ticket=ocs1.o."), signed);
    assertEquals("operator:carol", s.redeem(ticket(signed)).subject());
    String local = run("operator", "codec-link", "--local", "--data", data.toString(), "--url", "http://127.0.0.1:8233/codec",
        "--next", "/namespaces/default/workflows");
    assertTrue(local.endsWith("&next=%2Fnamespaces%2Fdefault%2Fworkflows"), local);
    assertEquals("local", s.redeem(ticket(local)).subject());
  }

  private static String ticket(String link) {
    String t = link.substring(link.indexOf("ticket=") + "ticket=".length());
    return t.contains("&") ? t.substring(0, t.indexOf('&')) : t;
  }

  private static String run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = OnceportCommand.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute(args);
    assertEquals(0, exit, err.toString());
    return out.toString().strip();
  }

  private static HttpResponse<String> post(HttpClient http, String base, String body, String cookie, String contentType) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + "/decode")).timeout(Duration.ofSeconds(10))
        .header("Content-Type", contentType).header("Origin", UI).POST(HttpRequest.BodyPublishers.ofString(body));
    if (cookie != null) {
      r.header("Cookie", cookie);
    }
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }
}
