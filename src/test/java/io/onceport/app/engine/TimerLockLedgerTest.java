package io.onceport.app.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TimerLockLedgerTest {
  private static final String QUEUE = "ledger-test";
  private static final int RUNS = 20;

  @WorkflowInterface
  public interface SleepThenAct {
    @WorkflowMethod
    String run(String name);
  }

  @ActivityInterface
  public interface Greeter {
    String greet(String name);
  }

  public static final class SleepThenActImpl implements SleepThenAct {
    private final Greeter greeter = Workflow.newActivityStub(Greeter.class,
        ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());

    @Override
    public String run(String name) {
      Workflow.sleep(Duration.ofMillis(20)); // a timer: time locking must stay balanced
      return greeter.greet(name);
    }
  }

  static final class GreeterImpl implements Greeter {
    @Override
    public String greet(String name) {
      return "hello " + name;
    }
  }

  @Test
  void thePlainTestServerKeepsEveryTimeLockItEverTook() throws Exception {
    TestServicesStarter services = new TestServicesStarter(true, 0);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    Server server = builder.build().start();
    try {
      int before = ledger(services).size();
      runWorkflows("127.0.0.1:" + ((InetSocketAddress) server.getListenSockets().get(0)).getPort());
      // The defect this class works around: a few entries per run, never removed.
      assertTrue(ledger(services).size() >= before + 2 * RUNS, "ledger grew by " + (ledger(services).size() - before));
    } finally {
      server.shutdownNow();
      services.close();
    }
  }

  @Test
  void theEmbeddedEngineKeepsNoLedgerAndStillRunsTimersAndActivities() throws Exception {
    try (EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0)) {
      TestServicesStarter services = services(engine);
      assertInstanceOf(TimerLockLedger.KeepsNothing.class, ledger(services));
      runWorkflows(engine.target());
      assertEquals(0, ledger(services).size());
      assertTrue(TimerLockLedger.discard(services), "a second discard is a no-op that reports success");
    }
  }

  private static void runWorkflows(String target) {
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(target).build());
    WorkflowClient client = WorkflowClient.newInstance(stubs);
    WorkerFactory factory = WorkerFactory.newInstance(client);
    try {
      var worker = factory.newWorker(QUEUE);
      worker.registerWorkflowImplementationTypes(SleepThenActImpl.class);
      worker.registerActivitiesImplementations(new GreeterImpl());
      factory.start();
      for (int i = 0; i < RUNS; i++) {
        SleepThenAct wf = client.newWorkflowStub(SleepThenAct.class,
            WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId("ledger-" + i).build());
        assertEquals("hello " + i, wf.run(String.valueOf(i)));
      }
    } finally {
      factory.shutdownNow();
      factory.awaitTermination(10, TimeUnit.SECONDS);
      stubs.shutdownNow();
    }
  }

  private static TestServicesStarter services(EmbeddedEngine engine) throws ReflectiveOperationException {
    Field f = EmbeddedEngine.class.getDeclaredField("services");
    f.setAccessible(true);
    return (TestServicesStarter) f.get(engine);
  }

  private static List<?> ledger(TestServicesStarter services) throws ReflectiveOperationException {
    Field timerField = TestServicesStarter.class.getDeclaredField("selfAdvancingTimer");
    timerField.setAccessible(true);
    Object timer = timerField.get(services);
    Field ledgerField = timer.getClass().getDeclaredField("lockEvents");
    ledgerField.setAccessible(true);
    return (List<?>) ledgerField.get(timer);
  }
}
