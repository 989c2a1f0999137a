package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.codec.Payloads;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.WireProtocol;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ExecutionInput;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.deployment.v1.WorkerDeploymentVersion;
import io.temporal.api.workflowservice.v1.UpdateWorkerDeploymentVersionMetadataRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Front ends and workers of different builds on one Worker Deployment (the Temporal CLI's dev
 * server). A worker publishes its {@link WireProtocol} on its version; a front end reads the
 * current version's before it starts. Same build: works. A front end of a newer protocol than the
 * current workers speak: refuses to start, saying to make a newer worker build current first. A
 * front end older than the current workers accept: refuses, saying to upgrade the front end. An
 * older front end without the check (protocol 1: it leaves the execution id to the run) against
 * workers of this build: its execution runs and is sent once. Builds of other protocols are stood
 * in for by the metadata they would publish on the worker's version; the older front end's input
 * is one as those front ends sent it.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MixedVersionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUILD = "mixed-a";

  @Test
  void frontEndsAndWorkersOfDifferentProtocolsEitherWorkOrRefuseToStartSayingWhatToUpgrade() throws Exception {
    Path binary = TemporalCli.binaryOrSkip();
    try (Cluster cluster = new Cluster();
        TemporalCliServer server = TemporalCliServer.start(binary, cluster.data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
        TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false,
            Payloads.dataConverter(true, cluster.data), Duration.ofSeconds(10))) {
      cluster.start("worker", "--temporal", server.target(), "--task-queue", Cluster.TASK_QUEUE, "--data", cluster.data.toString(),
          "--session-authorization", "auto", "--journal-writer", "w1", "--build-id", BUILD)
          .awaitLine("build " + BUILD + ": current", Cluster.START_LINE);

      // The same build: the front end starts and a call completes.
      ChildProcess same = cluster.frontend(server.target());
      int port = Cluster.awaitFrontend(same);
      assertTrue(same.output().stream().anyMatch(l -> l.contains("wire protocol: the current workers (Worker Deployment onceport, build "
          + BUILD + ") speak wire protocol " + WireProtocol.CURRENT)), String.join("\n", same.output()));
      JsonNode answer = cluster.client(port).call(1, "create_release", JSON.readTree("{\"service\":\"mixed\",\"version\":\"1\"}"));
      assertEquals("completed", answer.at("/result/structuredContent/state").asText(), answer.toString());

      // A front end of this build against workers of an older protocol (they would not know the chosen execution id).
      publish(connection, WireProtocol.CURRENT - 1, WireProtocol.CURRENT - 1);
      assertRefused(cluster, server, "the current workers (Worker Deployment onceport, build " + BUILD + ") speak wire protocol "
          + (WireProtocol.CURRENT - 1) + "; this front end speaks " + WireProtocol.CURRENT + ": make a worker build that speaks "
          + WireProtocol.CURRENT + " current first (upgrade workers before front ends; docs/production.md, \"Upgrading\")");

      // A front end of this build against workers that no longer accept its protocol.
      publish(connection, WireProtocol.CURRENT + 1, WireProtocol.CURRENT + 1);
      assertRefused(cluster, server, "the current workers (Worker Deployment onceport, build " + BUILD + ") accept front ends of wire "
          + "protocol " + (WireProtocol.CURRENT + 1) + " and later; this front end speaks " + WireProtocol.CURRENT
          + ": upgrade this front end to build " + BUILD + " (docs/production.md, \"Upgrading\")");

      // An older front end (protocol 1, no check of its own) against workers of this build: its input runs, sent once.
      assertEquals(1, WireProtocol.OLDEST_FRONT_END);
      ToolContract contract = new ContractLoader().load(cluster.contracts).find("create_release").orElseThrow();
      ExecutionInput older = ExecutionInput.of("hmac-sha256:" + "a".repeat(64), "create_release", "agent:deployer", "actor:agent:deployer",
          null, null, contract.http().url(), contract.http().method(), contract, "{\"region\":\"us-east-1\",\"service\":\"older\",\"version\":\"1\"}",
          null);
      assertEquals(null, older.executionId(), "front ends of protocol 1 leave the execution id to the run");
      ToolExecutionWorkflow run = connection.client().newWorkflowStub(ToolExecutionWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId("onceport-fp-older-front-end").setTaskQueue(Cluster.TASK_QUEUE).build());
      WorkflowClient.start(run::run, older);
      ExecutionRecord record = awaitCompleted(run);
      assertTrue(record.executionId().startsWith("act_"), record.executionId());
      assertEquals(1, cluster.dispatches(record.executionId()));
    }
  }

  /** Writes on the worker's version what a worker build of that protocol range would publish. */
  private static void publish(TemporalConnection connection, int speaks, int acceptsFrom) {
    String json = "{\"speaks\":" + speaks + ",\"accepts_front_ends_from\":" + acceptsFrom + "}";
    connection.stubs().blockingStub().updateWorkerDeploymentVersionMetadata(UpdateWorkerDeploymentVersionMetadataRequest.newBuilder()
        .setNamespace("default").setDeploymentVersion(WorkerDeploymentVersion.newBuilder().setDeploymentName("onceport").setBuildId(BUILD))
        .putUpsertEntries(WireProtocol.METADATA_KEY, Payload.newBuilder().putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(ByteString.copyFromUtf8(json)).build())
        .build());
  }

  private static void assertRefused(Cluster cluster, TemporalCliServer server, String message) throws Exception {
    ChildProcess front = cluster.frontend(server.target());
    int exit = front.awaitExit(Cluster.START_LINE);
    assertNotEquals(0, exit);
    assertTrue(front.output().contains("onceport: " + message), String.join("\n", front.output()));
    assertTrue(front.output().stream().noneMatch(l -> l.contains("MCP endpoint")), String.join("\n", front.output()));
  }

  private static ExecutionRecord awaitCompleted(ToolExecutionWorkflow run) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    ExecutionRecord last = null;
    while (System.nanoTime() < deadline) {
      last = run.record();
      if (last.state() == ExecutionState.COMPLETED) {
        return last;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the older front end's execution did not complete: " + (last == null ? "none" : last.view()));
  }
}
