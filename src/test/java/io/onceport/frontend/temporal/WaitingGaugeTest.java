package io.onceport.frontend.temporal;

import io.onceport.shared.temporal.TemporalConnection;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.onceport.app.engine.TemporalCliServer;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reviews-waiting gauge on a server with visibility counts (a count query, read every 15 s by
 * every front end) instead of listing every waiting execution.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WaitingGaugeTest {
  @TempDir Path data;

  @Test
  void theGaugeCountsOpenExecutionsWaitingForAPersonOnARealServer() throws Exception {
    Path binary = TemporalCli.binaryOrSkip();
    try (TemporalCliServer server = TemporalCliServer.start(binary, data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
        TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false, null, Duration.ofSeconds(10))) {
      start(connection, "gauge-a", "awaiting_session_authorization");
      start(connection, "gauge-b", "needs_review_outcome_unknown");
      start(connection, "gauge-c", "dispatched");
      ExecutionDirectory directory = new ExecutionDirectory(connection);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      long n = directory.countWaitingForOperators();
      while (n != 2 && System.nanoTime() < deadline) {
        Thread.sleep(250); // visibility is eventually consistent
        n = directory.countWaitingForOperators();
      }
      assertEquals(2, n);
    }
  }

  /** A ToolExecution run nobody works on, carrying {@code state} as its search attribute. */
  private static void start(TemporalConnection connection, String id, String state) {
    connection.client().newUntypedWorkflowStub(ToolExecutionWorkflow.TYPE, WorkflowOptions.newBuilder()
        .setTaskQueue("nobody-polls").setWorkflowId(id)
        .setTypedSearchAttributes(SearchAttributes.newBuilder().set(io.onceport.workflow.execution.ExecutionSearchAttributes.SA_STATE, state).build())
        .build()).start();
  }
}
