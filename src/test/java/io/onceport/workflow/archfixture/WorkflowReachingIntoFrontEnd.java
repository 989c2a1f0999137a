package io.onceport.workflow.archfixture;

import io.onceport.frontend.contract.ContractLoader;

/**
 * Deliberately wrong: workflow-side code depending on the front end, which depends on the
 * workflow API, a cycle between the top-level slices. Read only by ArchitectureTest to show the
 * slice rule fails on it. Never called.
 */
public final class WorkflowReachingIntoFrontEnd {
  private WorkflowReachingIntoFrontEnd() {}

  static Object loader() {
    return ContractLoader.class;
  }
}
