package io.onceport.workflow.archfixture;

import java.time.Instant;
import java.time.LocalDateTime;

/**
 * Deliberately wrong workflow-side code, read only by ArchitectureTest to show the determinism
 * rule fails on each forbidden call. It sits under {@code io.onceport.workflow} (in test sources,
 * which the architecture rules over the product do not import) so the rule's package selection
 * is exercised too. Never called.
 */
public final class NondeterministicWorkflowCode {
  private NondeterministicWorkflowCode() {}

  static Object mathRandom() {
    return Math.random();
  }

  static Object instantNow() {
    return Instant.now();
  }

  static Object localDateTimeNow() {
    return LocalDateTime.now();
  }

  static Object currentTimeMillis() {
    return System.currentTimeMillis();
  }

  static Object getenv() {
    return System.getenv("HOME");
  }

  static Object getProperty() {
    return System.getProperty("user.dir");
  }

  static Object newThread() {
    return new Thread(() -> {});
  }
}
