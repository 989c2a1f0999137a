package io.onceport.workflow.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.onceport.activity.session.SessionJournalActivitiesImpl;
import io.onceport.testing.Conditions;
import io.onceport.testing.RecordingSessionJournal;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The session workflow's own life cycle, in the time-skipping test environment. */
class AgentSessionWorkflowTest {
  @org.junit.jupiter.api.io.TempDir java.nio.file.Path data;

  @Test
  void anIdleSessionEndsItselfAfterADayAndItsAuthorizationEndsWithIt() throws InterruptedException {
    RecordingSessionJournal journal = new RecordingSessionJournal();
    var carol = io.onceport.testing.Operators.register(data, "carol");
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("sessions");
      worker.registerWorkflowImplementationTypes(AgentSessionWorkflowImpl.class);
      worker.registerActivitiesImplementations(new SessionJournalActivitiesImpl(journal),
          new io.onceport.activity.operator.OperatorActivitiesImpl(new io.onceport.activity.operator.OperatorRegistry(data)));
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      AgentSessionWorkflow session = client.newWorkflowStub(AgentSessionWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(AgentSessionWorkflow.workflowId("mcp:idle")).setTaskQueue("sessions").build());
      BatchRequest batch = client.newSignalWithStartRequest();
      batch.add(session::run, new AgentSessionInput("mcp:idle", "alice"));
      batch.add(session::started, new SessionStarted("mcp:idle", "alice", "claude", "1.2", "2025-06-18", "127.0.0.1", "2026-11-30T06:00:00Z"));
      client.signalWithStart(batch);
      // The operator decides after the session was seen to start (as with `sessions authorize`,
      // which an operator runs on a listed session). Sent at once, the update can reach the worker
      // in the same first workflow task as the start signal and be handled before it.
      Conditions.await("the session's start is journaled", Duration.ofSeconds(30),
          () -> journal.events("mcp:idle").contains("started"));
      session.authorize(io.onceport.testing.Operators.session(carol, "mcp:idle", "alice", "authorize", ""));

      env.sleep(AgentSessionWorkflowImpl.IDLE_CLOSE.plus(Duration.ofMinutes(1)));
      SessionRecord closed = WorkflowStub.fromTyped(session).getResult(SessionRecord.class);
      assertEquals("no session event for PT24H", closed.endReason());
      assertEquals("authorized, ended", closed.status());
      assertFalse(closed.isAuthorized());
      assertEquals(List.of("started", "authorized", "ended"), journal.events("mcp:idle"));
    }
  }
}
