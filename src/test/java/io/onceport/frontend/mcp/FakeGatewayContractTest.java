package io.onceport.frontend.mcp;

import io.onceport.frontend.gateway.ExecutionGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;

/** The fake the MCP tests run on, held to the real gateway's attach rule. */
@Timeout(30)
class FakeGatewayContractTest extends ExecutionGatewayContract {
  private final FakeGateway gateway = new FakeGateway();

  @AfterEach
  void close() {
    gateway.close();
  }

  @Override
  ExecutionGateway gateway() {
    return gateway;
  }

  @Override
  int dispatches() {
    return gateway.dispatches.size();
  }

  @Override
  void awaitClosed(String executionId) {
    // A delivered execution of the fake takes no further call: it is closed as soon as the report is in.
  }
}
