package io.onceport.activity.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.testing.UpstreamServers;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.McpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.temporal.failure.ApplicationFailure;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The mcp channel against real upstream MCP servers built with the official TypeScript SDK: a
 * Streamable HTTP server that honours idempotencyKey, one started without it, and a stdio server
 * the channel runs itself. Each server's ledger records every tools/call it received.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class McpChannelTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static UpstreamServers.Http keyed;
  private static UpstreamServers.Http unkeyed;
  private static final AtomicInteger ids = new AtomicInteger();

  private final List<String> listChanged = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final McpUpstreams upstreams = new McpUpstreams(new OkHttpClient(), listChanged::add);
  private final McpChannel channel = new McpChannel(upstreams);
  private final Context context = new Context();

  @BeforeAll
  static void startServers() throws Exception {
    keyed = UpstreamServers.Http.start();
    unkeyed = UpstreamServers.Http.start("--no-idempotency");
  }

  @AfterAll
  static void stopServers() throws Exception {
    if (keyed != null) {
      keyed.close();
    }
    if (unkeyed != null) {
      unkeyed.close();
    }
  }

  @AfterEach
  void closeUpstreams() {
    upstreams.close();
  }

  @Test
  void toolsCallCarriesTheExecutionIdAsMetaAndAsIdempotencyKeyAndReturnsTheUpstreamResult() throws Exception {
    DispatchRequest request = request(keyed.spec("create_ticket"), ReplayClass.IDEMPOTENCY_KEY, "{\"title\":\"meta\"}");

    DispatchResult result = channel.dispatch(request, context);

    assertTrue(result.succeeded(), result.body());
    assertEquals(Boolean.FALSE, result.toolError());
    JsonNode body = JSON.readTree(result.body());
    assertEquals("meta", body.at("/structuredContent/title").asText());
    assertTrue(body.at("/content/0/text").asText().startsWith("created T-"), result.body());
    List<JsonNode> calls = keyed.calls("create_ticket", "title", "meta");
    assertEquals(1, calls.size(), calls.toString());
    assertEquals(request.executionId(), calls.get(0).get("idempotencyKey").asText());
    assertEquals(request.executionId(), calls.get(0).get("executionId").asText());
    assertEquals(1, context.beforeSend);
  }

  @Test
  void aSameKeyResendToAnUpstreamThatHonoursIdempotencyKeyActsOnceAndGetsTheFirstResult() throws Exception {
    DispatchRequest request = request(keyed.spec("create_ticket"), ReplayClass.IDEMPOTENCY_KEY, "{\"title\":\"resend\"}");

    DispatchResult first = channel.dispatch(request, context);
    DispatchResult again = channel.dispatch(new DispatchRequest(request.executionId(), request.fingerprint(),
        request.contract(), request.arguments(), 2), context);

    assertEquals(JSON.readTree(first.body()), JSON.readTree(again.body()), "the re-send got the first result");
    List<JsonNode> calls = keyed.calls("create_ticket", "title", "resend");
    assertEquals(2, calls.size(), "both sends reached the upstream: " + calls);
    assertEquals(List.of(false, true), calls.stream().map(c -> c.get("replayed").asBoolean()).toList());
    assertTrue(calls.stream().allMatch(c -> c.get("idempotencyKey").asText().equals(request.executionId())));
  }

  @Test
  void aStreamCutAfterTheUpstreamActedIsAnUnknownOutcome() throws Exception {
    keyed.fault("cut-after-call", 1);
    DispatchRequest request = request(keyed.spec("send_email"), ReplayClass.IRREVERSIBLE, "{\"to\":\"ops@example.com\",\"subject\":\"cut\"}");

    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> channel.dispatch(request, context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, f.getType());
    assertTrue(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().contains("may have reached the server") || f.getOriginalMessage().contains("broke off"),
        f.getOriginalMessage());
    assertEquals(1, keyed.calls("send_email", "subject", "cut").size(), "the upstream received it once");
    assertEquals(1, context.beforeSend);
  }

  @Test
  void anUpstreamSlowerThanTheTimeoutIsAnUnknownOutcome() throws Exception {
    keyed.fault("delay=3000", 1);
    McpSpec quick = new McpSpec(keyed.url(), null, null, null, "send_email", null, 1000, null);
    DispatchRequest request = request(quick, ReplayClass.IRREVERSIBLE, "{\"to\":\"ops@example.com\",\"subject\":\"slow\"}");

    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> channel.dispatch(request, context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, f.getType());
    assertEquals(1, keyed.calls("send_email", "subject", "slow").size());
  }

  @Test
  void aRefusedConnectionIsNotSentAndNothingIsJournaled() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    McpSpec gone = new McpSpec("http://127.0.0.1:" + port + "/mcp", null, null, null, "send_email", null, 5000, null);

    ApplicationFailure f = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(request(gone, ReplayClass.IRREVERSIBLE, "{\"to\":\"a\",\"subject\":\"b\"}"), context));

    assertEquals(ErrorTypes.NOT_SENT, f.getType());
    assertFalse(f.isNonRetryable());
    assertEquals(0, context.beforeSend, "beforeSend (the dispatched journal entry) only when the request is written");
  }

  @Test
  void aFailingBeforeSendSendsNothingAndItsFailurePropagates() throws Exception {
    RuntimeException journalDown = ApplicationFailure.newNonRetryableFailure("journal is down", ErrorTypes.JOURNAL_UNAVAILABLE);
    Context failing = new Context() {
      @Override
      public void beforeSend() {
        throw journalDown;
      }
    };

    RuntimeException thrown = assertThrows(RuntimeException.class, () -> channel.dispatch(
        request(keyed.spec("send_email"), ReplayClass.IRREVERSIBLE, "{\"to\":\"a\",\"subject\":\"journal-down\"}"), failing));

    assertSame(journalDown, thrown);
    assertEquals(0, keyed.calls("send_email", "subject", "journal-down").size(), "nothing reached the upstream");
  }

  @Test
  void classIdempotencyKeyIsRefusedBeforeSendingWhenTheUpstreamDoesNotAdvertiseToolsIdempotency() throws Exception {
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> channel.dispatch(
        request(unkeyed.spec("create_ticket"), ReplayClass.IDEMPOTENCY_KEY, "{\"title\":\"unkeyed\"}"), context));

    assertEquals(ErrorTypes.INVALID_REQUEST, f.getType());
    assertTrue(f.getOriginalMessage().contains("does not advertise tools.idempotency"), f.getOriginalMessage());
    assertEquals(0, unkeyed.calls("create_ticket", "title", "unkeyed").size());
    assertEquals(0, context.beforeSend);
  }

  @Test
  void anUpstreamErrorIsAnAnswerNotAnUnknownOutcome() throws Exception {
    DispatchResult unknownTool = channel.dispatch(request(keyed.spec("no_such_tool"), ReplayClass.IRREVERSIBLE, "{}"), context);

    assertEquals(Boolean.TRUE, unknownTool.toolError());
    assertFalse(unknownTool.succeeded());
    JsonNode body = JSON.readTree(unknownTool.body());
    assertTrue(body.get("isError").asBoolean());
    assertEquals(-32602, body.at("/error/code").asInt(), unknownTool.body());
    assertTrue(body.at("/content/0/text").asText().contains("Unknown tool: no_such_tool"), unknownTool.body());
  }

  @Test
  void aServerThatForgotTheSessionAnswers404WhichIsNotSentAndTheNextDispatchInitializesAnew() throws Exception {
    UpstreamServers.Http restarting = UpstreamServers.Http.start();
    int port = restarting.port;
    try {
      channel.dispatch(request(restarting.spec("send_email"), ReplayClass.IRREVERSIBLE, "{\"to\":\"a\",\"subject\":\"before\"}"), context);
      restarting.close();
      restarting = UpstreamServers.Http.start(port);

      ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> channel.dispatch(
          request(new McpSpec("http://127.0.0.1:" + port + "/mcp", null, null, null, "send_email", null, 10_000, null),
              ReplayClass.IRREVERSIBLE, "{\"to\":\"a\",\"subject\":\"after\"}"), context));
      assertEquals(ErrorTypes.NOT_SENT, f.getType(), f.getOriginalMessage());
      assertTrue(f.getOriginalMessage().contains("HTTP 404"), f.getOriginalMessage());
      assertEquals(0, restarting.calls("send_email", "subject", "after").size(), "the forgotten session's call was not processed");

      DispatchResult retried = channel.dispatch(request(restarting.spec("send_email"), ReplayClass.IRREVERSIBLE,
          "{\"to\":\"a\",\"subject\":\"after\"}"), context);
      assertTrue(retried.succeeded(), retried.body());
      assertEquals(1, restarting.calls("send_email", "subject", "after").size());
    } finally {
      restarting.close();
    }
  }

  @Test
  void aStdioUpstreamIsStartedByTheChannelAndAnswers() throws Exception {
    UpstreamServers.Stdio stdio = new UpstreamServers.Stdio(Files.createTempDirectory("onceport-stdio"));
    DispatchRequest request = request(stdio.spec("append_note"), ReplayClass.IRREVERSIBLE, "{\"text\":\"hello\"}");

    DispatchResult result = channel.dispatch(request, context);

    assertTrue(result.succeeded(), result.body());
    assertEquals("noted: hello", JSON.readTree(result.body()).at("/content/0/text").asText());
    List<JsonNode> calls = stdio.calls("append_note", "hello");
    assertEquals(1, calls.size());
    assertEquals(request.executionId(), calls.get(0).get("idempotencyKey").asText());
    assertEquals(request.executionId(), calls.get(0).get("executionId").asText());
  }

  @Test
  void aStdioUpstreamThatDiesMidCallIsAnUnknownOutcomeAndIsRestartedForTheNextDispatch() throws Exception {
    UpstreamServers.Stdio stdio = new UpstreamServers.Stdio(Files.createTempDirectory("onceport-stdio"));
    channel.dispatch(request(stdio.spec("append_note"), ReplayClass.IRREVERSIBLE, "{\"text\":\"warm-up\"}"), context);
    long firstPid = upstreams.pidOf(stdio.spec("append_note"));
    stdio.fault("die-after-call");
    DispatchRequest dying = request(stdio.statusSpec("append_note"), ReplayClass.STATUS_QUERY, "{\"text\":\"dies\"}");

    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> channel.dispatch(dying, context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, f.getType());
    assertTrue(f.getOriginalMessage().contains("exited with status 3"), f.getOriginalMessage());
    assertEquals(1, stdio.calls("append_note", "dies").size());

    // The status tool settles it (the note was written), and the restarted process answers.
    StatusResult verdict = channel.queryStatus(dying, context);
    assertEquals(StatusResult.Verdict.COMPLETED, verdict.verdict(), verdict.detail());
    long secondPid = upstreams.pidOf(stdio.spec("append_note"));
    assertTrue(secondPid > 0);
    assertNotEquals(firstPid, secondPid, "a new process after the first died");
    StatusResult never = channel.queryStatus(request(stdio.statusSpec("append_note"), ReplayClass.STATUS_QUERY, "{\"text\":\"x\"}"), context);
    assertEquals(StatusResult.Verdict.NOT_EXECUTED, never.verdict(), never.detail());
    assertEquals(1, stdio.notes().stream().filter(n -> n.contains("\"dies\"")).count(), "the note was written once");
  }

  @Test
  void aStdioServerThatCannotStartIsNotSent() {
    McpSpec broken = new McpSpec(null, List.of("/nonexistent/onceport-upstream"), null, null, "x", null, 5000, null);

    ApplicationFailure f = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(request(broken, ReplayClass.IRREVERSIBLE, "{}"), context));

    assertEquals(ErrorTypes.NOT_SENT, f.getType());
    assertTrue(f.getOriginalMessage().contains("cannot start the server"), f.getOriginalMessage());
    assertEquals(0, context.beforeSend);
  }

  @Test
  void theStatusToolReadsTheVerdictFromStructuredContent() throws Exception {
    DispatchRequest created = request(keyed.spec("create_ticket"), ReplayClass.IDEMPOTENCY_KEY, "{\"title\":\"status\"}");
    channel.dispatch(created, context);
    McpSpec withStatus = new McpSpec(keyed.url(), null, null, null, "create_ticket", null, 10_000,
        new io.onceport.workflow.contract.McpStatusSpec("ticket_status", "{\"key\":\"{{execution_id}}\"}", "state",
            List.of("created"), List.of(), List.of("not_found")));

    StatusResult found = channel.queryStatus(new DispatchRequest(created.executionId(), "hmac-sha256:x",
        contract(withStatus, ReplayClass.STATUS_QUERY), created.arguments(), 1), context);
    StatusResult missing = channel.queryStatus(request(withStatus, ReplayClass.STATUS_QUERY, "{\"title\":\"never\"}"), context);

    assertEquals(StatusResult.Verdict.COMPLETED, found.verdict(), found.detail());
    assertEquals("status tool ticket_status answered state=created", found.detail());
    assertEquals(StatusResult.Verdict.NOT_EXECUTED, missing.verdict(), missing.detail());
    assertNull(missing.result() == null ? null : missing.result().status());
  }

  @Test
  void aVerificationCheckCallsTheUpstreamReadToolAndReadsItsStructuredContent() throws Exception {
    McpSpec spec = keyed.spec("create_ticket");
    io.onceport.workflow.contract.VerifySpec verify = io.onceport.workflow.contract.VerifySpec.newBuilder()
        .setMcp("ticket_status", "{\"key\":\"{{execution_id}}\"}")
        .setVerifiedWhen(new io.onceport.workflow.contract.VerifyCondition(List.of(), "/state", null, "\"created\"", null))
        .setNotAppliedWhen(new io.onceport.workflow.contract.VerifyCondition(List.of(), "/state", null, "\"not_found\"", null))
        .build();
    ToolContract kept = ToolContract.mcp("t_verify", "", "{\"type\":\"object\"}", null, spec,
        new ReplaySpec(ReplayClass.IDEMPOTENCY_KEY, Duration.ofMinutes(5), null, verify), List.of(), List.of());
    DispatchRequest created = new DispatchRequest("act_01JMCPVERIFY" + System.nanoTime(), "hmac-sha256:x", kept,
        "{\"title\":\"verify\"}", 1);
    channel.dispatch(created, context);
    io.onceport.workflow.verify.VerifyRequest.Expectation isCreated =
        new io.onceport.workflow.verify.VerifyRequest.Expectation("\"created\"", "literal", null);
    io.onceport.workflow.verify.VerifyRequest.Expectation isMissing =
        new io.onceport.workflow.verify.VerifyRequest.Expectation("\"not_found\"", "literal", null);

    io.onceport.workflow.verify.VerifyAnswer found = channel.verify(new io.onceport.workflow.verify.VerifyRequest(
        created.executionId(), "hmac-sha256:x", kept, created.arguments(), 1, isCreated, isMissing), context);
    io.onceport.workflow.verify.VerifyAnswer absent = channel.verify(new io.onceport.workflow.verify.VerifyRequest(
        "act_01JMCPNEVERSENT" + System.nanoTime(), "hmac-sha256:x", kept, "{\"title\":\"never\"}", 1, isCreated, isMissing),
        context);

    assertEquals(io.onceport.workflow.verify.VerifyAnswer.Verdict.VERIFIED, found.verdict(), found.detail());
    assertEquals("\"created\"", found.held().get(0).value());
    assertNull(found.status(), "an mcp answer has no status");
    assertEquals(io.onceport.workflow.verify.VerifyAnswer.Verdict.NOT_APPLIED, absent.verdict(), absent.detail());
    assertEquals(1, keyed.calls("create_ticket", "title", "verify").size(), "the checks only read");
  }

  @Test
  void aVaultCredentialIsSentAsABearerTokenAndAnEchoOfItIsRedactedFromTheAnswer() throws Exception {
    String secret = "tok-" + System.nanoTime();
    try (UpstreamServers.Http guarded = UpstreamServers.Http.start(0, java.util.Map.of("UPSTREAM_TOKEN", secret),
        "--require-token-env", "UPSTREAM_TOKEN")) {
      McpSpec withCredential = new McpSpec(guarded.url(), null, null, null, "send_email", "tickets", 10_000, null);
      Context vault = new Context() {
        @Override
        public Credential credential(String reference) {
          assertEquals("tickets", reference);
          return new Credential("tickets", Credential.Type.BEARER, null, null, secret);
        }
      };

      DispatchResult ok = channel.dispatch(request(withCredential, ReplayClass.IRREVERSIBLE, "{\"to\":\"a\",\"subject\":\"authorized\"}"), vault);
      assertTrue(ok.succeeded(), ok.body());
      assertEquals(1, guarded.calls("send_email", "subject", "authorized").size());

      ApplicationFailure refused = assertThrows(ApplicationFailure.class, () -> new McpChannel(new McpUpstreams()).dispatch(
          request(new McpSpec(guarded.url(), null, null, null, "send_email", null, 10_000, null), ReplayClass.IRREVERSIBLE,
              "{\"to\":\"a\",\"subject\":\"anonymous\"}"), context));
      assertEquals(ErrorTypes.NOT_SENT, refused.getType(), "initialize was refused with 401: nothing of the call was sent");
      assertTrue(refused.getOriginalMessage().contains("HTTP 401"), refused.getOriginalMessage());
      assertFalse(refused.getOriginalMessage().contains(secret));
      assertFalse(ok.body().contains(secret));
      assertEquals(List.of(), ok.redacted());

      guarded.fault("echo-auth", 1);
      DispatchResult echoed = channel.dispatch(request(withCredential, ReplayClass.IRREVERSIBLE,
          "{\"to\":\"a\",\"subject\":\"echo\"}"), vault);
      assertFalse(echoed.body().contains(secret), echoed.body());
      assertTrue(echoed.body().contains("(authorization: Bearer [redacted:tickets])"), echoed.body());
      assertEquals(List.of("tickets"), echoed.redacted());

      Context sshKey = new Context() {
        @Override
        public Credential credential(String reference) {
          return new Credential("tickets", Credential.Type.SSH_KEY, null, null, secret);
        }
      };
      ApplicationFailure wrongType = assertThrows(ApplicationFailure.class, () -> channel.dispatch(
          request(withCredential, ReplayClass.IRREVERSIBLE, "{\"to\":\"a\",\"subject\":\"ssh\"}"), sshKey));
      assertEquals(ErrorTypes.INVALID_REQUEST, wrongType.getType());
      assertFalse(wrongType.getOriginalMessage().contains(secret));
    }
  }

  @Test
  void aStdioServerKilledWhileTheCallIsInFlightIsAnUnknownOutcome() throws Exception {
    UpstreamServers.Stdio stdio = new UpstreamServers.Stdio(Files.createTempDirectory("onceport-stdio"));
    channel.dispatch(request(stdio.spec("append_note"), ReplayClass.IRREVERSIBLE, "{\"text\":\"warm\"}"), context);
    stdio.fault("delay=20000");
    java.util.concurrent.CompletableFuture<Throwable> inFlight = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        channel.dispatch(request(stdio.spec("append_note"), ReplayClass.IRREVERSIBLE, "{\"text\":\"killed\"}"), context);
        return null;
      } catch (Throwable t) {
        return t;
      }
    });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (stdio.calls("append_note", "killed").isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(1, stdio.calls("append_note", "killed").size(), "the server received the call");
    ProcessHandle.of(upstreams.pidOf(stdio.spec("append_note"))).orElseThrow().destroyForcibly(); // kill -9

    Throwable t = inFlight.get(15, TimeUnit.SECONDS);
    assertTrue(t instanceof ApplicationFailure, String.valueOf(t));
    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, ((ApplicationFailure) t).getType(), ((ApplicationFailure) t).getOriginalMessage());
  }

  @Test
  void anUpstreamsToolListChangeIsReportedToTheListenerAndTheCallStillAnswers() throws Exception {
    keyed.fault("list-changed", 1);
    DispatchResult http = channel.dispatch(request(keyed.spec("send_email"), ReplayClass.IRREVERSIBLE,
        "{\"to\":\"a\",\"subject\":\"list-changed\"}"), context);
    UpstreamServers.Stdio stdio = new UpstreamServers.Stdio(Files.createTempDirectory("onceport-stdio"));
    stdio.fault("list-changed");
    DispatchResult viaStdio = channel.dispatch(request(stdio.spec("append_note"), ReplayClass.IRREVERSIBLE,
        "{\"text\":\"list-changed\"}"), context);

    assertTrue(http.succeeded(), http.body());
    assertTrue(viaStdio.succeeded(), viaStdio.body());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (listChanged.size() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(List.of(keyed.url(), "stdio:" + String.join(" ", stdio.command)), listChanged);
  }

  @Test
  void aBrokenResponseStreamOfAResumableServerIsResumedWithLastEventIdNotResent() throws Exception {
    try (UpstreamServers.Http resumable = UpstreamServers.Http.start("--resumable")) {
      resumable.fault("cut-after-call", 1);
      DispatchRequest request = request(resumable.spec("send_email"), ReplayClass.IRREVERSIBLE,
          "{\"to\":\"ops@example.com\",\"subject\":\"resumed\"}");

      DispatchResult result = channel.dispatch(request, context);

      assertTrue(result.succeeded(), result.body());
      assertEquals("sent \"resumed\" to ops@example.com", JSON.readTree(result.body()).at("/content/0/text").asText());
      assertEquals(1, resumable.calls("send_email", "subject", "resumed").size(), "resumed, not sent again");
      assertEquals(1, context.beforeSend);
    }
  }

  // ---- helpers ----

  static ToolContract contract(McpSpec spec, ReplayClass replayClass) {
    return ToolContract.mcp("t_" + spec.tool(), "", "{\"type\":\"object\"}", null, spec,
        new ReplaySpec(replayClass, Duration.ofMinutes(5), null), List.of(), List.of());
  }

  static DispatchRequest request(McpSpec spec, ReplayClass replayClass, String arguments) {
    return new DispatchRequest("act_01JMCPTEST" + ids.incrementAndGet() + System.nanoTime(), "hmac-sha256:test",
        contract(spec, replayClass), arguments, 1);
  }

  static class Context implements DispatchContext {
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
}
