package io.onceport.frontend.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthority;
import io.onceport.activity.auth.TargetPolicy;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.activity.http.HttpChannel;
import io.onceport.app.runtime.HttpReadChannel;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.gateway.ReadPath;
import io.onceport.frontend.gateway.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read path's rules with the real ladder and the real HTTP read channel against a recording
 * target: what it declines (so the durable path decides and records), and how it asks again when a
 * read got no answer.
 */
@Timeout(60)
class DirectReadsTest {
  final MockWebServer target = new MockWebServer();
  @TempDir Path dir;
  ContractSet contracts;

  @AfterEach
  void stop() throws Exception {
    target.close();
  }

  @BeforeEach
  void contracts() throws Exception {
    target.start(java.net.InetAddress.getLoopbackAddress(), 0);
    String base = target.url("/").toString().replaceAll("/$", "");
    Files.writeString(dir.resolve("read_item.yaml"), contract("read_item", base + "/items/{{id}}", ""));
    Files.writeString(dir.resolve("read_secret.yaml"), contract("read_secret", base + "/secret/{{id}}", "  credential: reader\n"));
    contracts = new ContractLoader().load(dir);
  }

  static String contract(String tool, String url, String credential) {
    return "tool: " + tool + "\ndescription: Read one item.\ninput_schema:\n  type: object\n  required: [id]\n"
        + "  properties:\n    id: {type: string}\nchannel: http\nhttp:\n  method: GET\n  url: " + url + "\n  timeout: PT2S\n"
        + credential + "replay:\n  class: read_only\n";
  }

  DirectReads reads(SessionAuthority sessions, String policy) {
    AuthorizationActivitiesImpl ladder = new AuthorizationActivitiesImpl(null, sessions, Duration.ofMinutes(1),
        TargetPolicy.allowAll(), p -> sessions);
    return new DirectReads(contracts, new ArgumentValidator(), ladder, new HttpReadChannel(HttpChannel.forReads(), CredentialResolver.NONE),
        Duration.ofSeconds(10), policy, null, null);
  }

  static ToolCall call(String tool) throws Exception {
    return new ToolCall("agent:reader", tool, new ObjectMapper().readTree("{\"id\":\"i1\"}"), null, null, "mcp:s1", "7",
        "2025-06-18", "test/1", "127.0.0.1", 10_000);
  }

  @Test
  void whatTheLadderWouldMakeWaitOrRefuseTakesTheDurablePathAndSendsNothing() throws Exception {
    DirectReads unauthorizedSession = reads((session, actor) -> false, "operator");
    assertTrue(unauthorizedSession.plan(call("read_item")).isEmpty(), "a session an operator has not authorized yet");
    DirectReads noVault = reads(SessionAuthority.auto(), "auto");
    assertTrue(noVault.plan(call("read_secret")).isEmpty(), "a credential this process holds no vault for");
    assertTrue(noVault.plan(call("create_something")).isEmpty(), "not a read (unknown here): the gateway answers");
    assertTrue(noVault.plan(new ToolCall("agent:reader", "read_item", new ObjectMapper().readTree("{\"id\":\"i1\"}"), null,
        "my-intent", "mcp:s1", "7", "2025-06-18", null, null, 0)).isEmpty(), "an explicit intent key");
    ReadPath.Planned planned = noVault.plan(call("read_item")).orElseThrow();
    assertEquals(List.of("read accepted: read_item is read_only, answered directly without an execution identity",
        "read authorized (allowed)"), planned.steps());
    assertEquals(0, target.getRequestCount(), "planning sends nothing");
  }

  @Test
  void aReadThatGotNoAnswerIsAskedAgain() throws Exception {
    target.enqueue(new MockResponse.Builder().onResponseStart(new SocketEffect.CloseSocket()).build());
    target.enqueue(new MockResponse.Builder().code(200).body("{\"id\":\"i1\"}").build());
    List<String> steps = new CopyOnWriteArrayList<>();
    ReadPath.Answer a = reads(SessionAuthority.auto(), "auto").plan(call("read_item")).orElseThrow().send(steps::add);
    assertTrue(a.completed(), a.message());
    assertEquals("{\"id\":\"i1\"}", a.result().body());
    assertTrue(target.getRequestCount() >= 2, "asked again: " + target.getRequestCount());
    assertEquals("sent to the target", steps.get(0));
    assertTrue(steps.stream().anyMatch(s -> s.startsWith("no answer (") && s.endsWith("); reading again")), steps.toString());
    assertTrue(steps.contains("sent to the target (attempt 2)"), steps.toString());
  }

  @Test
  void aReadWithoutAnAnswerAfterItsAttemptsSaysNothingWasChanged() throws Exception {
    for (int i = 0; i < 6; i++) {
      target.enqueue(new MockResponse.Builder().onResponseStart(new SocketEffect.CloseSocket()).build());
    }
    ReadPath.Answer a = reads(SessionAuthority.auto(), "auto").plan(call("read_item")).orElseThrow().send(s -> {});
    assertFalse(a.completed());
    assertNull(a.result());
    assertTrue(a.message().startsWith("the read got no answer: GET ") && a.message().endsWith(
        " (read_only: nothing was changed; calling again is safe)"), a.message());
    assertTrue(target.getRequestCount() >= DirectReads.ATTEMPTS, "attempts: " + target.getRequestCount());
  }
}
