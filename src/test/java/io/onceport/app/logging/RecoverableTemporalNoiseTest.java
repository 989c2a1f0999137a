package io.onceport.app.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With the product's logback.xml, the Temporal SDK's warning about a recoverable
 * {@code UnhandledCommand} rejection (what an attached retry during a workflow task causes) prints
 * nothing, in both formats; other SDK warnings and Onceport's own lines still print.
 */
class RecoverableTemporalNoiseTest {
  /** The logger and message WorkflowWorker uses when the server rejects a task completion. */
  private static final Logger SDK = LoggerFactory.getLogger("io.temporal.internal.worker.WorkflowWorker");
  private final PrintStream originalErr = System.err;

  @AfterEach
  void restore() {
    System.setErr(originalErr);
    LogFormat.use("text");
  }

  private String capture(Runnable logging) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      logging.run();
    } finally {
      System.setErr(originalErr);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void unhandledCommandRejectionsPrintNothingAndOtherWarningsStill(String format) {
    LogFormat.use(format);
    Exception rejected = new RuntimeException("Failure processing workflow task",
        Status.INVALID_ARGUMENT.withDescription("UnhandledCommand").asRuntimeException());
    String out = capture(() -> {
      SDK.warn("Failure while reporting workflow progress to the server. If seen continuously the workflow might be stuck. "
          + "WorkflowId={}, RunId={}, startedEventId={}", "onceport-fp-1", "run-1", 7, rejected);
      LoggerFactory.getLogger("io.temporal.internal.worker.PollerOptions")
          .warn("Failed workflow task due to unhandled command. This error is likely recoverable.", rejected);
    });
    assertEquals("", out);
    String other = capture(() -> SDK.warn("Failure while reporting workflow progress", new IllegalStateException("disk full")));
    assertTrue(other.contains("disk full"), other);
    String ours = capture(() -> LoggerFactory.getLogger("io.onceport.test").warn("UnhandledCommand in our own words"));
    assertTrue(ours.contains("UnhandledCommand in our own words"), ours);
  }

  @Test
  void theEmbeddedEnginesHeartbeatNoticeIsNotPrinted() {
    LogFormat.use("text");
    String out = capture(() -> LoggerFactory.getLogger("io.temporal.internal.worker.HeartbeatManager")
        .warn("Server does not support worker heartbeats for namespace default, disabling"));
    assertEquals("", out);
  }

  @Test
  void aSendsReportedFactIsNotTracedButOtherActivityFailuresAre() {
    LogFormat.use("text");
    Logger executor = LoggerFactory.getLogger("io.temporal.internal.activity.ActivityTaskExecutors$ActivityTaskExecutor");
    String facts = capture(() -> {
      executor.warn("Activity failure. ActivityId=a1, activityType=Send, attempt=1", io.temporal.failure.ApplicationFailure
          .newNonRetryableFailure("POST http://127.0.0.1:1/v1/releases: request may have reached the target", "OutcomeUnknown"));
      executor.warn("Activity failure. ActivityId=a2, activityType=Send, attempt=1", io.temporal.failure.ApplicationFailure
          .newNonRetryableFailure("connection refused", "NotSent"));
    });
    assertEquals("", facts);
    String other = capture(() -> executor.warn("Activity failure. ActivityId=a3, activityType=Send, attempt=1",
        io.temporal.failure.ApplicationFailure.newNonRetryableFailure("the vault is corrupt", "VaultBroken")));
    assertTrue(other.contains("the vault is corrupt"), other);
    String bug = capture(() -> executor.warn("Activity failure. ActivityId=a4", new NullPointerException("a bug")));
    assertTrue(bug.contains("a bug"), bug);
  }
}
