package io.onceport.frontend.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.workflow.session.SessionWorkflowIds;
import io.onceport.app.Main;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.workflow.session.AgentSessionWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The session workflow of an MCP session is not addressable from the agent's own Mcp-Session-Id:
 * its id is keyed with the deployment's fingerprint key. The whole gateway as {@code serve} wires it.
 */
@Timeout(90)
class KeyedSessionWorkflowIdTest {
  @Test
  void theSessionWorkflowIdIsAKeyedDerivationTheAgentCannotComputeAndTheCliStillFindsTheSession() throws Exception {
    try (GatewayHarness gateway = new GatewayHarness(true)) {
      McpClient client = gateway.client();
      // The session workflow starts with the session's first durable call (not with initialize).
      client.call(1, "send_notification", new ObjectMapper().createObjectNode().put("message", "keyed"));
      // What the agent can read from its own session header: the nonce the session id is made of.
      String payload = client.session().substring(0, client.session().indexOf('.'));
      var claims = new ObjectMapper().readTree(Base64.getUrlDecoder().decode(payload));
      String nonce = claims.get("n").asText();
      String sessionId = io.onceport.frontend.auth.SessionIds.forCall("agent:deployer", claims.path("g").asText(null), nonce,
          null, null, null);

      List<WorkflowExecutionInfo> sessions = List.of();
      long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (sessions.isEmpty() && System.nanoTime() < end) {
        sessions = gateway.connection.stubs().blockingStub().listOpenWorkflowExecutions(ListOpenWorkflowExecutionsRequest.newBuilder()
                .setNamespace("default").setTypeFilter(WorkflowTypeFilter.newBuilder().setName(AgentSessionWorkflow.TYPE)).build())
            .getExecutionsList().stream().filter(i -> i.getType().getName().equals(AgentSessionWorkflow.TYPE)).toList();
        Thread.sleep(50);
      }
      assertEquals(1, sessions.size(), "one session workflow for the one MCP session");
      String workflowId = sessions.get(0).getExecution().getWorkflowId();
      assertTrue(workflowId.matches("onceport-session-[0-9a-f]{32}"), workflowId);
      assertFalse(workflowId.contains(nonce), workflowId);
      assertEquals(SessionWorkflowIds.keyed(FingerprintKey.loadOrCreate(gateway.data)::hmac).workflowId("agent:deployer", sessionId),
          workflowId);

      String legacy = AgentSessionWorkflow.WORKFLOW_ID_PREFIX + sessionId;
      StatusRuntimeException missing = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
          () -> gateway.connection.stubs().blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
              .setNamespace("default").setExecution(WorkflowExecution.newBuilder().setWorkflowId(legacy)).build()));
      assertEquals(Status.Code.NOT_FOUND, missing.getStatus().getCode(), "the id an agent could compute does not exist");

      // The operator's CLI derives the same id from the shared keys; the session id stays readable.
      String shown = cli("sessions", "show", sessionId, "--temporal", gateway.engine.target(), "--data", gateway.data.toString());
      assertTrue(shown.contains("session     " + sessionId), shown);
      assertTrue(shown.contains("actor       agent:deployer"), shown);
      assertTrue(shown.contains("workflow    " + workflowId), "the UI needs the workflow id: " + shown);
    }
  }

  private static synchronized String cli(String... args) {
    PrintStream out = System.out;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      int exit = Main.run(args);
      assertEquals(0, exit, o.toString(StandardCharsets.UTF_8));
      return o.toString(StandardCharsets.UTF_8);
    } finally {
      System.setOut(out);
    }
  }
}
