package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker killed with SIGKILL while its irreversible request is at the target: the replacement
 * worker must not send it again; the execution waits for review with an unknown outcome.
 */
@Timeout(180)
class WorkerCrashTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void workerKilledDuringAnIrreversibleDispatchIsNeverResentByTheNextWorker() throws Exception {
    try (GatewayHarness gateway = new GatewayHarness(false, Duration.ofSeconds(1))) {
      String temporal = gateway.engine.target();
      String[] worker = {"worker", "--temporal", temporal, "--embedded-engine", "--task-queue", GatewayHarness.TASK_QUEUE,
          "--data", gateway.data.toString(), "--session-authorization", "auto"};
      McpClient client = gateway.client();
      // The target holds the request for 6 s before acting: the worker dies while it waits.
      gateway.armFault("delay=6000", 1);
      String id;
      try (ChildProcess first = ChildProcess.onceport(gateway.dir, worker).awaitLine("onceport: worker", Duration.ofSeconds(60))) {
        JsonNode pending = client.call(1, "send_notification", JSON.readTree("{\"message\":\"crash test\"}"));
        id = pending.at("/result/structuredContent/execution_id").asText();
        if (!"dispatched".equals(pending.at("/result/structuredContent/state").asText())) {
          gateway.awaitRecord(id, r -> r.state() == ExecutionState.DISPATCHED, Duration.ofSeconds(30));
        }
        // Killed only once the request is at the target (held there by the delay fault).
        io.onceport.testing.Conditions.await("the request reached the target", Duration.ofSeconds(30),
            () -> gateway.target.received(id) >= 1);
        first.kill9();
      }
      try (ChildProcess second = ChildProcess.onceport(gateway.dir, worker).awaitLine("onceport: worker", Duration.ofSeconds(60))) {
        ExecutionRecord record = gateway.awaitRecord(id, r -> r.state() == ExecutionState.NEEDS_REVIEW, Duration.ofSeconds(60));
        assertEquals(Outcome.UNKNOWN, record.outcome());
        assertEquals(1, record.dispatchAttempts());
        assertTrue(record.message().contains("worker stopped answering"), record.message());
        // The held request completes at the target; nothing else arrives (the execution is in review).
        io.onceport.testing.Conditions.await("the held request completed at the target", Duration.ofSeconds(30),
            () -> gateway.target.acted(id) >= 1);
        assertEquals(1, gateway.target.received(id), "requests the target received");
        assertEquals(1, gateway.target.acted(id), "the held request completed: one action");
        JsonNode retry = client.call(2, "send_notification", JSON.readTree("{\"message\":\"crash test\"}"));
        assertEquals(id, retry.at("/result/structuredContent/execution_id").asText());
        assertEquals("needs_review", retry.at("/result/structuredContent/state").asText());
        assertEquals(1, gateway.target.received(id), "nothing was sent again");
      }
    }
  }
}
