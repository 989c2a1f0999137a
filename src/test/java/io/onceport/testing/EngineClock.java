package io.onceport.testing;

import com.google.protobuf.util.Durations;
import io.onceport.shared.temporal.TemporalConnection;
import io.temporal.api.testservice.v1.SleepRequest;
import io.temporal.api.testservice.v1.TestServiceGrpc;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The embedded engine's clock, for tests that must see a timer of minutes fire (a late-arrival tail, a window). */
public final class EngineClock {
  private EngineClock() {}

  /**
   * Moves the embedded test server's clock on by {@code d} at once (its time skipping, otherwise
   * locked): every timer due meanwhile fires. The server skips only while no activity is in flight on
   * it, so use it on an engine where nothing else runs.
   */
  public static void skip(TemporalConnection connection, Duration d) {
    skip(connection.stubs(), d);
  }

  private static void skip(WorkflowServiceStubs stubs, Duration d) {
    TestServiceGrpc.newBlockingStub(stubs.getRawChannel())
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .unlockTimeSkippingWithSleep(SleepRequest.newBuilder().setDuration(Durations.fromMillis(d.toMillis())).build());
  }
}
