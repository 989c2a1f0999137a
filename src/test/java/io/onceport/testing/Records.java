package io.onceport.testing;

import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.workflow.execution.ExecutionRecord;
import java.time.Duration;
import java.util.function.Predicate;

/** Polling an execution record until it reaches a state, for end-to-end tests. */
public final class Records {
  private Records() {}

  /**
   * Polls until the record satisfies the condition or the timeout passes. A query that fails
   * while a worker is starting or was just killed is asked again.
   */
  public static ExecutionRecord await(ExecutionDirectory directory, String executionId, Predicate<ExecutionRecord> condition,
      Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ExecutionRecord last = null;
    RuntimeException failure = null;
    while (System.nanoTime() < deadline) {
      try {
        var location = directory.locate(executionId);
        if (location.isPresent()) {
          last = directory.record(location.get());
          if (condition.test(last)) {
            return last;
          }
        }
      } catch (RuntimeException e) {
        failure = e;
      }
      Thread.sleep(100);
    }
    if (last == null && failure != null) {
      throw failure;
    }
    throw new AssertionError("execution " + executionId + " did not reach the expected state; last: "
        + (last == null ? "none" : last.view() + " — " + last.message()));
  }

  /** Waits until the execution's run has closed. */
  public static void awaitClosed(ExecutionDirectory directory, String executionId, Duration timeout) throws InterruptedException {
    var location = directory.locate(executionId).orElseThrow();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!directory.isOpen(location)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("execution " + executionId + " did not close");
  }
}
