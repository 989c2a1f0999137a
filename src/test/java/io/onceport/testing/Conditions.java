package io.onceport.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting on readiness instead of sleeping: poll a condition until it holds or the timeout passes. */
public final class Conditions {
  private Conditions() {}

  /** Returns once {@code condition} holds; fails naming {@code what} after {@code timeout}. */
  public static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + timeout + ": " + what);
      }
      Thread.sleep(25);
    }
  }
}
