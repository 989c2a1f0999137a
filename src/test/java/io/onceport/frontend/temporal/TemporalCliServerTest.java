package io.onceport.frontend.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onceport.workflow.execution.ToolExecutionWorkflowImpl;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TemporalCliServerTest {
  private static Path binary;
  @TempDir Path data;

  @BeforeAll
  static void findCli() {
    Optional<Path> found = TemporalCliServer.findBinary();
    if (found.isEmpty() && Files.isExecutable(Path.of("/work/cache/bin/temporal"))) {
      found = Optional.of(Path.of("/work/cache/bin/temporal"));
    }
    assumeTrue(found.isPresent(), "the Temporal CLI is not installed (bin/install-temporal-cli)");
    binary = found.get();
  }

  @Test
  void startsARealServerWithVisibilityAndSearchAttributesThenStops() throws Exception {
    TemporalCliServer server = TemporalCliServer.start(binary, data, "127.0.0.1", 0, 0, false, null, Duration.ofSeconds(90));
    try (TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false, null, Duration.ofSeconds(10))) {
      assertTrue(new ExecutionDirectory(connection).hasVisibility());
      connection.registerSearchAttributes(); // already registered by --search-attribute: must be a no-op
      HttpResponse<String> ui = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(server.uiUrl().orElseThrow())).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, ui.statusCode());
      assertTrue(Files.exists(data.resolve("temporal.db")));
    } finally {
      server.close();
    }
    assertFalse(server.isAlive());
    assertFalse(ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive).orElse(false));
  }

  @Test
  void searchAttributesAreRegisteredAndStateSurvivesARestart() throws Exception {
    String workflowId;
    TemporalCliServer first = TemporalCliServer.start(binary, data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
    try (TemporalConnection connection = TemporalConnection.connect(first.target(), "default", false, null, Duration.ofSeconds(10))) {
      var stub = connection.client().newUntypedWorkflowStub("SomeType",
          io.temporal.client.WorkflowOptions.newBuilder().setTaskQueue("nobody-polls").setWorkflowId("durable-" + System.nanoTime())
              .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
                  .set(ToolExecutionWorkflowImpl.SA_EXECUTION_ID, "act_cli_test").build())
              .build());
      workflowId = stub.start().getWorkflowId();
    } finally {
      first.close();
    }
    TemporalCliServer second = TemporalCliServer.start(binary, data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
    try (TemporalConnection connection = TemporalConnection.connect(second.target(), "default", false, null, Duration.ofSeconds(10))) {
      var described = connection.client().newUntypedWorkflowStub(workflowId).describe();
      assertEquals("act_cli_test", described.getTypedSearchAttributes().get(ToolExecutionWorkflowImpl.SA_EXECUTION_ID));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      long found = 0;
      while (found == 0 && System.nanoTime() < deadline) {
        found = connection.client().listExecutions("OnceportExecutionId = 'act_cli_test'").count();
        if (found == 0) {
          Thread.sleep(250);
        }
      }
      assertEquals(1, found);
    } finally {
      second.close();
    }
  }

  @Test
  void aServerThatCannotStartFailsWithItsOwnMessage() throws Exception {
    try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
          () -> TemporalCliServer.start(binary, data, "127.0.0.1", busy.getLocalPort(), 0, true, null, Duration.ofSeconds(30)));
      assertTrue(e.getMessage().startsWith("temporal server start-dev exited with status "), e.getMessage());
    }
  }
}
