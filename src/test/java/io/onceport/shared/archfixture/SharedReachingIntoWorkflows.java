package io.onceport.shared.archfixture;

import io.onceport.workflow.contract.ToolContract;

/**
 * Deliberately wrong: shared code depending on the workflow model, which would tie what both roles
 * share to one of them. Read only by ArchitectureTest to show the shared rule fails on it. Never
 * called.
 */
public final class SharedReachingIntoWorkflows {
  private SharedReachingIntoWorkflows() {}

  static Object contract() {
    return ToolContract.class;
  }
}
