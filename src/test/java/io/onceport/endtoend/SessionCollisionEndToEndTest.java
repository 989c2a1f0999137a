package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.testing.McpClient;
import io.onceport.testing.Records;
import io.onceport.testing.ServedGateway;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The attack of issue 25 item 2, exactly: actor {@code agent:ci} with run id {@code prod:nightly}
 * and actor {@code agent:ci:prod} with run id {@code nightly} once had one session id
 * ({@code run:agent:ci:prod:nightly}), so one session workflow; the operator authorized only the
 * victim's session and the attacker's irreversible call was sent. Here, the whole gateway as
 * {@code serve} wires it (embedded engine, a worker with the operator session policy, the MCP front
 * end, the demo target recording every request), both agents call the irreversible tool over MCP
 * 2026-07-28 with their run ids, an operator authorizes the victim's session through the CLI: the
 * victim's call is sent once, the attacker's stays waiting and never reaches the target.
 */
@Timeout(180)
class SessionCollisionEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TASK_QUEUE = "onceport-collision";
  private static ServedGateway gateway;

  @BeforeAll
  static void start() throws Exception {
    gateway = ServedGateway.newBuilder(TASK_QUEUE).contracts("send_notification.yaml").sessionPolicy("operator")
        .agents("agent:ci", "agent:ci:prod").journalWriter("collision").start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (gateway != null) {
      gateway.close();
    }
  }

  private static String executionId(JsonNode response) {
    String id = response.at("/result/structuredContent/execution_id").asText();
    assertTrue(id.startsWith("act_"), response.toString());
    return id;
  }

  private static ExecutionRecord await(String executionId, ExecutionState state) throws InterruptedException {
    return Records.await(gateway.directory(), executionId, r -> r.state() == state, Duration.ofSeconds(30));
  }

  private static long sent(String executionId) {
    return gateway.target().ledger().stream().filter(e -> e.path().equals("/v1/notifications") && executionId.equals(e.key())).count();
  }

  /** The operator's CLI, signing as carol. */
  private static String cli(String... args) {
    boolean decides = args.length > 1 && List.of("authorize", "deny", "revoke").contains(args[1]);
    return (decides ? gateway.signed(args) : gateway.cli(args)).expect(0).out();
  }

  @Test
  void anotherActorWhoseNameAndRunJoinToTheVictimsSessionIdCannotUseTheVictimsAuthorization() throws Exception {
    String victim = executionId(gateway.callInRun(gateway.token("agent:ci:prod"), 1, "nightly", "victim: deploy window opens"));
    String attacker = executionId(gateway.callInRun(gateway.token("agent:ci"), 1, "prod:nightly", "attacker: wire the money"));
    ExecutionRecord victimWaiting = await(victim, ExecutionState.AWAITING_SESSION_AUTHORIZATION);
    ExecutionRecord attackerWaiting = await(attacker, ExecutionState.AWAITING_SESSION_AUTHORIZATION);

    String out = cli("sessions", "authorize", victimWaiting.sessionId(), "--yes", "--reason", "the victim's nightly run");
    assertTrue(out.contains(victimWaiting.sessionId() + ": authorized by carol"), out);
    await(victim, ExecutionState.COMPLETED);
    assertEquals(1, sent(victim), "the victim's authorized call was sent once");

    // The attacker's execution was never told of the victim's decision: it still waits, and nothing of it was sent.
    ExecutionRecord still = Records.await(gateway.directory(), attacker, r -> true, Duration.ofSeconds(5));
    assertEquals(ExecutionState.AWAITING_SESSION_AUTHORIZATION, still.state(), still.view() + " — " + still.message());
    assertEquals(0, sent(attacker), "the attacker's irreversible call never reached the target");
    assertNotEquals(victimWaiting.sessionId(), attackerWaiting.sessionId(), "two actors' runs are two sessions");
    String shown = cli("sessions", "show", attackerWaiting.sessionId());
    assertTrue(shown.contains("agent:ci\n") || shown.contains("actor       agent:ci"), shown);
    assertTrue(shown.contains("status      pending"), shown);
  }

  @Test
  void theSessionsOfBothActorsAreListedApartWithTheirOwnActor() throws Exception {
    executionId(gateway.callInRun(gateway.token("agent:ci:prod"), 2, "weekly", "victim weekly"));
    executionId(gateway.callInRun(gateway.token("agent:ci"), 2, "prod:weekly", "attacker weekly"));
    String list = cli("sessions", "list", "--json");
    JsonNode sessions = JSON.readTree(list);
    List<String> ids = new java.util.ArrayList<>();
    for (JsonNode s : sessions) {
      ids.add(s.path("sessionId").asText());
    }
    long weekly = ids.stream().filter(i -> i.contains("weekly")).count();
    assertEquals(2, weekly, list);
    assertEquals(2, ids.stream().filter(i -> i.contains("weekly")).distinct().count(), list);
    for (JsonNode s : sessions) {
      String id = s.path("sessionId").asText();
      if (id.contains("weekly")) {
        assertTrue(id.contains(s.path("actor").asText()), "the session id names its actor: " + id);
      }
    }
  }

  /**
   * Issue 25 item 8: after {@code agent remove} and {@code agent add} the old session and its
   * authorization once worked with the new token. Now the run's session is the old token's: it is
   * ended when the token goes, and the same run id with the new token is a new, undecided session.
   */
  @Test
  void aRemovedAndReaddedAgentStartsWithNoSessionAndNoAuthorization() throws Exception {
    AgentRegistry agents = new AgentRegistry(gateway.data());
    String first = agents.add("agent:rotated");
    String before = executionId(gateway.callInRun(first, 1, "nightly", "rotated: before"));
    ExecutionRecord waiting = await(before, ExecutionState.AWAITING_SESSION_AUTHORIZATION);
    cli("sessions", "authorize", waiting.sessionId(), "--yes", "--reason", "the rotated agent's nightly run");
    await(before, ExecutionState.COMPLETED);

    assertTrue(agents.remove("agent:rotated")); // as `onceport agent remove` in another process: the front end reads the file
    String[] shown = {""};
    io.onceport.testing.Conditions.await("the old token's session ended", Duration.ofSeconds(30), () -> {
      shown[0] = cli("sessions", "show", waiting.sessionId());
      return shown[0].contains("credential was removed");
    });
    String second = agents.add("agent:rotated");
    String after = executionId(gateway.callInRun(second, 2, "nightly", "rotated: after"));
    ExecutionRecord again = await(after, ExecutionState.AWAITING_SESSION_AUTHORIZATION);
    assertNotEquals(waiting.sessionId(), again.sessionId(), "the same run with the new token is another session");
    assertEquals(0, sent(after), "the old authorization does not carry over to the new token");
    assertTrue(cli("sessions", "show", again.sessionId()).contains("status      pending"));
  }
}
