package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthorities;
import io.onceport.activity.session.SessionJournalActivitiesImpl;
import io.onceport.frontend.gateway.CallResult;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.testing.Contracts;
import io.onceport.testing.EngineHarness;
import io.onceport.testing.RecordingJournal;
import io.onceport.testing.RecordingSessionJournal;
import io.onceport.testing.ScriptedDispatch;
import io.onceport.testing.SimplePreparation;
import io.onceport.workflow.contract.ReplayClass;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Policy {@code --session-authorization auto}: a session nobody authorized is allowed at once. */
class SessionPolicyAutoTest {
  @Test
  void underTheAutoPolicyACallOfAnUnknownSessionIsAllowedAndDispatchedOnce() throws Exception {
    ScriptedDispatch dispatch = new ScriptedDispatch();
    RecordingSessionJournal sessions = new RecordingSessionJournal();
    try (EngineHarness harness = new EngineHarness(
        new SimplePreparation(Contracts.http("plain_tool", ReplayClass.IDEMPOTENCY_KEY, "http://127.0.0.1:9", Duration.ofMinutes(5))),
        client -> new Object[] {
          dispatch, new RecordingJournal(), new SessionJournalActivitiesImpl(sessions),
          new AuthorizationActivitiesImpl(null, SessionAuthorities.forPolicy("auto", client, EngineHarness.TASK_QUEUE), Duration.ofMinutes(10))
        })) {
      CallResult r = harness.gateway.call(new ToolCall("agent:demo", "plain_tool",
          new ObjectMapper().readTree("{\"service\":\"catalog\",\"version\":\"v1\"}"), null, null, "mcp:never-authorized",
          "1", "2025-06-18", "demo/1", "127.0.0.1", 10_000));
      assertEquals(ExecutionState.COMPLETED, r.record().state());
      assertEquals("allowed", r.record().authorization().rule());
      assertEquals(1, dispatch.dispatched.size());
      assertEquals(List.of(), sessions.appends);
    }
  }
}
