package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.onceport.workflow.execution.Delivery;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tool result of an execution waiting for a person names the exact command that unblocks it
 * and what the agent should do meanwhile; it is not an error (nothing failed, nothing was sent).
 */
class ToolResultsAwaitingTest {
  private static ExecutionRecord waiting(ExecutionState state, String expiresAt) {
    return new ExecutionRecord("act_01WAIT", "onceport-fp-1", "run-1", "hmac-sha256:00", null, "create_release",
        "agent:deployer", "agent:deployer", "mcp:Se55ion", "http", "http://127.0.0.1:8766/v1/releases", "POST",
        "deploy-api", "status_query", "{}", state, Outcome.PENDING, Delivery.PENDING, "2026-12-01T10:00:00Z",
        null, null, null, null, null, null, null, null,
        new ExecutionRecord.Authorization("waiting", "rule", "2026-12-01T10:00:00Z", "policy", "", expiresAt),
        null, 0, List.of(), List.of(), List.of(), null, null, "", 3);
  }

  @Test
  void aSessionAwaitingAuthorizationNamesTheSessionsAuthorizeCommand() {
    ExecutionRecord r = waiting(ExecutionState.AWAITING_SESSION_AUTHORIZATION, "2026-12-01T10:15:00Z");
    String text = "execution act_01WAIT is waiting: this agent session (mcp:Se55ion) awaits authorization by an operator, "
        + "who runs: onceport sessions authorize mcp:Se55ion. Nothing was sent yet. Afterwards, call this tool again with "
        + "the same arguments (it attaches to this execution, it does not start a second one) or call "
        + "onceport_execution_status with this execution_id. If nobody decides by 2026-12-01T10:15:00Z, it is rejected.";
    assertEquals(text, ToolResults.message(r));
    var result = ToolResults.callResult(r, false, null);
    assertEquals(text, result.at("/content/0/text").asText());
    assertFalse(result.get("isError").asBoolean());
    assertEquals("awaiting_session_authorization", result.at("/structuredContent/state").asText());
    assertEquals("input_required", ToolResults.taskStatus(r));
  }

  @Test
  void anExecutionAwaitingApprovalNamesApproveAndDeny() {
    ExecutionRecord r = waiting(ExecutionState.AWAITING_APPROVAL, null);
    assertEquals("execution act_01WAIT is waiting: it awaits an operator's approval (its credential needs approval for "
        + "each use), who runs: onceport approve act_01WAIT (or onceport deny act_01WAIT --reason 'why'). Nothing was sent "
        + "yet. Afterwards, call this tool again with the same arguments (it attaches to this execution, it does not "
        + "start a second one) or call onceport_execution_status with this execution_id.", ToolResults.message(r));
  }
}
