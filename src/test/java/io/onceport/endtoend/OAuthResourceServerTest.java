package io.onceport.endtoend;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jwt.PlainJWT;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.auth.oauth.OAuthSettings;
import io.onceport.frontend.auth.oauth.ScopeMap;
import io.onceport.frontend.auth.oauth.TrustedIssuer;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.ops.Metrics;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.testing.Node22;
import io.onceport.testing.OAuthIssuer;
import io.onceport.testing.Records;
import io.onceport.workflow.execution.ExecutionRecord;
import io.temporal.api.history.v1.HistoryEvent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The front end as an OAuth 2.1 resource server (issue 30), end to end: a real OpenID provider on
 * loopback ({@link OAuthIssuer}), the whole gateway (embedded engine, worker, front end), and a real
 * HTTP target that records every request it gets. Each refusal is checked for its status, its
 * {@code WWW-Authenticate} challenge and for nothing reaching the target.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OAuthResourceServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration HOUR = Duration.ofHours(1);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static Path dir;
  private static OAuthIssuer idp;
  private static MockWebServer target;
  private static final List<RecordedRequest> received = new CopyOnWriteArrayList<>();
  private static EmbeddedEngine engine;
  private static TemporalConnection connection;
  private static WorkerRuntime worker;
  private static FrontendRuntime frontend;
  private static ExecutionDirectory directory;
  private static String resource;
  private static String staticToken;
  private static final Set<String> tokensUsed = ConcurrentHashMap.newKeySet();
  private static final ListAppender<ILoggingEvent> logs = new ListAppender<>();

  @BeforeAll
  static void start() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    logs.setContext(context);
    logs.start();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(logs);
    dir = Files.createTempDirectory("onceport-oauth");
    Path data = Files.createDirectories(dir.resolve("data"));
    idp = OAuthIssuer.start(HOUR, "corp", "other", "intro");
    target = new MockWebServer();
    target.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        received.add(request);
        if (request.getTarget().contains("slow")) {
          Thread.sleep(2500);
        }
        return new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json").body("{\"ok\":true}").build();
      }
    });
    target.start(java.net.InetAddress.getLoopbackAddress(), 0);
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    String base = "http://127.0.0.1:" + target.getPort();
    Files.writeString(contracts.resolve("oauth_act.yaml"), """
        tool: oauth_act
        description: Act on the recording target (OAuth test).
        input_schema:
          type: object
          required: [service]
          properties:
            service: {type: string}
            path: {type: string, default: act}
          additionalProperties: false
        channel: http
        http:
          method: POST
          url: %s/v1/{{path}}
          idempotency_header: Idempotency-Key
        replay:
          class: idempotency_key
          attach_window: PT10M
        """.formatted(base));
    Files.writeString(contracts.resolve("oauth_read.yaml"), """
        tool: oauth_read
        description: Read from the recording target (OAuth test).
        input_schema:
          type: object
          properties:
            service: {type: string}
        channel: http
        http:
          method: GET
          url: %s/v1/read
        replay:
          class: read_only
          attach_window: PT1M
        """.formatted(base));
    Path secret = dir.resolve("introspection-secret");
    Files.writeString(secret, "s3cret-of-onceport");
    OAuthSettings oauth = OAuthSettings.newBuilder()
        .addIssuer(TrustedIssuer.newBuilder(idp.issuer("corp")).actorPrefix("oauth:corp/").build())
        .addIssuer(TrustedIssuer.newBuilder(idp.issuer("intro")).actorPrefix("oauth:intro/")
            .introspection(new TrustedIssuer.Introspection(null, "onceport", Files.readString(secret))).build())
        .scopes(scopes())
        .clockSkew(Duration.ofSeconds(1))
        .build();
    staticToken = new AgentRegistry(data).add("agent:deployer");
    tokensUsed.add(staticToken);
    Metrics metrics = new Metrics();
    engine = EmbeddedEngine.start("127.0.0.1", 0);
    connection = TemporalConnection.connect(engine.target(), "default", true,
        io.onceport.shared.codec.Payloads.dataConverter(false, data), Duration.ofSeconds(10), metrics.metricsScope());
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    worker = WorkerRuntime.start(connection, "oauth", data, null, "auto", Duration.ofMinutes(1), "oauth");
    frontend = FrontendRuntime.start(connection, "oauth", data, new ContractLoader().load(contracts),
        FrontendSettings.loopback(Duration.ofSeconds(20), "auto").withOAuth(oauth), metrics, worker.readAccess());
    directory = new ExecutionDirectory(connection);
    resource = "http://127.0.0.1:" + frontend.port() + "/mcp";
  }

  private static ScopeMap scopes() {
    Map<String, List<String>> m = new java.util.LinkedHashMap<>();
    m.put("tools:read", List.of("class:read_only"));
    m.put("tools:act", List.of("*"));
    return ScopeMap.of(m);
  }

  @AfterAll
  static void stop() throws Exception {
    ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(logs);
    if (frontend != null) {
      frontend.close();
    }
    if (worker != null) {
      worker.close();
    }
    if (connection != null) {
      connection.close();
    }
    if (engine != null) {
      engine.close();
    }
    if (target != null) {
      target.close();
    }
    if (idp != null) {
      idp.close();
    }
  }

  // ---- discovery ----------------------------------------------------------------------------

  @Test
  @Order(1)
  void protectedResourceMetadataNamesTheResourceTheIssuersAndTheScopes() throws Exception {
    for (String path : List.of("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource")) {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + frontend.port() + path)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), path);
      JsonNode doc = JSON.readTree(r.body());
      assertEquals(resource, doc.path("resource").asText(), r.body());
      assertEquals(List.of(idp.issuer("corp"), idp.issuer("intro")), texts(doc.path("authorization_servers")));
      assertEquals(List.of("tools:read", "tools:act"), texts(doc.path("scopes_supported")));
      assertEquals(List.of("header"), texts(doc.path("bearer_methods_supported")));
    }
  }

  @Test
  @Order(2)
  void aRequestWithoutATokenIs401NamingTheResourceMetadata() throws Exception {
    HttpResponse<String> r = post(null, null, initialize());
    assertEquals(401, r.statusCode(), r.body());
    assertEquals("Bearer resource_metadata=\"" + metadataUrl() + "\"", r.headers().firstValue("WWW-Authenticate").orElse(null));
  }

  // ---- refusals: 401 invalid_token, nothing dispatched --------------------------------------

  @Test
  @Order(3)
  void tokensThatAreNotForThisResourceAreRefusedWith401AndNothingIsDispatched() throws Exception {
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put("wrong audience", idp.token("corp", "alice", "https://elsewhere.example/mcp", "tools:act", HOUR));
    cases.put("wrong issuer", idp.token("other", "alice", resource, "tools:act", HOUR));
    cases.put("expired", idp.token("corp", "alice", resource, "tools:act", Duration.ofMinutes(-5)));
    cases.put("bad signature", idp.forgedToken("corp", "alice", resource, "tools:act"));
    cases.put("none algorithm", new PlainJWT(idp.claims("corp", "alice", resource, "tools:act", HOUR)).serialize());
    cases.put("garbage", "not-a-token-at-all");
    Map<String, String> expected = Map.of(
        "wrong audience", "the token's audience is not this resource (" + resource + ")",
        "wrong issuer", "the token's issuer is not trusted here",
        "expired", "the token has expired",
        "bad signature", "the token's signature does not verify with the issuer's keys",
        "none algorithm", "unsigned tokens (alg none) are refused",
        "garbage", "the token is not active at its issuer (expired or revoked)");
    int before = received.size();
    for (Map.Entry<String, String> c : cases.entrySet()) {
      tokensUsed.add(c.getValue());
      HttpResponse<String> r = post(c.getValue(), null, call(1, "oauth_act", "{\"service\":\"refused\"}"));
      assertEquals(401, r.statusCode(), c.getKey() + ": " + r.body());
      assertEquals("Bearer error=\"invalid_token\", error_description=\"" + expected.get(c.getKey()) + "\", resource_metadata=\""
          + metadataUrl() + "\"", r.headers().firstValue("WWW-Authenticate").orElse(null), c.getKey());
    }
    assertEquals(before, received.size(), "nothing reached the target");
  }

  // ---- a valid token calls; scopes ----------------------------------------------------------

  @Test
  @Order(4)
  void aValidTokenCallsAsItsIdentityAndTheTokenNeverReachesTheTarget() throws Exception {
    String token = token("corp", "alice", "tools:act");
    String session = initialize(token);
    int before = received.size();
    JsonNode result = json(post(token, session, call(2, "oauth_act", "{\"service\":\"checkout\"}")));
    assertEquals("completed", result.at("/result/structuredContent/state").asText(), result.toString());
    assertEquals(before + 1, received.size());
    RecordedRequest sent = received.get(received.size() - 1);
    assertEquals(null, sent.getHeaders().get("Authorization"), "no token passthrough: the target gets no Authorization of the agent's");
    assertFalse(sent.getHeaders().toString().contains(token) || sent.getBody().utf8().contains(token));
    ExecutionRecord rec = record(result.at("/result/structuredContent/execution_id").asText());
    assertEquals("oauth:corp/alice", rec.actor());
  }

  @Test
  @Order(5)
  void aTokenWithoutTheToolsScopeIs403InsufficientScopeNamingTheScopeAndNothingIsDispatched() throws Exception {
    String token = token("corp", "reader", "tools:read");
    String session = initialize(token);
    int before = received.size();
    HttpResponse<String> r = post(token, session, call(3, "oauth_act", "{\"service\":\"checkout\"}"));
    assertEquals(403, r.statusCode(), r.body());
    assertEquals("Bearer error=\"insufficient_scope\", error_description=\"tool oauth_act needs scope tools:act\", "
        + "scope=\"tools:act\", resource_metadata=\"" + metadataUrl() + "\"", r.headers().firstValue("WWW-Authenticate").orElse(null));
    assertEquals(before, received.size(), "nothing reached the target");
    JsonNode read = json(post(token, session, call(4, "oauth_read", "{\"service\":\"checkout\"}")));
    assertFalse(read.at("/result/isError").asBoolean(), read.toString());
    assertEquals(before + 1, received.size(), "the read its scope allows was sent");
  }

  @Test
  @Order(6)
  void aKeyRotatedAtTheIssuerIsPickedUpWithoutARestart() throws Exception {
    String old = token("corp", "rotor", "tools:act");
    String session = initialize(old);
    int fetches = idp.jwksFetches("corp");
    idp.rotate("corp");
    String rotated = idp.signWithRotatedKey("corp", "rotor", resource, "tools:act", HOUR);
    tokensUsed.add(rotated);
    JsonNode result = json(post(rotated, session, call(5, "oauth_act", "{\"service\":\"rotation\"}")));
    assertEquals("completed", result.at("/result/structuredContent/state").asText(), result.toString());
    assertEquals(fetches + 1, idp.jwksFetches("corp"), "an unknown key id fetched the issuer's keys once");
    assertEquals(200, post(old, session, call(6, "oauth_read", "{}")).statusCode(),
        "the old key still verifies while the issuer publishes it");
  }

  // ---- identities and retries ---------------------------------------------------------------

  @Test
  @Order(7)
  void twoIdentitiesWithIdenticalArgumentsAreTwoExecutionsAndOneIdentityRetryingWithANewTokenIsOne() throws Exception {
    String alice = token("corp", "alice", "tools:act");
    String bob = token("corp", "bob", "tools:act");
    String aliceSession = initialize(alice);
    String bobSession = initialize(bob);
    int before = received.size();
    String args = "{\"service\":\"payments\"}";
    JsonNode a = json(post(alice, aliceSession, call(7, "oauth_act", args), "Idempotency-Key", "deploy-payments-1"));
    JsonNode b = json(post(bob, bobSession, call(7, "oauth_act", args), "Idempotency-Key", "deploy-payments-1"));
    String aliceAgain = token("corp", "alice", "tools:act");
    assertNotEquals(alice, aliceAgain, "a fresh token");
    JsonNode again = json(post(aliceAgain, aliceSession, call(8, "oauth_act", args), "Idempotency-Key", "deploy-payments-1"));
    String ea = a.at("/result/structuredContent/execution_id").asText();
    String eb = b.at("/result/structuredContent/execution_id").asText();
    assertNotEquals(ea, eb, "two identities: two executions");
    assertEquals(ea, again.at("/result/structuredContent/execution_id").asText(), "the same identity retrying: one execution");
    assertEquals(before + 2, received.size(), "two sends, not three");
    assertEquals("oauth:corp/bob", record(eb).actor());
  }

  @Test
  @Order(8)
  void aTokenRevokedAtTheIssuerStopsNewCallsAtOnceWhileTheStartedExecutionGoesOnForItsIdentityOnly() throws Exception {
    String first = token("intro", "carol", "tools:act");
    String session = initialize(first);
    int introspections = idp.introspections();
    int before = received.size();
    String args = "{\"service\":\"ledger\",\"path\":\"slow\"}";
    CompletableFuture<HttpResponse<String>> running = CompletableFuture.supplyAsync(() -> {
      try {
        return post(first, session, call(9, "oauth_act", args), "Idempotency-Key", "ledger-1");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    for (long end = System.nanoTime() + 30_000_000_000L; received.size() == before && System.nanoTime() < end; ) {
      Thread.sleep(20);
    }
    assertEquals(before + 1, received.size(), "the call was dispatched");
    idp.revoke(first);
    HttpResponse<String> refused = post(first, session, call(10, "oauth_read", "{}"));
    assertEquals(401, refused.statusCode(), refused.body());
    assertEquals("Bearer error=\"invalid_token\", error_description=\"the token is not active at its issuer (expired or revoked)\", "
        + "resource_metadata=\"" + metadataUrl() + "\"", refused.headers().firstValue("WWW-Authenticate").orElse(null));
    assertTrue(idp.introspections() > introspections, "each request asked the issuer");
    JsonNode done = json(running.get(60, TimeUnit.SECONDS));
    assertEquals("completed", done.at("/result/structuredContent/state").asText(), done.toString());
    String execution = done.at("/result/structuredContent/execution_id").asText();
    String renewed = token("intro", "carol", "tools:act");
    JsonNode again = json(post(renewed, session, call(11, "oauth_act", args), "Idempotency-Key", "ledger-1"));
    assertEquals(execution, again.at("/result/structuredContent/execution_id").asText(), "the same identity gets its execution");
    String dave = token("intro", "dave", "tools:act");
    JsonNode other = json(post(dave, initialize(dave), call(11, "oauth_act", args), "Idempotency-Key", "ledger-1"));
    assertNotEquals(execution, other.at("/result/structuredContent/execution_id").asText(), "another identity never gets it");
    assertEquals("oauth:intro/carol", record(execution).actor());
  }

  @Test
  @Order(9)
  void anOpaqueTokenIsIntrospectedAndAJwtPastItsExpiryStopsTheNextCall() throws Exception {
    String opaque = idp.opaqueToken("intro", "erin", resource, "tools:read", HOUR);
    tokensUsed.add(opaque);
    String session = initialize(opaque);
    JsonNode read = json(post(opaque, session, call(12, "oauth_read", "{\"service\":\"opaque\"}")));
    assertFalse(read.at("/result/isError").asBoolean(), read.toString());

    String shortLived = idp.token("corp", "frank", resource, "tools:read", Duration.ofSeconds(2));
    tokensUsed.add(shortLived);
    String s2 = initialize(shortLived);
    assertEquals(200, post(shortLived, s2, call(13, "oauth_read", "{}")).statusCode());
    HttpResponse<String> r = null;
    for (long end = System.nanoTime() + 15_000_000_000L; System.nanoTime() < end; Thread.sleep(100)) {
      r = post(shortLived, s2, call(14, "oauth_read", "{}"));
      if (r.statusCode() != 200) {
        break;
      }
    }
    assertEquals(401, r.statusCode(), "expiry stops the next call");
    assertTrue(r.headers().firstValue("WWW-Authenticate").orElse("").contains("error_description=\"the token has expired\""));
  }

  @Test
  @Order(10)
  void staticAgentTokensKeepWorkingBesideOAuth() throws Exception {
    String session = initialize(staticToken);
    JsonNode result = json(post(staticToken, session, call(15, "oauth_act", "{\"service\":\"static\"}")));
    assertEquals("completed", result.at("/result/structuredContent/state").asText(), result.toString());
    assertEquals("agent:deployer", record(result.at("/result/structuredContent/execution_id").asText()).actor());
  }

  @Test
  @Order(20)
  void theOfficialTypeScriptSdkDiscoversTheIssuerGetsATokenForThisResourceAndCalls() throws Exception {
    int before = received.size();
    List<JsonNode> lines = sdk("sdk-agent", "tools:read tools:act");
    List<String> flow = flow(lines);
    // Discovery → token (for this resource) → calls, all done by the SDK from the 401's challenge.
    assertEquals(List.of("POST /mcp 401", "GET /.well-known/oauth-protected-resource/mcp 200", "POST /corp/token 200",
        "POST /mcp 200"), metadataFree(flow).subList(0, 4), String.join("\n", flow));
    assertFalse(flow.contains("POST /mcp 403"), String.join("\n", flow));
    JsonNode act = event(lines, "act").path("result");
    assertEquals("completed", act.at("/structuredContent/state").asText(), act.toString());
    assertEquals("oauth:corp/sdk-agent", record(act.at("/structuredContent/execution_id").asText()).actor());
    assertEquals(before + 2, received.size(), "one read, one act");
  }

  @Test
  @Order(21)
  void theOfficialTypeScriptSdkWithTooNarrowAScopeIsAnswered403AndItsStepUpAttemptIsRefusedToo() throws Exception {
    int before = received.size();
    List<JsonNode> lines = sdk("sdk-reader", "tools:read");
    List<String> flow = flow(lines);
    assertFalse(event(lines, "read").path("result").path("isError").asBoolean(), lines.toString());
    int forbidden = flow.indexOf("POST /mcp 403");
    assertTrue(forbidden > 0, String.join("\n", flow));
    assertEquals(List.of("POST /mcp 403", "GET /.well-known/oauth-protected-resource/mcp 200", "POST /corp/token 200",
        "POST /mcp 403"), metadataFree(flow.subList(forbidden, flow.size())), "the SDK asked for a token again on the challenge");
    assertTrue(event(lines, "act-refused").path("message").asText().contains("403"), lines.toString());
    String challenge = lines.stream().filter(l -> l.path("status").asInt() == 403).findFirst().orElseThrow().path("wwwAuthenticate").asText();
    assertTrue(challenge.startsWith("Bearer error=\"insufficient_scope\""), challenge);
    assertTrue(challenge.contains("scope=\"tools:act\""), challenge);
    assertEquals(before + 1, received.size(), "the read only");
  }

  @Test
  @Order(22)
  void theOfficialPythonSdkGetsATokenForThisResourceAndCalls() throws Exception {
    Path python = io.onceport.testing.PythonMcp.ready();
    int before = received.size();
    Node22.Result run = Node22.run(List.of(python.toString(), Path.of("src/test/python/oauth_client.py").toAbsolutePath().toString(),
        resource, idp.issuer("corp"), "py-agent", "tools:act", "python"), Node22.PROJECT, Duration.ofSeconds(90));
    List<JsonNode> lines = new ArrayList<>();
    for (String l : run.output()) {
      if (l.startsWith("{")) { // warnings the runtime prints are not observations
        lines.add(JSON.readTree(l));
      }
    }
    assertEquals(0, run.exit(), run.text());
    List<String> flow = metadataFree(flow(lines));
    assertEquals(List.of("POST /mcp 401", "GET /.well-known/oauth-protected-resource/mcp 200", "POST /corp/token 200",
        "POST /mcp 200"), flow.subList(0, 4), String.join("\n", flow));
    JsonNode act = event(lines, "act").path("result");
    assertEquals("completed", act.at("/structuredContent/state").asText(), act.toString());
    assertEquals("oauth:corp/py-agent", record(act.at("/structuredContent/execution_id").asText()).actor());
    assertEquals(before + 1, received.size());
  }

  private static List<JsonNode> sdk(String clientId, String scope) throws Exception {
    Path node = Node22.ready().resolve("node");
    Node22.Result run = Node22.run(List.of(node.toString(), "oauth-client.mjs", resource, idp.issuer("corp"), clientId, scope,
        "sdk-" + clientId), Node22.PROJECT, Duration.ofSeconds(90));
    List<JsonNode> lines = new ArrayList<>();
    for (String l : run.output()) {
      if (l.startsWith("{")) { // warnings the runtime prints are not observations
        lines.add(JSON.readTree(l));
      }
    }
    assertEquals(0, run.exit(), run.text());
    return lines;
  }

  private static List<String> flow(List<JsonNode> lines) {
    List<String> flow = new ArrayList<>();
    for (JsonNode l : lines) {
      if (l.path("event").asText().equals("http")) {
        flow.add(l.path("method").asText() + " " + URI.create(l.path("url").asText()).getPath() + " " + l.path("status").asInt());
      }
    }
    return flow;
  }

  private static JsonNode event(List<JsonNode> lines, String event) {
    return lines.stream().filter(l -> l.path("event").asText().equals(event)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + event + " in " + lines));
  }

  /** The flow without the authorization server's metadata look-ups (the SDK tries several well-known forms). */
  private static List<String> metadataFree(List<String> flow) {
    return flow.stream().filter(f -> !f.contains("/.well-known/oauth-authorization-server")
        && !f.contains("/.well-known/openid-configuration")).toList();
  }

  /** Last: every token this class used, searched for in every history, every file of the data dir and every log line. */
  @Test
  @Order(100)
  void noTokenReachesHistoriesJournalsFilesOrLogs() throws Exception {
    assertTrue(tokensUsed.size() > 10, "tokens were used: " + tokensUsed.size());
    List<String> hits = new ArrayList<>();
    int histories = 0;
    for (RecordedRequest r : received) {
      String id = r.getHeaders().get("Idempotency-Key");
      if (id == null) {
        continue;
      }
      ExecutionRecord rec = record(id);
      histories++;
      for (HistoryEvent event : connection.client().fetchHistory(rec.workflowId(), rec.runId()).getEvents()) {
        String text = new String(event.toByteArray(), StandardCharsets.ISO_8859_1) + event;
        tokensUsed.stream().filter(text::contains).forEach(t -> hits.add("history " + rec.executionId() + " " + event.getEventType()));
      }
    }
    assertTrue(histories >= 5, "histories searched: " + histories);
    worker.journals().activity().checkpoint();
    Path data = dir.resolve("data");
    try (var files = Files.walk(data)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        tokensUsed.stream().filter(text::contains).forEach(t -> hits.add("file " + data.relativize(f)));
      }
    }
    for (ILoggingEvent e : logs.list) {
      String line = e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage());
      tokensUsed.stream().filter(line::contains).forEach(t -> hits.add("log " + e.getLoggerName()));
    }
    assertTrue(logs.list.size() > 5, "logs were captured: " + logs.list.size());
    assertEquals(List.of(), hits);
  }

  // ---- helpers ------------------------------------------------------------------------------

  private static String token(String issuer, String subject, String scope) {
    String t = idp.token(issuer, subject, resource, scope, HOUR);
    tokensUsed.add(t);
    return t;
  }

  private static String metadataUrl() {
    return "http://127.0.0.1:" + frontend.port() + "/.well-known/oauth-protected-resource/mcp";
  }

  private static ExecutionRecord record(String executionId) throws InterruptedException {
    return Records.await(directory, executionId, r -> true, Duration.ofSeconds(20));
  }

  private static String initialize() {
    return "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"oauth-test\",\"version\":\"1.0\"}}}";
  }

  private static String initialize(String token) throws Exception {
    HttpResponse<String> r = post(token, null, initialize());
    assertEquals(200, r.statusCode(), r.body());
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertEquals(202, post(token, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode());
    return session;
  }

  private static String call(int id, String tool, String arguments) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":"
        + arguments + "}}";
  }

  private static HttpResponse<String> post(String token, String session, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(resource)).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json").header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18");
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
