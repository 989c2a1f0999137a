package io.onceport.shared.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Java SDK does with a signal or update input the worker's codec refuses, on a real
 * engine (the Temporal test server): a client with no payload key sends plain JSON. With
 * {@link PayloadRefusedException} (a {@code DataConverterException}) the signal is dropped and the
 * workflow keeps running; the update is rejected at validation with the codec's message and leaves
 * no trace in history. For contrast, a codec throwing the SDK's own {@code PayloadCodecException}
 * fails the workflow task on the forged signal, again on every retry: the workflow is wedged.
 */
@Timeout(90)
class ForgedPayloadTest {
  @TempDir Path data;

  @WorkflowInterface
  public interface Gate {
    @WorkflowMethod
    String run();

    @SignalMethod
    void open(String by);

    @UpdateMethod
    String decide(String by);

    @UpdateValidatorMethod(updateName = "decide")
    void validateDecide(String by);

    @QueryMethod
    String openedBy();
  }

  public static class GateImpl implements Gate {
    private String openedBy;

    @Override
    public String run() {
      Workflow.await(() -> openedBy != null);
      return "opened by " + openedBy;
    }

    @Override
    public void open(String by) {
      openedBy = by;
    }

    @Override
    public String decide(String by) {
      openedBy = by;
      return "decided by " + by;
    }

    @Override
    public void validateDecide(String by) {}

    @Override
    public String openedBy() {
      return openedBy;
    }
  }

  private static List<HistoryEvent> events(WorkflowClient client, String workflowId) {
    return client.fetchHistory(workflowId).getHistory().getEventsList();
  }

  @Test
  void aForgedPlainSignalIsDroppedAndAForgedPlainUpdateIsRejectedWhileTheWorkflowKeepsWorking() throws Exception {
    DataConverter encrypted = Payloads.dataConverter(KeyRing.loadOrCreate(data));
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setUseTimeskipping(false)
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(encrypted).build()).build())) {
      Worker worker = env.newWorker("forged");
      worker.registerWorkflowImplementationTypes(GateImpl.class);
      env.start();
      WorkflowClient onceport = env.getWorkflowClient();
      Gate gate = onceport.newWorkflowStub(Gate.class, WorkflowOptions.newBuilder().setTaskQueue("forged").setWorkflowId("gate-1").build());
      WorkflowClient.start(gate::run);

      // A plain Temporal client: no payload key, default converter.
      WorkflowClient plain = WorkflowClient.newInstance(env.getWorkflowServiceStubs(),
          WorkflowClientOptions.newBuilder().setNamespace(env.getNamespace()).build());
      Gate forged = plain.newWorkflowStub(Gate.class, "gate-1");

      WorkflowUpdateException rejected = assertThrows(WorkflowUpdateException.class, () -> forged.decide("mallory"));
      assertTrue(String.valueOf(rootMessage(rejected)).startsWith("refused a payload Onceport did not encrypt (encoding \"json/plain\")"),
          String.valueOf(rootMessage(rejected)));

      forged.open("mallory");
      // Wait until the worker has processed the forged signal's workflow task.
      long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (events(onceport, "gate-1").stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).count() < 2
          && System.nanoTime() < end) {
        Thread.sleep(50);
      }
      assertEquals(null, gate.openedBy(), "the forged signal changed nothing");

      gate.open("carol");
      assertEquals("opened by carol", WorkflowStub.fromTyped(gate).getResult(10, TimeUnit.SECONDS, String.class));

      List<HistoryEvent> history = events(onceport, "gate-1");
      assertFalse(history.stream().anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED),
          "no workflow task failed");
      assertFalse(history.stream().anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
          "a rejected update leaves no trace in history");
      assertEquals(2, history.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).count(),
          "the forged signal is in history (and dropped on every replay too)");
    }
  }

  @Test
  void aCodecThatThrowsTheSdksPayloadCodecExceptionWedgesTheWorkflowOnAForgedSignal() throws Exception {
    KeyRing ring = KeyRing.loadOrCreate(data);
    AesGcmPayloadCodec strict = new AesGcmPayloadCodec(ring);
    PayloadCodec sdkStyle = new PayloadCodec() {
      @Override
      public List<Payload> encode(List<Payload> payloads) {
        return strict.encode(payloads);
      }

      @Override
      public List<Payload> decode(List<Payload> payloads) {
        try {
          return strict.decode(payloads);
        } catch (PayloadRefusedException e) {
          throw new PayloadCodecException(e.getMessage());
        }
      }
    };
    DataConverter converter = new CodecDataConverter(DefaultDataConverter.newDefaultInstance(), List.of(sdkStyle));
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setUseTimeskipping(false)
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(converter).build()).build())) {
      Worker worker = env.newWorker("wedged");
      worker.registerWorkflowImplementationTypes(GateImpl.class);
      env.start();
      WorkflowClient onceport = env.getWorkflowClient();
      Gate gate = onceport.newWorkflowStub(Gate.class, WorkflowOptions.newBuilder().setTaskQueue("wedged").setWorkflowId("gate-2").build());
      WorkflowClient.start(gate::run);
      WorkflowClient plain = WorkflowClient.newInstance(env.getWorkflowServiceStubs(),
          WorkflowClientOptions.newBuilder().setNamespace(env.getNamespace()).build());
      plain.newWorkflowStub(Gate.class, "gate-2").open("mallory");

      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      boolean failed = false;
      while (!failed && System.nanoTime() < end) {
        failed = events(onceport, "gate-2").stream().anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
        Thread.sleep(100);
      }
      assertTrue(failed, "the forged signal fails the workflow task");
      gate.open("carol"); // a genuine signal cannot get through: every task fails on the forged one first
      long carolSignal = events(onceport, "gate-2").stream()
          .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).reduce((a, b) -> b).orElseThrow().getEventId();
      boolean failedAgain = false;
      while (!failedAgain && System.nanoTime() < end) {
        failedAgain = events(onceport, "gate-2").stream()
            .anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED && e.getEventId() > carolSignal);
        Thread.sleep(100);
      }
      assertTrue(failedAgain, "the task carrying the genuine signal fails too");
      assertFalse(events(onceport, "gate-2").stream().anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED));
      WorkflowStub.fromTyped(gate).terminate("test done");
    }
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof io.temporal.failure.ApplicationFailure app ? app.getOriginalMessage() : c.getMessage();
  }
}
